"""The hub's MQTT bridge (aiomqtt): the event log, projected onto a broker's topics.

Topics under ``{prefix}/{hall}/`` (docs/mqtt.md has every payload and QoS):

- ``events``: every durable event in seq order, QoS 1, payload = the websocket `event` frame;
- ``state``: retained, the hall's current state, republished after the events it reflects;
- ``replay/request/<client>`` and ``replay/<client>``: a subscriber asks for every event after
  a seq, under its own client id (the broker's ACL lets it publish there only).

The bridge is fed like a fan-out subscriber and never holds up the hub: a listener on the
service only records that something was committed and wakes the publisher, which reads the
*log* (in a worker thread) after ``published_seq`` — the last seq the broker acknowledged
(aiomqtt's QoS 1 ``publish`` returns after the PUBACK). When the connection is lost it
reconnects with a bounded backoff and publishes everything after ``published_seq`` again, so
a broker restart loses no event: a persistent subscriber (or one that asks for a replay)
gets every seq, possibly twice, and de-duplicates by seq.

:class:`StreamBridge` does all of this for one stream of the log; :class:`MqttBridge` is the
hall's, and ``bingo_hall.transport.table_bridge`` has one per casino table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

import aiomqtt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bingo_hall.config import MqttConfig
from bingo_hall.domain import HallState
from bingo_hall.domain.phases import Phase
from bingo_hall.hub.runtime import HubRuntime
from bingo_hall.hub.service import Listener
from bingo_hall.store.eventlog import EventEnvelope, EventLog
from bingo_hall.store.positions import PublishedPositions
from bingo_hall.transport.fanout import event_frame, hold_until_shown
from bingo_hall.transport.mqtt_access import hall_client_id, witness_client_id
from bingo_hall.transport.mqtt_witness import (
    BrokerRefusedLogin,
    LogBehindBroker,
    refused_login,
    retained_seq,
)

logger = logging.getLogger(__name__)

MAX_REQUEST_BYTES = 4096
MAX_PENDING_REPLAYS = 64


# ------------------------------------------------------------------ message models --


class ReplayRequest(BaseModel):
    """Published on ``{prefix}/{hall}/replay/request/{client}``: send me every event after
    ``after_seq`` on ``{prefix}/{hall}/replay/{client}``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    client: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[^/+#\s\x00-\x1f]+$",
        description="the requester's MQTT client id, as in the request's topic: the ACL lets it "
        "publish on replay/request/<its id> and read replay/<its id> only",
    )
    after_seq: int = Field(
        ge=0, le=2**63 - 1, description="the last seq the requester has; 0 for everything"
    )


