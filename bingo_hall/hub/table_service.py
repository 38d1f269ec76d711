"""TableService: one casino table's rules engine in front of its stream of the event log.

The same contract as HallService (principle 2): decide, append the events to the table's own
stream (`<hall>/tables/<table>`: its own seq and hash chain, in the hall's log) in one
transaction, and only then change the in-memory state and tell the listeners. A rejected
command raises RuleError and writes nothing, but for a refusal the rules keep on the record
(`RefusalOnRecord`), whose events are appended before it is raised. On start the state is
rebuilt by replaying the stream, so a restarted hub resumes each table where its log says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bingo_hall.domain.errors import RefusalOnRecord
from bingo_hall.hub.service import Listener, decided_again, utc_now
from bingo_hall.hub.streams import table_stream
from bingo_hall.store.eventlog import EventEnvelope, EventLog, NewEvent
from bingo_hall.tables import events as e
from bingo_hall.tables.commands import TableCommand
from bingo_hall.tables.decide import decide
from bingo_hall.tables.evolve import evolve
from bingo_hall.tables.phases import TablePhase
from bingo_hall.tables.state import TableState

RECENT_OUTCOMES = 20


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """A table after the events up to `seq`: its state and the outcomes of the session's
    latest coups (oldest first), which a monitor shows. One immutable value, so that a reader
    in another thread never sees a state with the seq of another."""

    seq: int = 0
    state: TableState = field(default_factory=TableState)
    recent: tuple[str, ...] = ()

    def after(self, seq: int, event: e.TableEvent) -> TableSnapshot:
        recent = self.recent
        if isinstance(event, e.TableOpened):
            recent = ()
        elif isinstance(event, e.OutcomeRecorded):
            recent = (*recent, event.outcome)[-RECENT_OUTCOMES:]
        return TableSnapshot(seq, evolve(self.state, event), recent)


def rebuild_table(log: EventLog, stream: str) -> TableSnapshot:
    """A table's snapshot by replaying its whole stream."""
    snapshot = TableSnapshot()
    for envelope in log.iter_all(stream):
        event = e.event_from_payload(envelope.type, envelope.payload)
        snapshot = snapshot.after(envelope.seq, event)
    return snapshot


def _ids(before: TableState, event: e.TableEvent) -> tuple[int | None, int | None]:
    """The envelope's session (the table's session) and game (the coup) of an event."""
    if isinstance(event, e.TableOpened | e.TableClosed):
        return event.session_id, None
    session = before.session_id if before.phase is not TablePhase.CLOSED else None
    return session, getattr(event, "coup", None)


class TableService:
    """One table's writer. Every append states the seq this service last saw: if another
    writer appended first (ConcurrentAppend), the service catches up from the log and decides
    the command again, as `HallService` does."""

    def __init__(
        self,
        log: EventLog,
        hall_id: str,
        table_id: str,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.log = log
        self.hall_id = hall_id
        self.table_id = table_id
        self.stream = table_stream(hall_id, table_id)
        self.clock = clock
        self.snapshot = rebuild_table(log, self.stream)
        self._listeners: list[Listener] = []

    @property
    def state(self) -> TableState:
        return self.snapshot.state

    @property
    def seq(self) -> int:
        return self.snapshot.seq

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def catch_up(self) -> list[EventEnvelope]:
        """Apply, and tell the listeners of, every event another writer appended after this
        service's last seq, in order."""
        caught = []
        for envelope in self.log.iter_all(self.stream, after_seq=self.seq):
            event = e.event_from_payload(envelope.type, envelope.payload)
            self.snapshot = self.snapshot.after(envelope.seq, event)
            caught.append(envelope)
            for listener in self._listeners:
                listener(envelope)
        return caught

    def execute(self, command: TableCommand, actor: str = "system") -> list[EventEnvelope]:
        """Run one command: its events are durable when this returns (`decided_again`)."""
        return decided_again(lambda: self._execute(command, actor), self.catch_up)

    def _execute(self, command: TableCommand, actor: str) -> list[EventEnvelope]:
        now = self.clock()
        before = self.snapshot
        try:
            events = decide(before.state, command, now)
        except RefusalOnRecord as refusal:  # refused, and kept on the record
            self._commit(before, refusal.events, now, actor)
            raise
        return self._commit(before, events, now, actor)

    def _commit(
        self, before: TableSnapshot, events: list[e.TableEvent], now: datetime, actor: str
    ) -> list[EventEnvelope]:
        snapshot, records = before, []
        for event in events:
            session_id, coup = _ids(snapshot.state, event)
            records.append(NewEvent(session_id, coup, event.type, event.payload(), now, actor))
            snapshot = snapshot.after(snapshot.seq + 1, event)  # the seq the log will give it
        envelopes = self.log.append(self.stream, records, expected_seq=before.seq)
        self.snapshot = snapshot
        for envelope in envelopes:
            for listener in self._listeners:
                listener(envelope)
        return envelopes
