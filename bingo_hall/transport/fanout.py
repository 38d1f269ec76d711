"""Fan-out of committed events to subscribers, with resume and bounded queues.

A subscriber asks for every event after the last seq it saw. It is registered for live events
first, then served from the log up to the head, then from its queue, skipping what it already
got: no gap, no duplicate, in order. Its queue is bounded; a subscriber that falls behind is
dropped (the connection closes with CLOSE_TOO_SLOW) and resumes with a new subscription, so a
slow client never holds up the hub or the others.

Fast path: once a subscriber with a direct writer (a websocket connection, caller channel) has
caught up, each new event is written to all such subscribers at once, the frame encoded once
(`websockets.broadcast`), with no task switch per client. A subscriber whose socket buffer
then holds more than `max_buffer` bytes is dropped as too slow.

Audiences: staff, and a table device on its own table's stream, get every event whole;
monitors and terminals (and MQTT) get the `device` view: a camera hold without the held ball,
and a casino table's public view (no bet, player or payment). Both views have every seq.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from websockets.asyncio.server import broadcast

from bingo_hall.hub.streams import split_stream
from bingo_hall.store.eventlog import EventEnvelope, EventLog

# "staff": a stream whole (the Jefes, who keep the acta, and the regulator's inspector; a table
# device on its own table's stream). "clerk": the other staff (cashier, caller, floor
# assistant, croupiers): the stream whole but for what only the acta's readers read
# (CLERK_FIELDS). "device": as monitors and terminals (and MQTT) see it: the fields of
# DEVICE_FIELDS only.
Audience = Literal["staff", "clerk", "device"]

# A casino table's public view (docs/tables.md), the fields of each event a public panel may
# get: the phases, coups, outcomes, limits, the session's opening and closing, the last-coup
# announcements, the way each coup was spun and void coups; nothing of a player's (no bet, chip,
# stake, zero choice, settlement or payment: those events keep their coup only), not who spins,
# not the cylinder's seal, and nothing of the bank's float nor of who holds its key. Every
# event is still sent, in seq order, so a panel resumes after any seq and never sees a gap.
TABLE_PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {
    "table_opened": ("table_id", "session_id", "table", "choice", "limits", "head"),
    "table_seal_mismatch_found": (),
    "table_head_taken": ("head", "previous"),
    "table_colour_chips_issued": (),
    "table_colour_chips_returned": (),
    "table_exchange_made": (),
    "table_value_chip_bets_set": ("allowed",),
    "table_last_coups_announced": ("coups", "counting_current"),
    "table_limits_change_announced": (
        "choice",
        "limits",
        "requested_by",
        "old_limit_coups",
        "previous",
    ),
    "table_limits_changed": ("choice", "limits", "requested_by", "authorisation", "previous"),
    "table_limits_change_refused": (),
    "table_float_topped_up": (),
    "table_suspended": (),
    "table_resumed": (),
    "table_spin_rotation_set": (),
    "table_bets_opened": ("coup", "last_coup"),
    "table_bet_placed": ("coup",),
    "table_bet_withdrawn": ("coup",),
    "table_late_bet_returned": ("coup",),
    "table_spun": ("coup", "direction", "relaunch"),
    "table_no_more_bets": ("coup",),
    "table_coup_voided": (
        "coup",
        "reason",
        "declared_by",
        "role",
        "previous_outcome",
        "revolutions",
        "bets_open",
    ),
    "table_outcome_recorded": ("coup", "outcome", "revolutions"),
    "table_zero_option_chosen": ("coup",),
    "table_coup_settled": ("coup",),
    "table_coup_paid": ("coup",),
    "table_closed": ("session_id", "coups", "suspended"),
}

# What the staff who do not keep the acta see of a player's request or complaint: that one was
# made. Devices see no more.
CLERK_FIELDS: dict[str, tuple[str, ...]] = {
    "player_request_recorded": ("request_id", "kind"),
    "player_request_answered": ("request_id",),
}

# What devices (monitors, terminals, MQTT) see of a camera hold: that the game holds, not the
# called number or the reading. Nothing of a held ball reaches the panels before it is resolved.
# Of a sale, the cards sold, not the player who bought them. Of a player's request, what the
# clerks see. And of a table's stream, its public view. A prize paid and a voided game's cards
# refunded name a claim or a range of cards, never a player: every audience sees them whole.
DEVICE_FIELDS: dict[str, tuple[str, ...]] = {
    "sale_recorded": ("sale",),  # not which player at which terminal bought the cards
    "ball_held": ("ordinal",),
    "hold_resolved": ("ordinal",),
    **CLERK_FIELDS,
    **TABLE_PUBLIC_FIELDS,
}


def _seen_fields(event_type: str, audience: Audience) -> tuple[str, ...] | None:
    """The fields of an event an audience sees; None: all of them."""
    return {"device": DEVICE_FIELDS, "clerk": CLERK_FIELDS}.get(audience, {}).get(event_type)


def audience_payload(event_type: str, payload: dict, audience: Audience) -> dict:
    """The payload as an audience may see it."""
    fields = _seen_fields(event_type, audience)
    if fields is None:
        return payload
    return {key: payload[key] for key in fields if key in payload}


def event_frame(envelope: EventEnvelope, audience: Audience = "staff") -> str:
    """The `event` message of an envelope, as sent on the wire to an audience. An event of a
    table's stream names its hall and its table. Only the acta's keepers get the hash: it
    covers the payload and the hash before it, so any later hash would let an audience that
    sees a payload in part test guesses at what it was not shown."""
    hall, table = split_stream(envelope.hall_id)
    where = {"hall": hall} if table is None else {"hall": hall, "table": table}
    return json.dumps(
        {
            "type": "event",
            **where,
            "seq": envelope.seq,
            "session": envelope.session_id,
            "game": envelope.game_id,
            "event": envelope.type,
            "payload": audience_payload(envelope.type, envelope.payload, audience),
            "time": envelope.time.isoformat(),
            "actor": envelope.actor,
            "hash": envelope.hash if audience == "staff" else None,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


@dataclass(frozen=True, slots=True)
class Outgoing:
    seq: int
    type: str
    frame: str  # as staff see it
    device_frame: str  # as monitors and terminals see it: no hash, some payloads in part
    clerk_frame: str  # as the staff who do not keep the acta see it: no hash, requests in part
    committed_at: float  # loop time when the hub learnt it was durable

    def frame_for(self, audience: Audience) -> str:
        return {"device": self.device_frame, "clerk": self.clerk_frame}.get(audience, self.frame)


class TooSlow(Exception):
    """The subscriber's queue overflowed."""


