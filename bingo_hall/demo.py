"""`bingo-hall demo`: a whole session on the embedded default, played by simulated staff and
players, then its acta.

The session has four games: a certified random draw with a false claim; a blower game whose
keyed balls make two cards complete bingo on the same ball (a shared prize, one of them called
during «¿Alguna línea más? ¿Algún bingo más?»); a game voided for an equipment breakdown after
its line was won; and the announced last game. With a camera (the simulated one by default),
every ball is read before it is announced: in the first game a ball comes out obscured and the
Jefe de Mesa confirms it from the frame; in the blower game the caller keys a wrong number, the
camera holds it, and the Jefe de Mesa corrects it to the ball the camera shows. The hall runs
on simulated time (a few seconds per ball), not on the wall clock; the camera reads every ball,
so a demo takes about a minute to a few minutes. Every step is chosen from the hall's state, so
a demo killed at any instant and started again carries on where the log says it was.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from bingo_hall.domain import Phase
from bingo_hall.domain import commands as c
from bingo_hall.domain.cards import Card
from bingo_hall.domain.claims import completion_ordinal
from bingo_hall.domain.profiles import RuleProfile, VoidReason
from bingo_hall.domain.state import Game, HallState
from bingo_hall.draw import CertifiedRandomDraw, KeyedBlower
from bingo_hall.hub.ball_check import BallCheck, call_command
from bingo_hall.hub.commissioning import ALL_BALLS, commission, showing_order
from bingo_hall.hub.service import HallService
from bingo_hall.store.cards import CardStore
from card_generator.series import generate_series

GAMES_PER_SESSION = 4
BLOWER_GAME, VOID_GAME, FALSE_CLAIM_GAME = 2, 3, 1
OBSCURED_BALL = 4  # in the first game: the camera cannot read it, the Jefe de Mesa confirms it
MISKEYED_BALL = 6  # in the blower game: the caller keys a wrong number, the camera sees the ball
SERIES_SIZE = 300
FACE_VALUES = (Decimal("1.50"), Decimal("3.00"))
PLAYERS = 8
BLOCK = 6  # cards a player buys at once


class SimulatedClock:
    """Hall time that moves on only when the demo says so (seconds per step)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Demo:
    service: HallService
    cards: CardStore
    profile: RuleProfile
    machine_id: str
    machine_kind: str
    clock: SimulatedClock
    machine_homologation: str
    trace: Callable[[str], None] = lambda line: None
    ball_check: BallCheck | None = None  # with a simulated camera (`present`) when set
    call_witness_floor: float | None = None  # the hall's, `domain.call_check`
    started: bool = False
    _grids: dict[int, dict[tuple[str, int], Card]] = field(default_factory=dict)

    @property
    def state(self) -> HallState:
        return self.service.state

    def run(self) -> int:
        """Play (or finish) one session; returns its id."""
        self.started = self.state.phase is not Phase.SESSION_CLOSED
        while self.step():
            pass
        return self.state.session_id

    def step(self) -> bool:
        """Take the staff's next action on hall time; False when the session is over."""
        chosen = self.next_step()
        if chosen is None:
            return False
        seconds, actor, command = chosen
        self.clock.advance(seconds)
        for envelope in self.service.execute(command, actor):
            self.trace(f"committed {envelope.seq} {envelope.type}")
        return True

    # --- the staff's next action, from the state alone ------------------------------------

    def next_step(self) -> tuple[float, str, c.Command] | None:
        state = self.state
        phase = state.phase
        if phase is Phase.SESSION_CLOSED:
            if self.started:
                return None
            if self._fit_ball_set() is None:
                return (
                    60,
                    "jefe-de-sala",
                    self._register_ball_set(),
                )
            self.started = True
            return (
                60,
                "jefe-de-sala",
                c.OpenSession(
                    machine_id=self.machine_id,
                    machine_kind=self.machine_kind,
                    machine_homologation=self.machine_homologation,
                    profile=self.profile,
                    call_witness_floor=self.call_witness_floor,
                ),
            )
        if phase is Phase.EQUIPMENT_CHECK:
            return (
                120,
                "jefe-de-mesa",
                c.RecordEquipmentCheck(
                    ok=True,
                    notes="material e instalaciones comprobados a la vista de los jugadores",
                ),
            )
        if phase is Phase.BALL_LOADING:
            return self._load_step()
        if phase is Phase.SESSION_READY:
            return self._between_games()
        game = state.game
        assert game is not None
        if phase is Phase.SERIES_ANNOUNCED:
            return 30, "jefe-de-mesa", c.StartSale()
        if phase is Phase.SELLING:
            return self._sale_step(game)
        if phase is Phase.SALE_CLOSED:
            return 60, "jefe-de-mesa", c.AnnouncePrizes()
        if phase is Phase.ANNOUNCED:
            return 20, "jefe-de-mesa", c.StartDraw()
        if phase is Phase.DRAWING:
            return self._drawing_step(game)
        if phase is Phase.CAMERA_HOLD:
            return self._resolve_hold(game)
        if phase is Phase.CLAIM_PAUSED:
            return 20, "jefe-de-mesa", c.VerifyClaims()
        return self._window_step(game)

    def _fit_ball_set(self) -> str | None:
        limit = (
            self.profile.pneumatic_ball_set_game_limit if self.machine_kind == "pneumatic" else 0
        )
        for ball_set in self.state.ball_sets.values():
            if not ball_set.retired and not (limit and ball_set.games >= limit):
                return ball_set.ball_set_id
        return None

    def _register_ball_set(self) -> c.RegisterBallSet:
        """The hall's next ball set, with its homologation reference."""
        number = len(self.state.ball_sets) + 1
        return c.RegisterBallSet(
            ball_set_id=f"JB-{number:03d}", homologation=f"CNJ-BOLAS-{number:04d}"
        )

    def _load_step(self) -> tuple[float, str, c.Command]:
        fit = self._fit_ball_set()
        if fit is None:
            return 30, "jefe-de-sala", self._register_ball_set()
        if self.state.ball_set_in_service != fit:
            reason = (
                "puesta en servicio" if self.state.ball_set_in_service is None else "sustitución"
            )
            return 60, "jefe-de-sala", c.ChangeBallSet(ball_set_id=fit, reason=reason)
        if self.ball_check is not None and self.state.ball_sets[fit].camera_fit is None:
            return self._commissioning_step(self.ball_check, fit)
        return 120, "jefe-de-mesa", c.LoadBalls()

    def _commissioning_step(
        self, check: BallCheck, ball_set_id: str
    ) -> tuple[float, str, c.Command]:
        """The set shown to the camera ball by ball, each showing kept in the log as it is
        made (a demo stopped half-way shows the next ball), then judged."""
        kept = self.state.showings
        shown = kept.showings if kept is not None and kept.ball_set_id == ball_set_id else ()
        order = showing_order()
        if len(shown) < len(order):
            number = order[len(shown)]
            check.camera.present(number)  # type: ignore[attr-defined]
            camera = check.check(number, ALL_BALLS)
            showing = c.ShowBallToCamera(ball_set_id=ball_set_id, number=number, camera=camera)
            return 5, "jefe-de-mesa", showing
        return 60, "jefe-de-mesa", commission(check, ball_set_id, shown, kept=True)

    def _between_games(self) -> tuple[float, str, c.Command] | None:
        state = self.state
        for award in sorted(state.awards.values(), key=lambda a: (a.game_id, a.claim_id)):
            if award.payable and award.status == "awarded":
                return 30, "cajero", c.PayPrize(game_id=award.game_id, claim_id=award.claim_id)
        for ledger in sorted(state.refunds.values(), key=lambda ledger: ledger.game_id):
            if owed := ledger.owed():  # the players hand a voided game's cards back
                cards = owed[0]
                refund = c.PayRefund(
                    game_id=ledger.game_id,
                    series_id=cards.series_id,
                    first=cards.first,
                    last=cards.last,
                )
                return 45, "cajero", refund
        if state.last_game_played or state.session_games >= GAMES_PER_SESSION:
            return 60, "jefe-de-sala", c.CloseSession()
        if state.session_games == GAMES_PER_SESSION - 1 and not state.last_game_announced:
            return 10, "jefe-de-mesa", c.AnnounceLastGame()
        wanted = self.profile.max_series_per_game or len(FACE_VALUES)
        usable = [s for s in state.series.values() if s.remaining >= PLAYERS * BLOCK * 2]
        if len(usable) < wanted:
            return self._register_series(len(state.series))
        chosen = sorted(usable, key=lambda s: s.series_id)[:wanted]
        return 90, "jefe-de-mesa", c.AnnounceSeries(series=tuple(s.series_id for s in chosen))

    def _register_series(self, index: int) -> tuple[float, str, c.Command]:
        series_id = f"{'ABCDEFGHJKLMNPRSTUVZ'[index % 20]}{index // 20 + 1}"
        face_value = FACE_VALUES[index % len(FACE_VALUES)]
        # a run killed between storing the cards and registering the series left them stored:
        # the series is those cards (new ones would be refused under the same id)
        commitment = self.cards.commitment_of(series_id)
        if commitment is None:
            commitment = self.cards.import_series(
                generate_series(series_id, SERIES_SIZE, face_value)
            )
        return (
            10,
            "jefe-de-sala",
            c.RegisterSeries(
                series_id=series_id, face_value=face_value, size=SERIES_SIZE, commitment=commitment
            ),
        )

    def _sale_step(self, game: Game) -> tuple[float, str, c.Command]:
        for series_id in game.series:
            target = BLOCK * (4 + (game.game_id * 3 + len(series_id)) % PLAYERS)
            sold = sum(s.count for s in game.sales if s.series_id == series_id)
            if sold < target:
                first = self.state.series[series_id].next_number
                vendor = f"vendedor-{1 + sold // BLOCK % 2}"
                return (
                    15,
                    vendor,
                    c.RecordSale(series_id=series_id, first=first, last=first + BLOCK - 1),
                )
        return 30, "jefe-de-mesa", c.CloseSale()

    # --- the draw ------------------------------------------------------------------------

    def _sold_cards(self, game: Game) -> dict[tuple[str, int], Card]:
        if game.game_id not in self._grids:
            cards = {}
            for sale in game.sales:
                for number, grid in self.cards.grids(sale.series_id, sale.first, sale.last).items():
                    cards[(sale.series_id, number)] = Card(grid)
            self._grids = {game.game_id: cards}
        return self._grids[game.game_id]

    def _completed_now(self, game: Game) -> list[tuple[str, str, int]]:
        """Cards whose line or bingo the last ball completed and that are not claimed yet."""
        if not game.calls:
            return []
        ordinal = game.ordinal
        claimed = {(cl.kind, cl.series_id, cl.card_number) for cl in game.claims}
        found = []
        for (series_id, number), card in sorted(self._sold_cards(game).items()):
            kinds = ["bingo"] if game.line_won_at is not None else ["line", "bingo"]
            for kind in kinds:
                parts = [card.numbers] if kind == "bingo" else list(card.rows)
                done = any(completion_ordinal(p, game.calls) == ordinal for p in parts)
                if done and (kind, series_id, number) not in claimed:
                    found.append((kind, series_id, number))
        return found

    def _claim(
        self, game: Game, kind: str, series_id: str, number: int
    ) -> tuple[float, str, c.Command]:
        card = self._sold_cards(game)[(series_id, number)]
        player = f"jugador-{1 + (number - 1) // BLOCK % PLAYERS}"
        return (
            3,
            player,
            c.CallClaim(
                kind=kind,
                series_id=series_id,
                card_number=number,
                grid=card.grid,  # type: ignore[arg-type]
            ),
        )

    def _false_claim(self, game: Game) -> tuple[str, int] | None:
        """A player who thinks a line is complete when it lacks one number."""
        if game.line_won_at is not None or game.ordinal < 8 or game.claims:
            return None
        called = set(game.calls)
        for (series_id, number), card in sorted(self._sold_cards(game).items()):
            if any(len(row - called) == 1 for row in card.rows):
                return series_id, number
        return None

    def _drawing_step(self, game: Game) -> tuple[float, str, c.Command]:
        index = self.state.session_games
        if index == VOID_GAME and game.line_won_at is not None:
            reason = (
                VoidReason.EQUIPMENT_BREAKDOWN
                if VoidReason.EQUIPMENT_BREAKDOWN in self.profile.void_reasons
                else self.profile.void_reasons[0]
            )
            return (
                300,
                "jefe-de-mesa",
                c.VoidGame(
                    reason=reason,
                    note="avería del aparato extractor, irreparable en tiempo prudencial",
                ),
            )
        completed = self._completed_now(game)
        if completed:
            return self._claim(game, *completed[0])
        if index == FALSE_CLAIM_GAME and (false := self._false_claim(game)):
            return self._claim(game, "line", *false)
        if index == BLOWER_GAME:
            number = KeyedBlower(self._blower_sequence(game)).next_ball(game.calls)
            return 4, "vendedor-locutor", self._call(game, number, "blower")
        number = CertifiedRandomDraw().next_ball(game.calls)
        return 4, "vendedor-locutor", self._call(game, number, "certified_random")

    def _call(self, game: Game, ball: int, source: str) -> c.Command:
        """The call of the ball at the exit, checked by the camera when the hall has one."""
        if self.ball_check is None:
            return c.DrawBall(number=ball, source=source)
        ordinal, index = game.ordinal + 1, self.state.session_games
        camera = self.ball_check.camera
        obscured = index == FALSE_CLAIM_GAME and ordinal == OBSCURED_BALL
        camera.present(ball, conditions="obscured" if obscured else "normal")  # type: ignore[attr-defined]
        called = ball
        if index == BLOWER_GAME and ordinal == MISKEYED_BALL:
            called = next(n for n in range(90, 0, -1) if n != ball and n not in game.calls)
        remaining = [n for n in range(1, 91) if n not in game.calls]
        check = self.ball_check.check(called, remaining, self.state.camera_references)
        return call_command(called, source, check, self.state)

    def _resolve_hold(self, game: Game) -> tuple[float, str, c.Command]:
        """The Jefe de Mesa looks at the frame: the ball at the exit is the one to call."""
        held = game.held
        assert held is not None
        ball = held.called
        if self.state.session_games == BLOWER_GAME:
            ball = KeyedBlower(self._blower_sequence(game)).next_ball(game.calls)
        return 15, "jefe-de-mesa", c.ResolveHold(number=ball, resolved_by="jefe-de-mesa")

    def _blower_sequence(self, game: Game) -> list[int]:
        """Balls keyed in so that two sold cards complete bingo on the same ball."""
        rng = random.Random(f"blower-{game.game_id}")
        cards = sorted(self._sold_cards(game).items())
        rng.shuffle(cards)
        (_, first), (_, second) = next(
            (a, b)
            for i, a in enumerate(cards)
            for b in cards[i + 1 :]
            if a[1].numbers & b[1].numbers
        )
        last = min(first.numbers & second.numbers)
        before = sorted((first.numbers | second.numbers) - {last})
        after = sorted(set(range(1, 91)) - first.numbers - second.numbers)
        rng.shuffle(before)
        rng.shuffle(after)
        return [*before, last, *after]

    def _window_step(self, game: Game) -> tuple[float, str, c.Command]:
        if any(claim.status == "pending" for claim in game.claims):
            return 20, "jefe-de-mesa", c.VerifyClaims()
        completed = self._completed_now(game)
        if completed:
            return self._claim(game, *completed[0])
        wait = float(self.profile.min_any_more_window_seconds) + 1
        return wait, "jefe-de-mesa", c.GiveOrder()


def print_trace(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
