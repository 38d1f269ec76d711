"""Table rule profiles: every difference between the texts as a named setting, loaded as data.

A profile (config/tables/*.toml, read by bingo_hall.tables.config) holds the rules of each wheel
game its catalogue has. docs/tables.md explains each setting with the spec's line references.
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.refusals import Param, Term
from bingo_hall.tables.catalogue import (
    BOULE_BET_TYPES,
    FORTUNE_BET_TYPES,
    LIMIT_GROUP,
    PAYMENT_KIND,
    ROULETTE_BET_TYPES,
    SECTOR_BETS,
)
from bingo_hall.tables.wheels import DOUBLE_ZERO, SINGLE_ZERO, Wheel, boule_wheel, fortune_wheel


class GameName(StrEnum):
    FRENCH_ROULETTE = "french-roulette"
    AMERICAN_ROULETTE = "american-roulette"
    AMERICAN_ROULETTE_00 = "american-roulette-00"
    BOULE = "boule"
    WHEEL_OF_FORTUNE = "wheel-of-fortune"


class Role(StrEnum):
    TABLE_HEAD = "table_head"
    DEPUTY_HEAD = "deputy_head"  # «subjefe de mesa» (N79 L119, N77 L150)
    INSPECTOR = "inspector"
    CROUPIER = "croupier"


class VoidReason(StrEnum):
    OBJECT_IN_WHEEL = "object_in_wheel"  # a chip or other object falls into the cylinder
    BALL_LEFT_WHEEL = "ball_left_wheel"
    DEFECTIVE_LAUNCH = "defective_launch"
    BALL_DID_NOT_DROP = "ball_did_not_drop"  # AST L318-331: the cylinder stopped, no pocket
    POINTER_ON_PIN = "pointer_on_pin"  # wheel of fortune (WOF L31)
    OBSTRUCTION = "obstruction"
    TOO_FEW_REVOLUTIONS = "too_few_revolutions"


class LimitChange(StrEnum):
    FORBIDDEN = "forbidden"  # N79 L210-218, AST L258-279
    WITH_AUTHORISATION = "with_authorisation"  # N77 L277-291: per-case ministry authorisation
    AFTER_LAST_BALLS = "after_last_balls"  # EUS L300-308: after «the last three balls»


class BetsAfterVoid(StrEnum):
    FROZEN = "frozen"  # the ball is relaunched on the same bets
    OPEN = "open"  # «zuen apustuak alda ditzakezue» (EUS L320); «ciclo completo» (WOF L31)


class PaymentRule(StrEnum):
    BY_TYPE = "by_type"  # the texts' lists (N79 L228-230, L262 …)
    SMALLEST_FIRST = "smallest_first"  # WOF L33 «de menor a mayor»
    AS_PLACED = "as_placed"  # no order prescribed (boule, EUS wheel of fortune)


class ZeroRule(StrEnum):
    HALF_OR_PRISON = "half_or_prison"  # French: N79 L167-171
    HALF_BACK = "half_back"  # American: N79 L266 «se pierde la mitad … se recupera la otra»


class SpinDirection(StrEnum):
    """The way the cylinder (or the wheel) is set turning; the ball goes the other way."""

    CLOCKWISE = "clockwise"
    ANTICLOCKWISE = "anticlockwise"


class DirectionRule(StrEnum):
    # «accionar cada vez el cilindro en un sentido opuesto a la anterior» (N79 L224, AST
    # L285-287, EUS L314)
    ALTERNATE = "alternate"
    CLOCKWISE = "clockwise"  # «impulsándola en el sentido de las agujas del reloj» (WOF L25)
    UNRULED = "unruled"  # the text sets none (boule, the Basque wheel of fortune)


class ValueChipBets(StrEnum):
    """Bets in value chips at a table of colour chips."""

    FREE = "free"  # the texts say nothing against them (N79, AST)
    # EUS L338 c, L374: the head or inspector authorises them, provided the bettor can still
    # be identified, and may forbid new ones when there are too many bets to control the game
    HEAD_CONTROLLED = "head_controlled"


class ZeroChoice(StrEnum):
    HALF = "half"
    PRISON = "prison"


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PrisonSettings(Model):
    """The French zero rule's details (spec §2.5); reusable by trente-et-quarante (N79 L522)."""

    below_minimum_stays: bool  # «si está por debajo del mínimo … debe quedar en prisión»
    below_minimum_compares: Literal["value", "refund"] = "value"
    below_minimum_from_first_zero: bool = False
    last_coup_forces_half: bool = True
    default_choice: ZeroChoice = ZeroChoice.PRISON  # a silent player «deja» his stake