@dataclass(eq=False)
class Subscriber:
    after_seq: int
    channel: str = "caller"
    maxsize: int = 1000
    connection: Any = None  # a websockets connection: enables the broadcast fast path
    audience: Audience = "staff"
    queue: asyncio.Queue[Outgoing] = field(init=False)
    overflow: asyncio.Event = field(init=False)
    live: bool = False  # caught up and served by broadcast

    def __post_init__(self) -> None:
        self.queue = asyncio.Queue(self.maxsize)
        self.overflow = asyncio.Event()

    def offer(self, item: Outgoing) -> None:
        if self.overflow.is_set():
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.overflow.set()


class Fanout:
    """Every live subscriber of one stream of the log (a hall's, or one of its tables')."""

    def __init__(
        self, log: EventLog, hall_id: str, display_delay: float = 0.0, max_buffer: int = 1 << 20
    ) -> None:
        self.log = log
        self.hall_id = hall_id
        self.display_delay = display_delay
        self.max_buffer = max_buffer
        self.subscribers: set[Subscriber] = set()
        self.published_seq = 0

    def publish(self, envelope: EventEnvelope) -> None:
        """Called on the event loop, in seq order, once the event is durable."""
        frame = event_frame(envelope)
        device_frame = event_frame(envelope, "device")
        clerk_frame = event_frame(envelope, "clerk")
        loop_time = asyncio.get_running_loop().time()
        item = Outgoing(envelope.seq, envelope.type, frame, device_frame, clerk_frame, loop_time)
        self.published_seq = envelope.seq
        live: dict[str, list[Subscriber]] = {"staff": [], "clerk": [], "device": []}
        for subscriber in list(self.subscribers):
            if subscriber.live:
                live[subscriber.audience].append(subscriber)
            else:
                subscriber.offer(item)
        for audience, subscribers in live.items():
            if not subscribers:
                continue
            broadcast([s.connection for s in subscribers], item.frame_for(audience))
            for subscriber in subscribers:
                if _buffered(subscriber.connection) > self.max_buffer:
                    subscriber.overflow.set()

    async def serve(self, subscriber: Subscriber, send: Callable[[str], Awaitable[None]]) -> None:
        """Send the subscriber everything after its seq, then live events, until cancelled.

        Raises TooSlow as soon as its queue overflows, even if its sender is stuck.
        """
        self.subscribers.add(subscriber)
        writer = asyncio.create_task(self._write(subscriber, send))
        overflow = asyncio.create_task(subscriber.overflow.wait())
        try:
            done, _ = await asyncio.wait({writer, overflow}, return_when=asyncio.FIRST_COMPLETED)
            if overflow in done:
                raise TooSlow
            writer.result()
        finally:
            self.subscribers.discard(subscriber)
            writer.cancel()
            overflow.cancel()

    async def _write(self, subscriber: Subscriber, send: Callable[[str], Awaitable[None]]) -> None:
        next_seq = await self._catch_up(subscriber, subscriber.after_seq + 1, send)
        self._go_live_if_caught_up(subscriber, next_seq)
        while True:
            item = await subscriber.queue.get()
            if item.seq < next_seq:
                continue  # already sent from the log
            if item.seq > next_seq:  # cannot happen without an overflow; be safe anyway
                next_seq = await self._catch_up(subscriber, next_seq, send, until=item.seq - 1)
            await self._hold_for_display(subscriber, item)
            await send(item.frame_for(subscriber.audience))
            next_seq = item.seq + 1
            self._go_live_if_caught_up(subscriber, next_seq)

    def _go_live_if_caught_up(self, subscriber: Subscriber, next_seq: int) -> None:
        """Hand a caught-up caller-channel connection over to the broadcast fast path."""
        if (
            subscriber.connection is not None
            and subscriber.channel == "caller"
            and subscriber.queue.empty()
            and next_seq == self.published_seq + 1
        ):
            subscriber.live = True

    async def _catch_up(
        self,
        subscriber: Subscriber,
        next_seq: int,
        send: Callable[[str], Awaitable[None]],
        until: int | None = None,
    ) -> int:
        while True:
            batch = await asyncio.to_thread(self.log.read, self.hall_id, next_seq - 1, 500)
            if until is not None:
                batch = [e for e in batch if e.seq <= until]
            if not batch:
                return next_seq
            for envelope in batch:
                if subscriber.channel == "panel" and envelope.type == "ball_drawn":
                    await self._hold_logged_ball(envelope)
                await send(event_frame(envelope, subscriber.audience))
                next_seq = envelope.seq + 1

    async def _hold_for_display(self, subscriber: Subscriber, item: Outgoing) -> None:
        """The panels show a ball only after it was announced (spec §5: announce, then show)."""
        if subscriber.channel == "panel" and item.type == "ball_drawn" and self.display_delay:
            wait = item.committed_at + self.display_delay - asyncio.get_running_loop().time()
            if wait > 0:
                await asyncio.sleep(wait)

    async def _hold_logged_ball(self, envelope: EventEnvelope) -> None:
        await hold_until_shown(envelope, self.display_delay)


async def hold_until_shown(envelope: EventEnvelope, display_delay: float) -> None:
    """A ball read from the log (a panel catching up just after it, the MQTT bridge) is shown
    no sooner than a live one would be: `display_delay` after it was committed, by the hall's
    clock (at most the delay itself, whatever the clocks say)."""
    if display_delay and envelope.type == "ball_drawn":
        shown_at = envelope.time + timedelta(seconds=display_delay)
        wait = (shown_at - datetime.now(UTC)).total_seconds()
        await asyncio.sleep(min(max(wait, 0.0), display_delay))


def _buffered(connection: Any) -> int:
    """Bytes written to a connection's socket and not yet sent."""
    transport = getattr(connection, "transport", None)
    return transport.get_write_buffer_size() if transport is not None else 0
