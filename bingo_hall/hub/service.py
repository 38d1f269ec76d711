"""HallService: decide, append durably, then apply and tell.

The order is the contract of principle 2: the events of a command are committed to the log
(one transaction, with their projections) before the in-memory state changes and before any
listener hears of them. A command the rules reject raises RuleError and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from bingo_hall.domain import HallState, decide, evolve
from bingo_hall.domain.commands import Command
from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.events import Event, SessionClosed, event_from_payload
from bingo_hall.domain.phases import Phase
from bingo_hall.store.database import STORE_FAILURES
from bingo_hall.store.eventlog import ConcurrentAppend, EventEnvelope, EventLog, NewEvent

Listener = Callable[[EventEnvelope], None]

CATCH_UP_ATTEMPTS = 3  # tries of a command whose append another writer overtook


def utc_now() -> datetime:
    return datetime.now(UTC)


def decided_again(
    run: Callable[[], list[EventEnvelope]], catch_up: Callable[[], list[EventEnvelope]]
) -> list[EventEnvelope]:
    """`run` a command; if another writer appended first (the append refused, or the rules
    refusing on the state before its events), `catch_up` and run it again, a few times at
    most. A refusal with nothing to catch up with stands."""
    for _ in range(CATCH_UP_ATTEMPTS - 1):
        try:
            return run()
        except ConcurrentAppend:
            catch_up()
        except RuleError:
            try:
                caught = catch_up()
            except STORE_FAILURES:  # the refusal stands on what was known: say why it was refused
                caught = []
            if not caught:
                raise
    return run()


def rebuild_state(log: EventLog, hall_id: str) -> tuple[HallState, int]:
    """The hall's state by replaying its whole log, and the last seq applied."""
    state, seq = HallState(), 0
    for envelope in log.iter_all(hall_id):
        state = evolve(state, event_from_payload(envelope.type, envelope.payload), envelope.time)
        seq = envelope.seq
    return state, seq


def _ids(before: HallState, after: HallState, event: Event) -> tuple[int | None, int | None]:
    """The session and game an event belongs to, for its envelope."""
    in_session = after.phase is not Phase.SESSION_CLOSED or isinstance(event, SessionClosed)
    session_id = after.session_id if in_session else None
    own = getattr(event, "game_id", None)  # a payment names the game it pays, whatever runs now
    if own is not None:
        return session_id, own
    game = after.game or before.game
    return session_id, game.game_id if game else None


class HallService:
    """One hall's rules engine in front of its event log.

    Every append states the seq this service last saw, so a command is never decided on a
    stale state. Another process may write to the hall between the hub's commands (a series
    imported at the console while the hub runs): the hub's next append is then refused
    (ConcurrentAppend), and the service catches up from the log, telling its listeners of
    those events in order, and decides the command again on the state the log now gives.
    """

    def __init__(
        self, log: EventLog, hall_id: str, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.log = log
        self.hall_id = hall_id
        self.clock = clock
        self.state, self.seq = rebuild_state(log, hall_id)
        self._listeners: list[Listener] = []

    def catch_up(self) -> list[EventEnvelope]:
        """Apply, and tell the listeners of, every event another writer appended after this
        service's last seq, in order."""
        caught = []
        for envelope in self.log.iter_all(self.hall_id, after_seq=self.seq):
            event = event_from_payload(envelope.type, envelope.payload)
            self.state = evolve(self.state, event, envelope.time)
            self.seq = envelope.seq
            caught.append(envelope)
            for listener in self._listeners:
                listener(envelope)
        return caught

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def execute(self, command: Command, actor: str = "system") -> list[EventEnvelope]:
        """Run one command: its events are durable when this returns (`decided_again`)."""
        return decided_again(lambda: self._execute(command, actor), self.catch_up)

    def _execute(self, command: Command, actor: str) -> list[EventEnvelope]:
        now = self.clock()
        events = decide(self.state, command, now)
        state, records = self.state, []
        for event in events:
            after = evolve(state, event, now)
            session_id, game_id = _ids(state, after, event)
            records.append(NewEvent(session_id, game_id, event.type, event.payload(), now, actor))
            state = after
        envelopes = self.log.append(self.hall_id, records, expected_seq=self.seq)
        self.state, self.seq = state, envelopes[-1].seq
        for envelope in envelopes:
            for listener in self._listeners:
                listener(envelope)
        return envelopes