class CoupRules(Model):
    """What every wheel game's coup cycle needs."""

    source: str
    bet_types: tuple[str, ...] = Field(min_length=1)
    void_reasons: tuple[VoidReason, ...]
    void_declared_by: tuple[Role, ...] = Field(min_length=1)
    # who declares a void only when none of `void_declared_by` is at the table («edo
    # halakorik ez balego, croupierrak berak», EUS L320)
    void_declared_in_absence_by: tuple[Role, ...] = ()
    # who announces «hagan sus apuestas»: the croupier at roulette (N79 L224), the head of the
    # game at boule (N79 L466, N77 L748-750, EUS L674)
    bets_opened_by: tuple[Role, ...] = Field(default=(Role.CROUPIER,), min_length=1)
    bets_after_void: BetsAfterVoid
    spin_direction: DirectionRule
    # how many croupiers the director's spinning rotation names at least: a boule croupier may
    # not specialise in throwing the ball («sin que ninguno de ellos pueda especializarse»,
    # N79 L424, N77 L703-705, EUS L652), so its rotation names two or more
    min_spinners: int = Field(ge=1)
    # who may head (direct) the table: its head, and under EUS its inspector too («Mahaiburu
    # edo ikuskatzaile bat», EUS L216-224, L650, L1505)
    headed_by: tuple[Role, ...] = Field(default=(Role.TABLE_HEAD,), min_length=1)
    # how many tables one head (or inspector) may direct at once, all in one sector: 4 in the
    # Basque catalogue (EUS L224, L650, L1505), 1 where each table has its own (N79 L117-121)
    tables_per_head: int = Field(ge=1)
    # a two-layout table («a dos paños») has a deputy head beside its head, facing him («un
    # jefe de mesa y un subjefe de mesa, que deben colocarse frente a frente», N79 L119, N77
    # L148-150); EUS names none (L218)
    deputy_at_two_layouts: bool = False
    # a banked table left without customers may be closed for a while during the session, its
    # float locked at the table (EUS L306, L378, L686, L1533, L2931 d)
    temporary_closure: bool = False
    # the least float («anticipo», «aurrerakina») a table is given, as a multiple of its
    # minimum: 15,000 for the Basque wheel of fortune (EUS additional provision 6.2 a, L51-53)
    float_minimum_multiple: int | None = Field(default=None, ge=1)
    last_coups_announced: int = Field(ge=1, le=3)
    last_coups_announcement_required: bool
    limit_change: LimitChange
    old_limit_coups: int = Field(default=3, ge=1)
    payment_rule: PaymentRule
    payment_order: tuple[str, ...] = ()
    pay_player_wins_at_once: bool = False
    at_once_excludes_even_chances: bool = False

    def known_bet_types(self) -> tuple[str, ...]:
        raise NotImplementedError

    def wheel(self) -> Wheel:
        raise NotImplementedError

    def limit_groups(self) -> set[str]:
        groups = set()
        for bet_type in self.bet_types:
            if bet_type in SECTOR_BETS:  # chips on straights, splits, streets and corners
                groups |= {"straight", "split", "street", "corner"}
            else:
                groups.add(LIMIT_GROUP[bet_type])
        return groups

    def payment_kinds(self) -> set[str]:
        kinds = set()
        for bet_type in self.bet_types:
            if bet_type in SECTOR_BETS:
                kinds |= {"straight", "split", "street", "corner"}
            else:
                kinds.add(PAYMENT_KIND[bet_type])
        return kinds

    @model_validator(mode="after")
    def _consistent(self) -> CoupRules:
        both = set(self.void_declared_by) & set(self.void_declared_in_absence_by)
        if both:
            raise ValueError(
                f"{sorted(r.value for r in both)} declare a void both always and only in the "
                "others' absence"
            )
        unknown = sorted(set(self.bet_types) - set(self.known_bet_types()))
        if unknown:
            raise ValueError(f"unknown bet types {unknown}; known: {list(self.known_bet_types())}")
        if self.payment_rule is PaymentRule.BY_TYPE:
            missing = sorted(self.payment_kinds() - set(self.payment_order))
            if missing:
                raise ValueError(f"payment_order does not place {missing}")
        return self


class RouletteRules(CoupRules):
    kind: Literal["roulette"] = "roulette"
    wheel_kind: Literal["single_zero", "double_zero"]
    zero_splits: tuple[tuple[str, str], ...] = ()
    zero_trios: tuple[tuple[str, str, str], ...] = ()
    # Maxima as multiples of the table minimum, one entry per tier; the tier is named by the
    # straight-up multiple (N79 L181-185; AST L244-256; EUS L294-298).
    maxima: dict[str, tuple[int, ...]]
    even_minimum_max_multiple: int = Field(default=1, ge=1)  # EUS L294, AST L358-361: up to 5
    even_multiples_allowed: bool = False  # EUS L294: management may require multiples
    zero_rule: ZeroRule
    half_back_pockets: tuple[str, ...] = ("0",)
    prison: PrisonSettings | None = None
    colour_chips: bool = False  # American: N79 L246-270
    value_chip_bets: ValueChipBets = ValueChipBets.FREE
    # «el Casino deberá poner en funcionamiento una mesa, al menos, con el límite mínimo de
    # apuestas autorizado para dicho juego» (N79 L216; AST L258-279; EUS L308); N77 has none
    one_table_at_minimum: bool

    def known_bet_types(self) -> tuple[str, ...]:
        return ROULETTE_BET_TYPES

    def wheel(self) -> Wheel:
        return SINGLE_ZERO if self.wheel_kind == "single_zero" else DOUBLE_ZERO

    def tiers(self) -> tuple[int, ...]:
        return self.maxima["straight"]

    @model_validator(mode="after")
    def _roulette(self) -> RouletteRules:
        missing = sorted(self.limit_groups() - set(self.maxima))
        if missing:
            raise ValueError(f"maxima has no entry for {missing}")
        if len({len(row) for row in self.maxima.values()}) != 1:
            raise ValueError("every maxima entry needs one value per tier")
        if self.zero_rule is ZeroRule.HALF_OR_PRISON and self.prison is None:
            raise ValueError("the half-or-prison zero rule needs [prison] settings")
        if not set(self.half_back_pockets) <= self.wheel().zeros:
            raise ValueError(f"half_back_pockets must be zeros of the {self.wheel_kind} wheel")
        return self