class ReplayDone(BaseModel):
    """The last message of a replay, after every event it sent."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["replay_done"] = "replay_done"
    seq: int = Field(
        description="the last seq the replay reached: its last event, or the log's head "
        "(which is at most after_seq) when there was nothing to send"
    )


class HallStateMessage(BaseModel):
    """Retained on ``{prefix}/{hall}/state``: the state after the events up to ``seq``."""

    model_config = ConfigDict(extra="forbid")
    seq: int = Field(description="last event the state includes (0: empty log)")
    phase: Phase
    session: int | None = Field(description="the open session, null when none is open")
    game: int | None = Field(description="the current (or last finished) game, null if none")
    balls: list[int] = Field(description="numbers called in the current game, in order")
    line_prize: str | None = Field(description="money as a decimal string; null with no game")
    bingo_prize: str | None = Field(description="money as a decimal string; null with no game")


def state_message(seq: int, state: HallState) -> HallStateMessage:
    game = state.game
    return HallStateMessage(
        seq=seq,
        phase=state.phase,
        session=None if state.phase is Phase.SESSION_CLOSED else state.session_id,
        game=game.game_id if game else None,
        balls=list(game.calls) if game else [],
        line_prize=str(game.line_prize) if game else None,
        bingo_prize=str(game.bingo_prize) if game else None,
    )


def _dump(message: BaseModel) -> str:
    return message.model_dump_json()


# ---------------------------------------------------------------------- the bridge --


@dataclass(frozen=True)
class Broker:
    hostname: str
    port: int

    @classmethod
    def from_url(cls, url: str) -> Broker:
        parts = urlsplit(url)
        if parts.scheme != "mqtt" or not parts.hostname:
            raise ValueError(f"{url!r} is not a broker URL like mqtt://127.0.0.1:1883")
        return cls(parts.hostname, parts.port or 1883)


class BridgedService(Protocol):
    """What a bridge needs of a service: its log, its head, and its committed events."""

    log: EventLog

    @property
    def seq(self) -> int: ...

    def subscribe(self, listener: Listener) -> None: ...


class StreamBridge:
    """Publishes one stream of the log to an MQTT broker and answers replay requests.

    ``published_seq`` is the last event the broker acknowledged on ``events``, kept in the store
    after each batch (``PublishedPositions``). It starts at ``after_seq`` if given, otherwise
    where this bridge (this broker, this topic base) last left off, so a hub killed between a
    commit and the broker's acknowledgement publishes that event when it is back; a bridge
    new to the log starts at its head and announces only what happens from now on (the
    retained ``state`` tells a subscriber the head, and a replay request fetches anything it
    lacks). A subclass says what
    the state is (``_capture``) and how it is written (``_state_json``).
    """

    def __init__(
        self,
        service: BridgedService,
        config: MqttConfig,
        *,
        stream: str,
        identifier: str,
        base: str,
        after_seq: int | None = None,
        batch_size: int = 500,
        window: int = 50,
        backoff_initial: float = 0.1,
        backoff_max: float = 5.0,
        keepalive: int = 15,
        timeout: float = 10.0,
        connect_timeout: float = 5.0,
    ) -> None:
        if config.url is None:
            raise ValueError("the MQTT bridge needs mqtt.url")
        self.service = service
        self.log = service.log
        self.stream = stream
        self.config = config
        self.broker = Broker.from_url(config.url)
        self.identifier = identifier
        self.events_topic = f"{base}/events"
        self.state_topic = f"{base}/state"
        self.request_topic = f"{base}/replay/request/+"  # the last level: the requester's id
        self.replay_prefix = f"{base}/replay/"
        self.batch_size = batch_size
        self.window = window
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.keepalive = keepalive
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.display_delay = 0.0  # a stream with balls: the panels' delay (MqttBridge)

        self.published_seq = self.service.seq if after_seq is None else after_seq
        self._resume_stored = after_seq is None  # start where this bridge last left off
        self.position_key = f"{self.broker.hostname}:{self.broker.port} {base}"
        self._positions = PublishedPositions(self.log.engine) if self._resume_stored else None
        self._saved_seq: int | None = None
        self._position_loaded = False
        self.notified_seq = self.published_seq  # last seq the hub told us about
        self.connected = asyncio.Event()  # set while connected and subscribed
        self.connections = 0  # successful connections so far
        self.resumed_from: int | None = None  # published_seq when the last connection began
        self.events_sent = 0  # publishes acknowledged on `events`, first sends and resends
        self.replays_done = 0
        self.state_seq: int | None = None  # seq of the state last retained on this connection
        self.halted: LogBehindBroker | None = None  # the broker saw past the log: stopped

        self._wake = asyncio.Event()
        # The latest committed envelopes, as the service handed them over: the next events to
        # publish come from here when they follow on from the last published seq, sparing a
        # read of the log (in a worker thread) on the way of every ball.
        self._recent: deque[EventEnvelope] = deque(maxlen=batch_size)
        self._snapshot: tuple[int, Any] = self._capture()
        self._replays: deque[ReplayRequest] = deque()
        self._replay_ready = asyncio.Event()
        self._attached = False
        self._running = False

    # -- what the state is: the subclass's --

    def _capture(self) -> tuple[int, Any]:
        """(seq, state) of the service now; called in the command's thread after a commit."""
        raise NotImplementedError

    def _state_json(self, seq: int, state: Any) -> str:
        """The retained `state` message of a captured state."""
        raise NotImplementedError

    # -- the hub's side: O(1), never blocks, never raises into the command --

    def attach(self) -> None:
        """Listen to the service, the way HubRuntime.attach feeds the fan-out."""
        if self._attached:
            return
        self._attached = True
        loop = asyncio.get_running_loop()

        def committed(envelope: EventEnvelope) -> None:
            # Runs in the command's worker thread, after the commit, while the command's lock
            # is held: the service's seq and state are those after this batch.
            if not self._running:
                return
            snapshot = self._capture()
            with contextlib.suppress(RuntimeError):  # the loop is closed: the hub is stopping
                loop.call_soon_threadsafe(self._committed, envelope, snapshot)

        self.service.subscribe(committed)

    def _committed(self, envelope: EventEnvelope, snapshot: tuple[int, Any]) -> None:
        if snapshot[0] >= self._snapshot[0]:
            self._snapshot = snapshot
        self._recent.append(envelope)
        self.notify(envelope)

    def notify(self, envelope: EventEnvelope) -> None:
        """A durable event exists (called on the loop): wake the publisher."""
        self.notified_seq = max(self.notified_seq, envelope.seq)
        self._wake.set()

    # -- the broker's side --

    async def run(self) -> None:
        """Connect, publish, answer replays; reconnect after any loss, until cancelled."""
        self.attach()
        self._running = True
        if self.service.seq > self._snapshot[0]:  # commands ran since the bridge was made
            self._snapshot = self._capture()
        delay = self.backoff_initial
        refused = False  # the last attempt's login was refused: said once, until it is taken
        try:
            while True:
                connections = self.connections
                try:
                    await self._connection()
                except LogBehindBroker as error:
                    logger.critical("%s", error)
                    self.halted = error
                    return
                except Exception as error:
                    self.connected.clear()
                    if self.connections > connections:  # it was up: start the backoff again
                        delay = self.backoff_initial
                        refused = False
                    if refused_login(error):  # the bridge's own connection, not the witness's
                        error = BrokerRefusedLogin(error, self.identifier, self.config)
                    if isinstance(error, BrokerRefusedLogin):
                        # no use knocking fast: the broker's files change when a person acts
                        delay = self.backoff_max
                        logger.log(
                            logging.DEBUG if refused else logging.ERROR,
                            "MQTT broker %s:%s: %s; trying again every %.1f s",
                            *self._where(),
                            error,
                            delay,
                        )
                        refused = True
                    elif isinstance(error, aiomqtt.MqttError | TimeoutError):
                        refused = False
                        logger.warning(
                            "MQTT broker %s:%s: %s; reconnecting in %.1f s "
                            "(published up to seq %d)",
                            *self._where(),
                            error,
                            delay,
                            self.published_seq,
                        )
                    else:  # a bug, or the store failing: log it, keep the bridge alive
                        logger.exception("MQTT bridge failed; restarting in %.1f s", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)
        finally:
            self.connected.clear()
            self._running = False

    def _where(self) -> tuple[str | None, int | None]:
        return self.broker.hostname, self.broker.port

    async def _load_position(self) -> None:
        """Where this bridge last left off (once; a failed read is tried again with the
        connection)."""
        if self._positions is None or self._position_loaded:
            return
        stored = await asyncio.to_thread(self._positions.get, self.position_key)
        if stored is not None:  # a log restored from an older copy: never past its head
            self.published_seq = self.notified_seq = min(stored, self.service.seq)
        self._saved_seq = stored
        await self._save_position()  # a bridge new to the log: from its head, from now on
        self._position_loaded = True

    async def check_witness(self) -> None:
        """LogBehindBroker when the broker's retained state reflects a seq past the log's head
        (mqtt_witness.py); aiomqtt.MqttError or TimeoutError when the broker cannot be
        reached."""
        identifier = witness_client_id(self.identifier)
        witnessed = await retained_seq(
            self.broker.hostname,
            self.broker.port,
            self.config,
            self.state_topic,
            identifier,
            marker_topic=f"{self.replay_prefix}{identifier}",  # the ACL lets it read its own
        )
        head = self.service.seq
        if witnessed is not None and witnessed > head:
            raise LogBehindBroker(self.state_topic, witnessed, head, self.identifier)

    async def _connection(self) -> None:
        await self.check_witness()  # before anything is published over the broker's record
        await self._load_position()
        client = aiomqtt.Client(
            self.broker.hostname,
            self.broker.port,
            username=self.identifier,  # the broker's user of this client id (mqtt_access.py)
            password=self.config.password,
            identifier=self.identifier,
            clean_session=False,  # the broker keeps our replay/request subscription meanwhile
            keepalive=self.keepalive,
            timeout=self.timeout,
            max_inflight_messages=self.window,
            logger=logging.getLogger(f"{__name__}.client"),
            max_queued_incoming_messages=1000,  # a flood of requests is dropped, not buffered
        )
        client.pending_calls_threshold = 4 * self.window
        # aiomqtt waits `timeout` for the CONNACK, and does not notice a broker that dies in
        # the middle of the handshake: keep that wait short, then the usual one for acks.
        client.timeout = self.connect_timeout
        async with client:
            client.timeout = self.timeout
            granted = await client.subscribe(self.request_topic, qos=1)
            if any(_refused(code) for code in granted):
                logger.error(
                    "the broker refused the subscription to %s (its ACL?): replay requests "
                    "will not be answered",
                    self.request_topic,
                )
            self.connections += 1
            self.resumed_from = self.published_seq
            self.state_seq = None  # the broker may have lost it: publish it again
            logger.info(
                "MQTT broker %s:%s connected as %s; publishing events after seq %d",
                self.broker.hostname,
                self.broker.port,
                self.identifier,
                self.published_seq,
            )
            self.connected.set()
            await _first_failure(
                self._read_requests(client), self._publish_log(client), self._serve_replays(client)
            )

    async def _read_requests(self, client: aiomqtt.Client) -> None:
        """Read incoming messages; raises MqttError as soon as the connection is lost."""
        async for message in client.messages:
            if not message.topic.matches(self.request_topic):
                continue
            if message.retain:  # kept by the broker from before: a request asks once, live
                logger.warning("ignored a retained replay request on %s", message.topic.value)
                continue
            self._accept_request(message.payload, message.topic.value.rsplit("/", 1)[1])

    async def _publish_log(self, client: aiomqtt.Client) -> None:
        while True:
            self._wake.clear()
            while batch := await self._next_batch():
                await self._publish_events(client, batch)
                await self._save_position()
            await self._publish_state(client)
            await self._wake.wait()

    async def _next_batch(self) -> Sequence[EventEnvelope]:
        """The events after the last published seq: from memory when the recently committed
        ones follow on from it without a gap, otherwise from the log."""
        after = self.published_seq
        recent = [envelope for envelope in self._recent if envelope.seq > after]
        if recent and all(e.seq == after + 1 + i for i, e in enumerate(recent)):
            return recent
        return await asyncio.to_thread(self.log.read, self.stream, after, self.batch_size)

    async def _save_position(self) -> None:
        if self._positions is not None and self.published_seq != self._saved_seq:
            await asyncio.to_thread(self._positions.set, self.position_key, self.published_seq)
            self._saved_seq = self.published_seq

    async def _publish_events(self, client: aiomqtt.Client, batch: Sequence[EventEnvelope]) -> None:
        def acked(envelope: EventEnvelope) -> None:
            self.published_seq = envelope.seq
            self.events_sent += 1

        await self._publish_shown(client, self.events_topic, batch, acked)

    async def _publish_shown(
        self,
        client: aiomqtt.Client,
        topic: str,
        batch: Sequence[EventEnvelope],
        acked: Callable[[EventEnvelope], None],
    ) -> None:
        """The events in order as the panels see them: each ball no sooner than the panels
        show it (`display_delay` after it was announced), and nothing after it before it."""
        start = 0
        for index, envelope in enumerate(batch):
            if envelope.type == "ball_drawn" and self.display_delay:
                await self._publish_in_order(client, self._items(topic, batch[start:index]), acked)
                await hold_until_shown(envelope, self.display_delay)
                start = index
        await self._publish_in_order(client, self._items(topic, batch[start:]), acked)

    @staticmethod
    def _items(topic: str, batch: Sequence[EventEnvelope]) -> list[tuple[str, str, EventEnvelope]]:
        return [(topic, event_frame(e, "device"), e) for e in batch]

    async def _publish_state(self, client: aiomqtt.Client) -> None:
        seq, state = self._snapshot
        if seq > self.published_seq or seq == self.state_seq:
            return  # its events are not all on the broker yet, or it is there already
        await client.publish(self.state_topic, self._state_json(seq, state), qos=1, retain=True)
        self.state_seq = seq

    async def _publish_in_order(
        self,
        client: aiomqtt.Client,
        items: Sequence[tuple[str, str, EventEnvelope]],
        acked: Callable[[EventEnvelope], None],
    ) -> None:
        """QoS 1 publishes, up to `window` in flight, sent in order; `acked` in order."""
        for start in range(0, len(items), self.window):
            chunk = items[start : start + self.window]
            tasks = [
                asyncio.ensure_future(client.publish(topic, payload, qos=1))
                for topic, payload, _ in chunk
            ]
            try:
                for task, (_, _, item) in zip(tasks, chunk, strict=True):
                    await task
                    acked(item)
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    # -- replays --

    def _accept_request(self, payload: Any, publisher: str) -> None:
        """A request on `replay/request/<publisher>`: the broker's ACL lets a client publish
        there under its own client id only, so a request naming another client is not one."""
        request = _parse_request(payload)
        if request is None:
            return
        if request.client != publisher:
            logger.warning(
                "ignored replay request on replay/request/%s: it names client %r",
                publisher,
                request.client,
            )
            return
        for queued in list(self._replays):
            if queued.client == request.client:  # a newer request from the same client wins
                self._replays.remove(queued)
        if len(self._replays) >= MAX_PENDING_REPLAYS:
            logger.warning(
                "ignored replay request from %r: %d requests are waiting already",
                request.client,
                len(self._replays),
            )
            return
        self._replays.append(request)
        self._replay_ready.set()

    async def _serve_replays(self, client: aiomqtt.Client) -> None:
        while True:
            while not self._replays:
                self._replay_ready.clear()
                await self._replay_ready.wait()
            request = self._replays[0]
            try:
                await self._replay(client, request)
                self.replays_done += 1
            except aiomqtt.MqttError:
                raise  # the connection is lost: the request stays first in the queue
            except Exception:  # the store failed: drop this request, keep serving the others
                logger.exception("replay for %r failed; request dropped", request.client)
            with contextlib.suppress(ValueError):  # a newer request may have replaced it
                self._replays.remove(request)

    async def _replay(self, client: aiomqtt.Client, request: ReplayRequest) -> None:
        """Every event after the request's seq, in order, then replay_done (a lost connection
        leaves the request queued: it is served again, from the start, on the next one)."""
        topic = self.replay_prefix + request.client
        last = request.after_seq
        sent = False

        def acked(envelope: EventEnvelope) -> None:
            nonlocal last, sent
            last, sent = envelope.seq, True

        while batch := await asyncio.to_thread(self.log.read, self.stream, last, self.batch_size):
            await self._publish_shown(client, topic, batch, acked)
        if not sent:
            last = min(request.after_seq, (await asyncio.to_thread(self.log.head, self.stream))[0])
        await client.publish(topic, _dump(ReplayDone(seq=last)), qos=1)
        logger.info("replayed seq %d..%d to %r", request.after_seq + 1, last, request.client)


