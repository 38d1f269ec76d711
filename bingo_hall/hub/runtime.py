"""The hub on asyncio: authorised commands in, durable events out to the fan-out.

Commands run one at a time (an asyncio lock) and their database work in a worker thread, so a
commit never blocks the event loop that serves the clients. The shell fills in what the rules
take from outside: the configured rule profile and machine when a session opens, a ball from
the certified random draw, the master card of a claim.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bingo_hall.config import HallConfig
from bingo_hall.domain import RuleError
from bingo_hall.domain.commands import (
    COMMAND_TYPES,
    PURCHASE_PATTERN,
    AnnounceSeries,
    Command,
    CommissionBallSet,
    DiscardBallShowings,
    DrawBall,
    RecordSale,
    ShowBallToCamera,
)
from bingo_hall.domain.commissioning import require_commissionable, require_showable
from bingo_hall.domain.phases import Phase
from bingo_hall.domain.profiles import RuleProfile
from bingo_hall.domain.refusals import Param, Term, english
from bingo_hall.domain.state import Game, Holding, ShowingsInProgress
from bingo_hall.draw import CertifiedRandomDraw
from bingo_hall.hub.auth import (
    BALL_SHOWINGS,
    BUY_CARDS,
    DISCARD_BALL_SHOWINGS,
    KNOWN_COMMANDS,
    MY_CARDS,
    SHOW_BALL_TO_CAMERA,
    SHOWING_COMMANDS,
    Denied,
    Principal,
    authorise,
)
from bingo_hall.hub.ball_check import BallCheck, call_command
from bingo_hall.hub.commissioning import (
    ALL_BALLS,
    SHOWINGS_PER_BALL,
    commission,
    showings_json,
    simulated_commissioning,
)
from bingo_hall.hub.service import HallService, utc_now
from bingo_hall.store.cards import CardStore
from bingo_hall.store.database import STORE_FAILURES
from bingo_hall.store.eventlog import EventEnvelope
from bingo_hall.transport.fanout import Fanout

logger = logging.getLogger(__name__)


FOLLOW_SECONDS = 1.0  # how often the hub looks for events another process appended
REFERENCE_EVENTS = frozenset({"ball_set_commissioned", "ball_set_changed"})


def store_failure(error: Exception, reading: bool = False) -> str:
    """What a person is told when the store fails under a command (or a read): the database
    driver's own words (its first line, never the SQL and its parameters), and what to do."""
    logger.error("the store failed %s: %s", "a read" if reading else "a command", error)
    reason = str(getattr(error, "orig", None) or error).strip()
    reason = reason.splitlines()[0] if reason else type(error).__name__
    if reading:
        return f"the hall's store failed while reading ({reason}): try again"
    return (
        f"the hall's store failed while recording the command ({reason}): look at the hall's "
        "state before giving it again"
    )


@dataclass(frozen=True)
class CommandFailed(Exception):
    """A command refused, with a code for machines and a message for people; a refusal of
    the catalogue (`domain/refusals.py`) also with its reason and parameters, by which the
    pages say it in their language."""

    code: str
    message: str
    reason: str | None = None
    params: Mapping[str, Param] = field(default_factory=dict, hash=False)

    @classmethod
    def of(cls, code: str, reason: str, /, **params: Param) -> CommandFailed:
        """The refusal `reason` of the catalogue, under `code`."""
        return cls(code, english(reason, params), reason, params)

    @classmethod
    def refused(cls, error: RuleError, code: str | None = None) -> CommandFailed:
        """A refusal of the rules, as it is or under another code."""
        return cls(code or error.code, error.message, error.reason, error.params)


