"""Commands: what staff (or the draw machine) ask of the game. Each names its legal phases."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from bingo_hall.domain.events import (
    BallShowing,
    CameraCheck,
    ClaimKind,
    CrossReading,
    MachineKind,
    PlayerRequestKind,
    WitnessFloor,
)
from bingo_hall.domain.phases import BETWEEN_GAMES, GAME_PHASES, SESSION_OPEN_PHASES, Phase
from bingo_hall.domain.profiles import RuleProfile, VoidReason

PURCHASE_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"
# Free text the acta prints (notes, reasons, what players said): one line, no control
# character, so that no text can write lines of its own into the acta.
ONE_LINE = r"^[^\x00-\x1f\x7f]*$"
ONE_LINE_OF_TEXT = r"^[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*$"
TextLine = Annotated[str, Field(min_length=1, max_length=2000, pattern=ONE_LINE_OF_TEXT)]


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    name: ClassVar[str]
    legal_in: ClassVar[frozenset[Phase]]


class OpenSession(Command):
    name = "open_session"
    legal_in = frozenset({Phase.SESSION_CLOSED})
    machine_id: str = Field(min_length=1)
    machine_kind: MachineKind
    machine_homologation: str = Field(default="", max_length=100, pattern=ONE_LINE)
    profile: RuleProfile
    call_witness_floor: WitnessFloor | None = None  # from the hall's configuration


class RecordEquipmentCheck(Command):
    name = "record_equipment_check"
    legal_in = frozenset({Phase.EQUIPMENT_CHECK})
    ok: bool
    notes: str = Field(default="", max_length=2000, pattern=ONE_LINE)


class RegisterBallSet(Command):
    name = "register_ball_set"
    legal_in = BETWEEN_GAMES
    ball_set_id: str = Field(min_length=1)
    # Only homologated balls may be used (S79 L1194, spec §4 E5): the set's homologation
    # reference is recorded with it, and a set without one is not registered.
    homologation: str = Field(min_length=1, max_length=100, pattern=r"\S")


class ChangeBallSet(Command):
    name = "change_ball_set"
    legal_in = frozenset({Phase.BALL_LOADING, Phase.SESSION_READY})
    ball_set_id: str = Field(min_length=1)
    reason: str = Field(min_length=1, max_length=500, pattern=ONE_LINE_OF_TEXT)


class ShowBallToCamera(Command):
    """One ball of a set being commissioned put at the exit at the staff's word; the hub
    attaches what the camera read of it."""

    name = "show_ball_to_camera"
    legal_in = BETWEEN_GAMES
    ball_set_id: str = Field(min_length=1)
    number: int = Field(ge=1, le=90)
    camera: CameraCheck


class DiscardBallShowings(Command):
    """The showings so far set aside unjudged, whatever the phase."""

    name = "discard_ball_showings"
    legal_in = frozenset(Phase)


class CommissionBallSet(Command):
    """Every ball of a set shown to the camera at the exit (the hub reads them): the rules
    judge whether the camera may confirm the set's calls. With no showings given, the ones
    shown one by one and kept in the log (`ShowBallToCamera`) are judged. `cross_readings`,
    one for each showing judged and in its order (the hub reads each showing's frame against
    the others'; None: no print found), or none at all."""

    name = "commission_ball_set"
    legal_in = BETWEEN_GAMES
    ball_set_id: str = Field(min_length=1)
    showings: tuple[BallShowing, ...] = ()
    cross_readings: tuple[CrossReading | None, ...] = ()


class LoadBalls(Command):
    name = "load_balls"
    legal_in = frozenset({Phase.BALL_LOADING})


class RegisterSeries(Command):
    name = "register_series"
    legal_in = BETWEEN_GAMES
    series_id: str
    face_value: Decimal
    size: int
    commitment: str = ""


class AnnounceLastGame(Command):
    name = "announce_last_game"
    legal_in = frozenset({Phase.SESSION_READY})


class CloseSession(Command):
    """Closes the session: after its last game, or at ball loading, as a failed equipment
    check closes it, when the balls are not loaded (no set in service, or one past its game
    limit; a fault the players' inspection of the loading found): `note` says why, and is
    required there."""

    name = "close_session"
    legal_in = frozenset({Phase.SESSION_READY, Phase.BALL_LOADING})
    note: str = Field(default="", max_length=500, pattern=ONE_LINE)


class AnnounceSeries(Command):
    """Opens a new game: the series to be sold (G0)."""

    name = "announce_series"
    legal_in = frozenset({Phase.SESSION_READY})
    series: tuple[str, ...] = Field(min_length=1)


class StartSale(Command):
    name = "start_sale"
    legal_in = frozenset({Phase.SERIES_ANNOUNCED})


class RecordSale(Command):
    name = "record_sale"
    legal_in = frozenset({Phase.SELLING})
    series_id: str
    first: int
    last: int
    buyer: str | None = Field(default=None, max_length=100)  # "terminal/player" at a machine
    # A terminal's own name for this purchase: sent again after a lost answer, it finds the
    # sale already recorded instead of buying a second block.
    purchase: str | None = Field(default=None, pattern=PURCHASE_PATTERN)


class CloseSale(Command):
    name = "close_sale"
    legal_in = frozenset({Phase.SELLING})


class AnnouncePrizes(Command):
    name = "announce_prizes"
    legal_in = frozenset({Phase.SALE_CLOSED})
    paying_row: int | None = Field(default=None, ge=0, le=2)


class StartDraw(Command):
    name = "start_draw"
    legal_in = frozenset({Phase.ANNOUNCED})


class DrawBall(Command):
    """A ball is called. With a camera check, the camera must confirm it
    (`domain.call_check`)."""

    name = "draw_ball"
    legal_in = frozenset({Phase.DRAWING})
    number: int
    source: str = "certified_random"
    camera: CameraCheck | None = None


class HoldBall(Command):
    """The camera disagrees with the called ball or is unsure: the game holds, nothing is
    announced, until the Jefe de Mesa confirms or corrects the call."""

    name = "hold_ball"
    legal_in = frozenset({Phase.DRAWING})
    called: int
    source: str = "certified_random"
    camera: CameraCheck


class ResolveHold(Command):
    name = "resolve_hold"
    legal_in = frozenset({Phase.CAMERA_HOLD})
    number: int
    resolved_by: str = Field(min_length=1)


class CallClaim(Command):
    """A player calls «línea» or «bingo»; the hub attaches the master card of the series.

    Also while the camera holds a ball: that ball is not announced, so the call comes before
    the next number is called and is stamped with the last one announced (S77 L2502-2504)."""

    name = "call_claim"
    legal_in = frozenset(
        {Phase.DRAWING, Phase.CAMERA_HOLD, Phase.CLAIM_PAUSED, Phase.ANY_MORE_WINDOW}
    )
    kind: ClaimKind
    series_id: str
    card_number: int
    grid: tuple[tuple[int, ...], ...]


class VerifyClaims(Command):
    name = "verify_claims"
    legal_in = frozenset({Phase.CLAIM_PAUSED, Phase.ANY_MORE_WINDOW})


class GiveOrder(Command):
    """Closes «¿Alguna línea más? ¿Algún bingo más?»: resume (after a line) or finish."""

    name = "give_order"
    legal_in = frozenset({Phase.ANY_MORE_WINDOW})


class VoidGame(Command):
    name = "void_game"
    legal_in = GAME_PHASES  # from the series announcement to the window, before the finish
    reason: VoidReason
    note: TextLine


class PayPrize(Command):
    name = "pay_prize"
    legal_in = SESSION_OPEN_PHASES
    game_id: int
    claim_id: int


class PayRefund(Command):
    """The Cajero refunds a range of a voided game's cards at face value, as the player hands
    them back: «la devolución del importe íntegro de sus cartones y la restitución de éstos a
    la mesa» (S79 L1222). Legal whenever a prize may be paid, in a later session too."""

    name = "pay_refund"
    legal_in = SESSION_OPEN_PHASES
    game_id: int
    series_id: str
    first: int = Field(ge=1)
    last: int = Field(ge=1)


class RecordPlayerRequest(Command):
    """A player's request for information or complaint, as the Jefe de Mesa took it down;
    with its answer when it was answered on the spot: «contestará las peticiones de información
    o reclamaciones y consignará todo ello en el acta» (S77 L2427-2432)."""

    name = "record_player_request"
    legal_in = SESSION_OPEN_PHASES
    kind: PlayerRequestKind
    player: str = Field(default="", max_length=200, pattern=ONE_LINE)  # a name, a seat, a card
    text: TextLine
    answer: TextLine | None = None


class AnswerPlayerRequest(Command):
    """The answer to a request recorded earlier, in this session or an earlier one."""

    name = "answer_player_request"
    legal_in = SESSION_OPEN_PHASES
    request_id: int
    answer: TextLine


COMMAND_TYPES: dict[str, type[Command]] = {
    cls.name: cls
    for cls in (
        OpenSession,
        RecordEquipmentCheck,
        RegisterBallSet,
        ChangeBallSet,
        ShowBallToCamera,
        DiscardBallShowings,
        CommissionBallSet,
        LoadBalls,
        RegisterSeries,
        AnnounceLastGame,
        CloseSession,
        AnnounceSeries,
        StartSale,
        RecordSale,
        CloseSale,
        AnnouncePrizes,
        StartDraw,
        DrawBall,
        HoldBall,
        ResolveHold,
        CallClaim,
        VerifyClaims,
        GiveOrder,
        VoidGame,
        PayPrize,
        PayRefund,
        RecordPlayerRequest,
        AnswerPlayerRequest,
    )
}


def commands_allowed_in(phase: Phase) -> list[str]:
    return [name for name, cls in COMMAND_TYPES.items() if phase in cls.legal_in]