class MqttBridge(StreamBridge):
    """Publishes one hall's (bingo) stream under ``{prefix}/{hall}/`` as client (and broker
    user) ``bingo-hub-{hall}``."""

    def __init__(self, runtime: HubRuntime, config: MqttConfig, **options: Any) -> None:
        self.runtime = runtime
        self.hall_id = runtime.service.hall_id
        super().__init__(
            runtime.service,
            config,
            stream=self.hall_id,
            identifier=hall_client_id(self.hall_id),
            base=f"{config.topic_prefix}/{self.hall_id}",
            **options,
        )
        # MQTT carries the panels' view: the balls as the panels show them, not before
        self.display_delay = runtime.display_delay

    def _capture(self) -> tuple[int, HallState]:
        return self.runtime.service.seq, self.runtime.service.state

    def _state_json(self, seq: int, state: HallState) -> str:
        return _dump(state_message(seq, state))


def _refused(code: Any) -> bool:
    """A SUBACK return code that refuses the subscription (0x80 and above)."""
    value = getattr(code, "value", code)
    return isinstance(value, int) and value >= 0x80


def _parse_request(payload: Any) -> ReplayRequest | None:
    """A valid replay request, or None after logging why it is ignored."""
    if not isinstance(payload, bytes | bytearray):
        logger.warning("ignored replay request: payload is %s, not bytes", type(payload).__name__)
        return None
    if len(payload) > MAX_REQUEST_BYTES:
        logger.warning(
            "ignored replay request: %d bytes, more than %d", len(payload), MAX_REQUEST_BYTES
        )
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError) as error:
        logger.warning("ignored replay request %s: not JSON (%s)", _preview(payload), error)
        return None
    try:
        return ReplayRequest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "request"
        logger.warning("ignored replay request %s: %s: %s", _preview(payload), where, first["msg"])
        return None


def _preview(payload: bytes | bytearray) -> str:
    text = bytes(payload[:80]).decode("utf-8", "replace")
    return repr(text + ("…" if len(payload) > 80 else ""))


async def _first_failure(*coroutines: Awaitable[None]) -> None:
    """Run coroutines together; when one ends (they only end by raising), cancel the others
    and raise what it raised."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in tasks:
        if task in done and not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
    raise aiomqtt.MqttError("the bridge's tasks stopped")