def invalid_args(command: str, error: ValidationError) -> CommandFailed:
    """A command's malformed argument, as the pages say it: the field and its fault (a term
    of the `invalid` family, with the bound it breaks)."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "args"
    message = first["msg"].removeprefix("Value error, ")
    bounds = tuple((k, str(v)) for k, v in first.get("ctx", {}).items() if k in BOUNDS)
    return CommandFailed.of(
        "invalid_args",
        "invalid_args",
        command=Term("command", command),
        field=where,
        problem=Term("invalid", first["type"], message, bounds),
    )


Admitted = Callable[[], bool]  # whether the sender's connection may still give commands


def always_admitted() -> bool:
    return True


def check_admitted(admitted: Admitted) -> None:
    """Commands wait their turn; one whose sender lost the hub meanwhile (a user disabled, a
    device revoked, a terminal opened on another screen) does nothing when its turn comes."""
    if not admitted():
        raise CommandFailed.of("connection_closing", "connection_closing")


class HubRuntime:
    def __init__(
        self,
        service: HallService,
        cards: CardStore,
        config: HallConfig,
        profile: RuleProfile,
        display_delay: float = 0.0,
        ball_check: BallCheck | None = None,
    ) -> None:
        self.service = service
        self.cards = cards
        self.config = config
        self.profile = profile
        self.draw = CertifiedRandomDraw()
        self.ball_check = ball_check
        self.fanout = Fanout(service.log, service.hall_id, display_delay)
        self.display_delay = display_delay
        self._last_ball: tuple[int, float] | None = None  # (number, time.monotonic() told)
        self._lock = asyncio.Lock()
        self.references_ready: asyncio.Task | None = None  # the set's references being made

    @property
    def showings(self) -> ShowingsInProgress | None:
        """The balls of a set shown so far to the camera (facts of the log), until judged."""
        return self.service.state.showings

    def attach(self) -> None:
        """Route committed events to the fan-out, on the running loop, in order."""
        loop = asyncio.get_running_loop()
        self.service.subscribe(
            lambda envelope: loop.call_soon_threadsafe(self.fanout.publish, envelope)
        )
        self.service.subscribe(self._note_ball)
        self._note_last_ball_before_start()
        self._prepare_references()

    def _note_last_ball_before_start(self) -> None:
        """A hub started again just after a ball (within the display delay) still holds the next
        draw until the panels show it: they time it from the ball's record in the log."""
        seq = self.service.seq
        last = self.service.log.read(self.service.hall_id, after_seq=seq - 1) if seq else []
        if last and last[0].type == "ball_drawn":
            elapsed = max(0.0, (utc_now() - last[0].time).total_seconds())
            self._last_ball = (last[0].payload["number"], time.monotonic() - elapsed)

    def _note_ball(self, envelope: EventEnvelope) -> None:
        if envelope.type == "ball_drawn":
            self._last_ball = (envelope.payload["number"], time.monotonic())

    def _unshown_ball(self, calls: Sequence[int]) -> int | None:
        """The last ball called, while the panels do not show it yet (the display delay has not
        passed since it was announced); None once they do."""
        last = self._last_ball
        if (
            calls
            and last
            and calls[-1] == last[0]
            and time.monotonic() < last[1] + self.display_delay
        ):
            return last[0]
        return None

    def _shown_calls(self, game: Game) -> tuple[int, ...]:
        """The balls the panels show now. A terminal marks its cards, and takes claims, with
        these: it must not tell its player a ball before the hall's panels do."""
        calls = tuple(game.calls)
        return calls[:-1] if self._unshown_ball(calls) is not None else calls

    def _prepare_references(self) -> None:
        """Make the references of the set in service from its kept frames now, in a worker
        thread, rather than while the first ball of its next game waits."""
        kept = self.service.state.camera_references
        if self.ball_check is not None and kept:
            self.references_ready = asyncio.create_task(
                asyncio.to_thread(self.ball_check.references, kept)
            )

    async def follow_log(self, every: float = FOLLOW_SECONDS) -> None:
        """Between commands, catch up with the events another process appended to the hall
        (a series imported at the console), so that panels, terminals and MQTT hear of them
        at once rather than at the hub's next command. Runs until cancelled."""
        hall = self.service.hall_id
        while True:
            await asyncio.sleep(every)
            try:
                async with self._lock:
                    head, _ = await asyncio.to_thread(self.service.log.head, hall)
                    if head <= self.service.seq:
                        continue
                    caught = await asyncio.to_thread(self.service.catch_up)
            except Exception:
                logger.exception("could not catch up with the hall's log")
                continue
            logger.info("caught up with %d events another writer appended", len(caught))
            if any(envelope.type in REFERENCE_EVENTS for envelope in caught):
                self._prepare_references()

    async def execute(
        self,
        principal: Principal,
        name: str,
        args: dict[str, Any],
        admitted: Admitted = always_admitted,
    ) -> dict:
        """Run one command for a principal; its events are durable when this returns. A store
        that fails under it (a full disk, a database gone) answers `store_failed`; a sender no
        longer `admitted` when the command's turn comes, `connection_closing`."""
        try:
            return await self._execute(principal, name, args, admitted)
        except STORE_FAILURES as error:
            raise CommandFailed("store_failed", store_failure(error)) from None

    async def _execute(
        self, principal: Principal, name: str, args: dict[str, Any], admitted: Admitted
    ) -> dict:
        if name not in KNOWN_COMMANDS:
            raise CommandFailed.of("unknown_command", "unknown_command", command=repr(name))
        try:
            authorise(principal, name)
        except Denied as denied:
            raise CommandFailed.of("forbidden", denied.refusal, **denied.params) from None
        _no_hub_filled_args(name, args)
        _only_known_args(name, args)
        if name == MY_CARDS:
            return await asyncio.to_thread(self._my_cards, principal)
        async with self._lock:
            check_admitted(admitted)
            if name in SHOWING_COMMANDS:
                return await self._showings(principal, name, args)
            if name == BUY_CARDS:
                repeated = self._repeated_purchase(principal, args)
                if repeated is not None:
                    return repeated
                command = self._purchase(principal, args)
            elif name == "draw_ball":
                command = await self._draw(args)
            elif name == "commission_ball_set":
                command = await self._commission(args)
            elif name == "resolve_hold":
                command = self._build(name, {**args, "resolved_by": principal.id})
            else:
                command = self._build(name, args)
                if name == "call_claim" and principal.kind == "device":
                    self._check_owner(principal, command)
                    self._check_complete(command)
                if isinstance(command, AnnounceSeries):
                    await asyncio.to_thread(self._check_distinct_cards, command.series)
            envelopes = await self._run(command, principal)
        if name in ("commission_ball_set", "change_ball_set"):
            self._prepare_references()
        if name == BUY_CARDS:
            assert isinstance(command, RecordSale) and command.buyer is not None
            bought = Holding(
                command.buyer, command.series_id, command.first, command.last, command.purchase
            )
            return _purchase_answer(bought, envelopes[0].game_id, envelopes)
        return {"events": _listed(envelopes)}

    async def _run(self, command: Command, principal: Principal) -> list[EventEnvelope]:
        """The command decided and its events appended, in a worker thread."""
        try:
            return await asyncio.to_thread(self.service.execute, command, principal.id)
        except RuleError as error:
            raise CommandFailed.refused(error) from None

    def _build(self, name: str, args: dict[str, Any]) -> Command:
        command_type = COMMAND_TYPES.get(name)
        if command_type is None:
            raise CommandFailed.of("unknown_command", "unknown_command", command=repr(name))
        args = dict(args)
        if name == "open_session":
            args |= {
                "machine_id": self.config.machine.id,
                "machine_kind": self.config.machine.kind,
                "machine_homologation": self.config.machine.homologation,
                "profile": self.profile,
                "call_witness_floor": self.config.camera.call_witness_floor,
            }
        elif name == "call_claim":
            args["grid"] = self._master_card(args)
        try:
            return command_type.model_validate(args)
        except ValidationError as error:
            raise invalid_args(name, error) from None

    async def _draw(self, args: dict[str, Any]) -> Command:
        """The next ball: from the certified random draw, or as the caller keyed it from the
        blower; then checked by the camera, and held if the camera does not agree."""
        args = {**args, "source": self.config.machine.draw}  # the acta says where each came from
        state = self.service.state
        calls = state.game.calls if state.game else ()
        unshown = self._unshown_ball(calls) if state.phase is Phase.DRAWING else None
        if unshown is not None:  # each ball announced, then shown, then the next (§5 G4)
            raise CommandFailed.of("rule_error", "ball_not_shown_yet", ball=unshown)
        if self.config.machine.draw == "certified_random":
            if "number" in args:
                raise CommandFailed.of("invalid_args", "random_draw_takes_no_number")
            if state.phase is Phase.DRAWING:
                args["number"] = self.draw.next_ball(calls)
            else:
                args["number"] = 0  # refused by the rules for its phase, with the legal commands
        command = self._build("draw_ball", args)
        assert isinstance(command, DrawBall)
        if (
            self.ball_check is None
            or state.phase is not Phase.DRAWING
            or not 1 <= command.number <= 90
            or command.number in calls
        ):
            return command  # the rules refuse it with the reason, or there is no camera
        remaining = [ball for ball in range(1, 91) if ball not in calls]
        check = await asyncio.to_thread(
            self.ball_check.check, command.number, remaining, state.camera_references
        )
        return call_command(command.number, command.source, check, state)

    async def _commission(self, args: dict[str, Any]) -> Command:
        """The balls the staff showed the camera (`show_ball_to_camera`) judged; with a
        simulated camera and none shown, the hub shows it every ball itself."""
        ball_set_id = self._commissionable(args.get("ball_set_id"), "commission_ball_set")
        if self.showings is not None and self.showings.ball_set_id == ball_set_id:
            if "showings_per_ball" in args:
                raise CommandFailed.of(
                    "invalid_args", "showings_per_ball_simulated", ball_set=ball_set_id
                )
            return await asyncio.to_thread(
                commission, self.ball_check, ball_set_id, self.showings.showings, kept=True
            )
        times = args.get("showings_per_ball", SHOWINGS_PER_BALL)
        if not isinstance(times, int) or isinstance(times, bool):
            raise CommandFailed.of("invalid_args", "showings_per_ball_whole")
        try:
            return await asyncio.to_thread(
                simulated_commissioning, self.ball_check, ball_set_id, times
            )
        except RuleError as error:
            raise CommandFailed.refused(error, "invalid_args") from None

    def _commissionable(self, ball_set_id: object, name: str) -> str:
        """The set may be shown to the camera now: there is a camera, no game has begun (the
        camera is not taken from a game), the set is registered and not retired."""
        if self.ball_check is None:
            raise CommandFailed.of("invalid_args", "no_camera")
        phase = self.service.state.phase
        if phase not in CommissionBallSet.legal_in:
            raise CommandFailed.of(
                "wrong_phase", "commissioned_between_games", phase=Term("phase", phase.value)
            )
        if not isinstance(ball_set_id, str) or ball_set_id not in self.service.state.ball_sets:
            raise CommandFailed.of(
                "invalid_args",
                "no_such_ball_set",
                command=Term("command", name),
                ball_set=repr(ball_set_id),
            )
        try:
            require_commissionable(self.service.state, ball_set_id)
        except RuleError as error:
            raise CommandFailed.refused(error) from None
        return ball_set_id

    async def _showings(self, principal: Principal, name: str, args: dict[str, Any]) -> dict:
        """The commissioning of a set under the hall's real camera: the showings so far, a
        ball shown at the staff's word, or the showings set aside unjudged."""
        if name == BALL_SHOWINGS:
            return {"showings": showings_json(self.showings)}
        if name == DISCARD_BALL_SHOWINGS:
            if self.showings is None:
                return {"discarded": 0}
            discarded = len(self.showings.showings)
            envelopes = await self._run(DiscardBallShowings(), principal)
            return {"discarded": discarded, "events": _listed(envelopes)}
        envelopes = await self._run(await self._show(name, args), principal)
        kept = self.showings
        assert kept is not None  # the showing just appended
        return {
            "shown": kept.showings[-1].model_dump(mode="json"),
            "showings": showings_json(kept),
            "events": _listed(envelopes),
        }

    async def _show(self, name: str, args: dict[str, Any]) -> ShowBallToCamera:
        """A ball of a set shown to the camera at the staff's word: checked before the camera
        is used, then read with every ball a candidate."""
        ball_set_id = self._commissionable(args.get("ball_set_id"), name)
        number = args.get("number")
        if isinstance(number, bool) or not isinstance(number, int) or number not in ALL_BALLS:
            raise CommandFailed.of("invalid_args", "not_a_ball", command=Term("command", name))
        try:
            require_showable(self.service.state, ball_set_id, number)
        except RuleError as error:
            raise CommandFailed.refused(error, "invalid_args") from None
        check = self.ball_check
        assert check is not None  # _commissionable
        reading = await asyncio.to_thread(check.check, number, ALL_BALLS)
        return ShowBallToCamera(ball_set_id=ball_set_id, number=number, camera=reading)

    def _repeated_purchase(self, principal: Principal, args: dict[str, Any]) -> dict | None:
        """The answer to a purchase sent again under the name the terminal gave it (its answer
        was lost with the connection): the block it bought then, and no second block."""
        purchase = args.get("purchase")
        if not isinstance(purchase, str):
            return None
        state = self.service.state
        # the game on sale, or the one that ended since (the answer lost, then the bingo)
        for game in (state.game, state.ended_game):
            holding = game.purchase_of(principal.id, purchase) if game else None
            if game is None or holding is None:
                continue
            if (holding.player, holding.series_id) != (args.get("player"), args.get("series_id")):
                raise CommandFailed.of(
                    "invalid_args",
                    "purchase_name_taken",
                    purchase=purchase,
                    series=holding.series_id,
                    player=holding.player,
                )
            return _purchase_answer(holding, game.game_id, envelopes=[])
        return None

    def _purchase(self, principal: Principal, args: dict[str, Any]) -> Command:
        """A terminal's purchase: the next whole block of a series on sale, for its player."""
        player, series_id = args.get("player"), args.get("series_id")
        if not isinstance(player, str) or not 1 <= len(player) <= 32 or "/" in player:
            raise CommandFailed.of("invalid_args", "player_name")
        series = self.service.state.series.get(series_id) if isinstance(series_id, str) else None
        if series is None:
            raise CommandFailed.of("invalid_args", "no_series_here", series=repr(series_id))
        game, on_sale = args.get("game"), self.service.state.game
        wrong_game = on_sale is None or isinstance(game, bool) or game != on_sale.game_id
        if "game" in args and wrong_game:
            if on_sale is None:
                raise CommandFailed.of("invalid_args", "no_game_on_sale", game=repr(game))
            raise CommandFailed.of(
                "invalid_args", "not_the_game_on_sale", game=repr(game), on_sale=on_sale.game_id
            )
        purchase = args.get("purchase")
        if purchase is not None and not (
            isinstance(purchase, str) and re.fullmatch(PURCHASE_PATTERN, purchase)
        ):
            raise CommandFailed.of("invalid_args", "purchase_form")
        block = self.profile.terminal_block_size
        return self._build(
            "record_sale",
            {
                "series_id": series_id,
                "first": series.next_number,
                "last": series.next_number + block - 1,
                "buyer": f"{principal.id}/{player}",
                "purchase": purchase,
            },
        )

    def _check_owner(self, principal: Principal, command: Command) -> None:
        """A terminal claims only with cards it bought in this game."""
        game = self.service.state.game
        buyer = game.buyer_of(command.series_id, command.card_number) if game else None  # type: ignore[attr-defined]
        if buyer is None or not buyer.startswith(f"{principal.id}/"):
            raise CommandFailed.of(
                "forbidden",
                "card_not_bought_here",
                terminal=principal.id,
                series=command.series_id,  # type: ignore[attr-defined]
                card=command.card_number,  # type: ignore[attr-defined]
            )

    def _check_complete(self, command: Command) -> None:
        """A terminal marks its cards itself: it claims only a line or a bingo its card holds
        with the numbers announced (any row for a line, so no claim that could be good is
        refused; the verification judges it as any other). A claim it cannot hold would stop
        the draw for nothing, and a terminal could do so for every card after every ball."""
        game = self.service.state.game
        grid = command.grid  # type: ignore[attr-defined]
        marking = _marking(grid, self._shown_calls(game)) if game else None
        needs = None if marking is None else marking[f"{command.kind}_needs"]  # type: ignore[attr-defined]
        if needs:
            raise CommandFailed.of(
                "not_complete",
                "claim_not_complete",
                series=command.series_id,  # type: ignore[attr-defined]
                card=command.card_number,  # type: ignore[attr-defined]
                kind=Term("claim.kind", command.kind),  # type: ignore[attr-defined]
                needs=needs,
            )

    def _my_cards(self, principal: Principal) -> dict:
        """The terminal's cards in the current game (or, until another begins, in the one that
        ended: a terminal reloaded after the bingo still shows the player's cards and prize),
        with their grids, and how many."""
        state = self.service.state
        game = state.game or state.ended_game
        shown = self._shown_calls(game) if game else ()
        cards = []
        for holding in game.holdings if game else ():
            if holding.terminal == principal.id:
                grids = self.cards.grids(holding.series_id, holding.first, holding.last)
                cards += [
                    {
                        "series": holding.series_id,
                        "number": n,
                        "player": holding.player,
                        **_marking(grids[n], shown),
                    }
                    for n in range(holding.first, holding.last + 1)
                ]
        return {"game": game.game_id if game else None, "count": len(cards), "cards": cards}

    def _check_distinct_cards(self, series: Sequence[str]) -> None:
        """No card of the game's series is printed twice: one combination would win twice
        over (spec §2.1, a data-integrity alarm), so the game is not opened on them."""
        repeated = self.cards.repeated_cards(series)
        if repeated:
            listed = "; ".join(" = ".join(places) for places in repeated)
            logger.error("the same card printed more than once in series %s: %s", series, listed)
            raise CommandFailed.of("duplicate_cards", "duplicate_cards", cards=listed)

    def _master_card(self, args: dict[str, Any]):
        series_id, number = args.get("series_id"), args.get("card_number")
        if (
            not isinstance(series_id, str)
            or isinstance(number, bool)
            or not isinstance(number, int)
            or not 1 <= number < 2**31
        ):
            raise CommandFailed.of("invalid_args", "claim_needs_card")
        grid = self.cards.grid(series_id, number)
        if grid is None:
            raise CommandFailed.of(
                "unknown_card", "unknown_master_card", series=series_id, card=number
            )
        return grid