class BouleRules(CoupRules):
    kind: Literal["boule"] = "boule"
    holes_per_number: int = Field(ge=1)
    # N79 L440-442: layouts at the authorised minimum or twice it; maxima within the bands.
    layout_minimum_multiples: tuple[int, ...] = (1, 2)
    number_maximum_band: tuple[int, int]
    even_maximum_band: tuple[int, int]

    def known_bet_types(self) -> tuple[str, ...]:
        return BOULE_BET_TYPES

    def wheel(self) -> Wheel:
        return boule_wheel(self.holes_per_number)


class Segment(Model):
    symbol: str = Field(min_length=1, pattern=r"^[a-z0-9_]+$")
    slots: int = Field(ge=1)
    payout: Decimal = Field(gt=0)


class FortuneRules(CoupRules):
    kind: Literal["wheel_of_fortune"] = "wheel_of_fortune"
    slots: int = 54  # EUS L1495 «berrogeita hamalau banaketa»
    segments: tuple[Segment, ...] = Field(min_length=1)
    min_revolutions: int = Field(ge=0)  # WOF L27: at least four after the second impulse

    def known_bet_types(self) -> tuple[str, ...]:
        return FORTUNE_BET_TYPES

    def wheel(self) -> Wheel:
        return fortune_wheel({s.symbol: s.slots for s in self.segments})

    def payout(self, symbol: str) -> Decimal:
        return next(s.payout for s in self.segments if s.symbol == symbol)

    @model_validator(mode="after")
    def _slots(self) -> FortuneRules:
        if sum(s.slots for s in self.segments) != self.slots:
            raise ValueError(f"the segments' slots do not add up to {self.slots}")
        if len({s.symbol for s in self.segments}) != len(self.segments):
            raise ValueError("a segment symbol is listed twice")
        return self


GameRules = Annotated[RouletteRules | BouleRules | FortuneRules, Field(discriminator="kind")]


class TableProfile(Model):
    """One catalogue's wheel games."""

    id: str
    title: str
    live: bool = True  # false: a replaced catalogue, for comparison only (spec §0.3)
    currency: str = "EUR"
    rounding_unit: Decimal = Field(default=Decimal("0.01"), gt=0)
    games: dict[GameName, GameRules]

    def rules(self, game: GameName | str) -> RouletteRules | BouleRules | FortuneRules:
        try:
            name = GameName(game)
        except ValueError:
            raise RuleError(
                f"unknown game {game!r}; games: {', '.join(g.value for g in GameName)}"
            ) from None
        if name not in self.games:
            raise RuleError(
                f"profile {self.id} has no {name.value}: its catalogue does not include it "
                f"(games of profile {self.id}: {', '.join(g.value for g in self.games)})"
            )
        return self.games[name]


class TableGame(Model):
    """One game under one profile: what a table of that game plays by."""

    profile_id: str
    game: GameName
    rules: GameRules
    rounding_unit: Decimal = Decimal("0.01")
    currency: str = "EUR"

    @property
    def label(self) -> str:
        return f"{self.game.value} under profile {self.profile_id}"

    @property
    def named(self) -> dict[str, Param]:
        """The label as a refusal names it: the game, which the pages translate, and the
        profile."""
        return {"game": Term("table.game", self.game.value), "profile": self.profile_id}


def role_term(role: Role) -> Term:
    """A table role as the pages say it (`table.role.<name>`)."""
    return Term("table.role", role.value)


def role_terms(roles: tuple[Role, ...]) -> list[Term]:
    return [role_term(role) for role in roles]


def table_game(profile: TableProfile, game: GameName | str) -> TableGame:
    """The rules of `game` in `profile`, or a RuleError if the catalogue does not have it."""
    rules = profile.rules(game)
    return TableGame(
        profile_id=profile.id,
        game=GameName(game),
        rules=rules,
        rounding_unit=profile.rounding_unit,
        currency=profile.currency,
    )