BOUNDS = frozenset({"gt", "ge", "lt", "le", "min_length", "max_length"})
"""The bounds a malformed datum broke, which the pages' words for its fault name."""


# The arguments of the hub's own commands (the rules engine's commands check theirs).
HUB_COMMAND_ARGS: dict[str, frozenset[str]] = {
    MY_CARDS: frozenset(),
    BUY_CARDS: frozenset({"player", "series_id", "purchase", "game"}),
    BALL_SHOWINGS: frozenset(),
    DISCARD_BALL_SHOWINGS: frozenset(),
    SHOW_BALL_TO_CAMERA: frozenset({"ball_set_id", "number"}),
}


CONFIG = "from the hall's configuration"
HUB_FILLED_ARGS: dict[str, dict[str, str]] = {
    "open_session": {
        "machine_id": CONFIG,
        "machine_kind": CONFIG,
        "machine_homologation": CONFIG,
        "profile": "the hall's rule profile, " + CONFIG,
        "call_witness_floor": CONFIG,
    },
    "call_claim": {"grid": "the master card, from the hall's store"},
    "draw_ball": {
        "source": CONFIG + " (machine.draw)",
        "camera": "the hub's camera check of the ball",
    },
    "resolve_hold": {"resolved_by": "who sends it"},
    "commission_ball_set": {
        "showings": "the hub's readings of the balls shown",
        "cross_readings": "the hub's readings of the balls shown",
    },
    "record_sale": {
        "buyer": "only a terminal's purchase (buy_cards) names one",
        "purchase": "only a terminal's purchase (buy_cards) names one",
    },
    "show_ball_to_camera": {"camera": "the hub's reading of the ball at the exit"},
}
"""The arguments of a command's model that the hub fills in itself and refuses from a client
(docs/protocol.md lists the rest as the command's `args`)."""


def _no_hub_filled_args(name: str, args: dict[str, Any]) -> None:
    """A client may not send what the hub fills in itself (HUB_FILLED_ARGS)."""
    for argument, why in HUB_FILLED_ARGS.get(name, {}).items():
        if argument in args:
            raise CommandFailed.of(
                "invalid_args",
                "filled_by_hub",
                command=Term("command", name),
                field=argument,
                why=why,
            )


def _only_known_args(name: str, args: dict[str, Any]) -> None:
    """A hub command refuses an argument it does not take: a misspelt one must not be run as
    if it had not been given (buy_cards with a `first` still buys the next whole block)."""
    unknown = set(args) - HUB_COMMAND_ARGS.get(name, frozenset(args))
    if unknown:
        raise CommandFailed.of(
            "invalid_args",
            "unknown_argument",
            command=Term("command", name),
            field=repr(min(unknown)),
        )


def _marking(grid: tuple[tuple[int, ...], ...], calls: Sequence[int]) -> dict[str, Any]:
    """A card as a terminal shows it: marked automatically with the balls shown so far, and
    what it still needs for a line (the closest row) and for bingo."""
    called = set(calls)
    rows = [{n for n in row if n} for row in grid]
    return {
        "grid": [list(row) for row in grid],
        "marked": sorted(n for row in rows for n in row if n in called),
        "line_needs": min(len(row - called) for row in rows),
        "bingo_needs": sum(len(row - called) for row in rows),
    }


def _purchase_answer(
    holding: Holding, game: int | None, envelopes: list[EventEnvelope]
) -> dict[str, Any]:
    """`buy_cards`'s answer: the block bought, and whether it was bought before (`repeated`,
    no events: the purchase sent again under its name)."""
    sale = {"series_id": holding.series_id, "first": holding.first, "last": holding.last}
    return {
        "events": _listed(envelopes),
        "sale": {**sale, "player": holding.player, "game": game},
        "repeated": not envelopes,
    }


def _listed(envelopes: list[EventEnvelope]) -> list[dict[str, Any]]:
    return [{"seq": envelope.seq, "type": envelope.type} for envelope in envelopes]
