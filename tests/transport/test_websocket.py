"""The hub's websocket protocol, tested with the real `websockets` client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bingo_hall.domain import commands as c
from bingo_hall.hub.service import HallService
from bingo_hall.transport.fanout import Fanout, Subscriber, TooSlow
from support.aio import run_async as run
from support.demo import open_log
from support.hub import PASSWORD, Client, open_game, prepare_store, running_hub


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    return url, token, series


def test_health_answers_over_plain_http(store):
    async def scenario():
        async with running_hub(*store) as hub:
            body = await asyncio.to_thread(
                lambda: json.loads(urllib.request.urlopen(hub.http + "/health").read())
            )
            assert body == {"hall": "sala-1", "seq": 0, "phase": "session_closed", "camera": None}

    run(scenario())


def test_authentication_failures_close_with_a_reason(store):
    async def scenario():
        async with running_hub(*store, auth_timeout=0.5) as hub:
            for auth in (
                {"user": "mesa", "password": "wrong password!"},
                {"token": "mon-1.forged"},
                {"user": "nobody", "password": PASSWORD},
            ):
                async with connect(hub.url) as connection:
                    await connection.recv()
                    await connection.send(json.dumps({"type": "auth", **auth}))
                    answer = json.loads(await connection.recv())
                    assert answer["type"] == "auth_invalid"
                    with pytest.raises(ConnectionClosed) as closed:
                        await connection.recv()
                    assert closed.value.rcvd.code == 4001
            async with connect(hub.url) as connection:
                await connection.recv()
                with pytest.raises(ConnectionClosed) as closed:
                    await connection.recv()
                assert closed.value.rcvd.code == 4002
            async with connect(hub.url) as connection:
                await connection.recv()
                await connection.send("not json")
                assert json.loads(await connection.recv())["type"] == "auth_invalid"

    run(scenario())


def test_a_credential_holds_at_most_its_share_of_connections(store):
    """A monitor's token copied off its kiosk opens no more than the hub allows one
    credential, nor does a staff user; a connection closed frees its place."""

    async def refused(url: str, **auth: str) -> int:
        async with connect(url) as connection:
            await connection.recv()
            await connection.send(json.dumps({"type": "auth", **auth}))
            with pytest.raises(ConnectionClosed) as closed:
                await connection.recv()
            return closed.value.rcvd.code

    async def scenario():
        async with (
            running_hub(*store, max_connections=3) as hub,
            contextlib.AsyncExitStack() as held,
        ):
            token = {"token": hub.monitor_token}
            staff = {"user": "mesa", "password": PASSWORD}
            monitors = [
                await held.enter_async_context(Client.login(hub.url, **token)) for _ in range(3)
            ]
            for _ in range(3):
                await held.enter_async_context(Client.login(hub.url, **staff))
            assert await refused(hub.url, **token) == 4010
            assert await refused(hub.url, **staff) == 4010
            async with Client.login(hub.url, user="sala", password=PASSWORD) as other:
                assert (await other.request({"type": "ping"}))["type"] == "pong"  # not his
            for monitor in monitors:  # the three still served
                assert (await monitor.request({"type": "ping"}))["type"] == "pong"
            await monitors[0].connection.close()
            for _ in range(100):  # the hub sees it go
                if sum(s.principal.id == "mon-1" for s in hub.server.sessions) == 2:
                    break
                await asyncio.sleep(0.05)
            async with Client.login(hub.url, **token) as again:
                assert again.welcome["role"] == "monitor"

    run(scenario())


def test_a_monitor_follows_the_game_in_order_and_may_give_no_command(store):
    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, token=hub.monitor_token) as monitor,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            assert (await monitor.request({"type": "subscribe", "after_seq": 0}))["success"]
            await open_game(staff, locutor)
            for _ in range(5):
                await locutor.ok("draw_ball")
            events = await monitor.events(len(hub.runtime.service.log.read("sala-1")))
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            balls = [e for e in events if e["event"] == "ball_drawn"]
            assert [b["payload"]["ordinal"] for b in balls] == [1, 2, 3, 4, 5]
            assert all(e["hall"] == "sala-1" and "time" in e for e in events)
            assert balls[0]["game"] == 1
            denied = await monitor.command("draw_ball")
            assert not denied["success"] and denied["error"]["code"] == "forbidden"

    run(scenario())


def test_resume_after_a_reconnect_and_after_a_hub_restart_has_no_gap_and_no_duplicate(store):
    async def scenario():
        seen: list[int] = []
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await open_game(staff, locutor)
            async with Client.login(hub.url, token=hub.monitor_token) as monitor:
                await monitor.request({"type": "subscribe", "after_seq": 0})
                seen += [e["seq"] for e in await monitor.events(10)]
            for _ in range(3):  # while the monitor is away
                await locutor.ok("draw_ball")
            async with Client.login(hub.url, token=hub.monitor_token) as monitor:
                await monitor.request({"type": "subscribe", "after_seq": seen[-1]})
                head = hub.runtime.service.seq
                seen += [e["seq"] for e in await monitor.events(head - seen[-1])]
        async with (  # the hub restarted on the same log
            running_hub(*store) as hub,
            Client.login(hub.url, token=hub.monitor_token) as monitor,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await monitor.request({"type": "subscribe", "after_seq": seen[-1]})
            await locutor.ok("draw_ball")
            await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            seen += [e["seq"] for e in await monitor.events(head - seen[-1])]
        assert seen == list(range(1, len(seen) + 1))

    run(scenario())


def test_a_resume_past_the_end_of_the_log_is_refused_naming_its_last_seq(store):
    """A client that saw events a restored log no longer holds is not resumed silently (it
    would hear nothing until the log passed its seq, and then only part of the new branch)."""

    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, token=hub.monitor_token) as monitor,
        ):
            head = hub.runtime.service.seq
            ahead = await monitor.request({"type": "subscribe", "after_seq": head + 5})
            assert ahead["success"] is False and ahead["error"]["code"] == "not_in_log"
            assert f"past the end of this stream's log (seq {head})" in ahead["error"]["message"]
            at_head = await monitor.request({"type": "subscribe", "after_seq": head})
            assert at_head["success"], at_head  # the refusal subscribed nothing

    run(scenario())


def test_a_resume_after_an_event_the_log_holds_no_longer_is_refused(store):
    """A log restored from an older copy and gone on past the client's seq: the event at that
    seq is another one, so the client's `after_time` (when its event was committed) does not
    match and the resume is refused; the right time resumes."""

    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await open_game(staff, locutor)
            seq = hub.runtime.service.seq
            (event,) = hub.runtime.service.log.read("sala-1", seq - 1, 1)
            async with Client.login(hub.url, token=hub.monitor_token) as monitor:
                other = {"after_seq": seq, "after_time": "2020-01-01T00:00:00+00:00"}
                refused = await monitor.request({"type": "subscribe", **other})
                assert refused["error"]["code"] == "not_in_log", refused
                assert (
                    f"event seq {seq} ({event.time.isoformat()}) is not the one"
                    in (refused["error"]["message"])
                )
                naive = {"after_seq": seq, "after_time": "2020-01-01T00:00:00"}
                bad = await monitor.request({"type": "subscribe", **naive})
                assert bad["error"]["code"] == "bad_frame", bad  # a time without its zone
                same = {"after_seq": seq, "after_time": event.time.isoformat()}
                assert (await monitor.request({"type": "subscribe", **same}))["success"]

    run(scenario())


def test_a_resume_after_an_event_another_process_appended_is_not_taken_for_a_restored_log(
    store,
):
    """A console command appends while the hub runs; a monitor served it from the log before
    the hub's own state caught up resumes after it: the log holds it, so nothing is refused."""

    async def scenario():
        async with running_hub(*store) as hub:
            console = open_log(store[0])
            try:
                other = HallService(console, "sala-1")
                other.execute(c.RegisterBallSet(ball_set_id="JB-9", homologation="H-9"), "console")
            finally:
                console.engine.dispose()
            head = hub.runtime.service.seq + 1  # the hub has not caught up with it yet
            async with Client.login(hub.url, token=hub.monitor_token) as monitor:
                assert (await monitor.request({"type": "subscribe", "channel": "panel"}))["success"]
                assert [e["seq"] for e in await monitor.events(head)][-1] == head
            async with Client.login(hub.url, token=hub.monitor_token) as monitor:
                again = await monitor.request({"type": "subscribe", "after_seq": head})
                assert again["success"], again

    run(scenario())


def test_only_the_actas_keepers_get_the_hash_chain(store):
    """Each hash covers its payload and the hash before it: a monitor or a cashier, who see
    some payloads in part (a sale's buyer, a camera hold's ball, a player's request), could test
    guesses at what they were not shown against the next hash they see. So they see none."""

    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
            Client.login(hub.url, user="caja", password=PASSWORD) as cashier,
            Client.login(hub.url, token=hub.monitor_token) as monitor,
        ):
            await open_game(staff, locutor)
            await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            for client in (staff, cashier, monitor):
                assert (await client.request({"type": "subscribe"}))["success"]
            kept, clerk, device = [await c.events(head) for c in (staff, cashier, monitor)]
            assert (
                [e["seq"] for e in kept] == [e["seq"] for e in device] == list(range(1, head + 1))
            )
            assert all(len(e["hash"]) == 64 for e in kept)
            assert all(e["hash"] is None for e in clerk + device)

    run(scenario())


def test_bad_frames_get_an_answer_and_change_nothing(store):
    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, user="caja", password=PASSWORD) as cashier,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await open_game(staff, locutor)
            head = hub.runtime.service.seq
            connection = cashier.connection
            await connection.send("{not json")
            assert json.loads(await connection.recv())["error"]["code"] == "bad_json"
            await connection.send("[1, 2]")
            assert json.loads(await connection.recv())["error"]["code"] == "bad_frame"
            await connection.send(json.dumps({"id": 7, "type": "teleport"}))
            answer = json.loads(await connection.recv())
            assert answer["id"] == 7 and answer["error"]["code"] == "bad_frame"
            assert "'teleport'" in answer["error"]["message"]
            misspelt = {"id": 9, "type": "command", "command": "draw_ball", "tabel": "R1"}
            await connection.send(json.dumps(misspelt))
            answer = json.loads(await connection.recv())
            assert answer["error"] == {
                "code": "bad_frame",
                "message": "command.tabel: Extra inputs are not permitted",
            }
            await connection.send("[" * 20_000 + "]" * 20_000)  # under the size limit
            answer = json.loads(await connection.recv())
            assert answer["error"] == {
                "code": "bad_json",
                "message": "the frame's JSON nests too deep",
            }
            beyond = {"id": 8, "type": "subscribe", "after_seq": 2**63}  # no seq is that big
            await connection.send(json.dumps(beyond))
            answer = json.loads(await connection.recv())
            assert answer["id"] == 8 and answer["error"]["code"] == "bad_frame"
            assert "after_seq" in answer["error"]["message"]
            cases = [
                (cashier, "draw_ball", {}, "forbidden"),
                (staff, "open_session", {}, "wrong_phase"),
                (staff, "fly", {}, "unknown_command"),
                (
                    cashier,
                    "record_sale",
                    {"series_id": "A1", "first": 61, "last": 62},
                    "forbidden",
                ),
                (locutor, "draw_ball", {"number": 5}, "invalid_args"),
                # what the log records of the hall comes from its configuration, not a client
                (locutor, "draw_ball", {"source": "blower"}, "invalid_args"),
                (staff, "open_session", {"machine_kind": "drum"}, "invalid_args"),
                (staff, "open_session", {"machine_id": "OTRA-9"}, "invalid_args"),
                (
                    locutor,
                    "call_claim",
                    {"kind": "line", "series_id": "Z9", "card_number": 1},
                    "unknown_card",
                ),
                (
                    locutor,
                    "call_claim",
                    {"kind": "nope", "series_id": "A1", "card_number": 1},
                    "invalid_args",
                ),
                (
                    locutor,
                    "call_claim",
                    {"kind": "line", "series_id": "A1", "card_number": 2**64},
                    "invalid_args",
                ),
            ]
            for client, name, args, code in cases:
                answer = await client.command(name, **args)
                assert not answer["success"] and answer["error"]["code"] == code, (name, answer)
                assert answer["error"]["message"]
            assert hub.runtime.service.seq == head
            await connection.send("x" * 70_000)  # over the 64 KiB frame limit
            with pytest.raises(ConnectionClosed) as closed:
                await connection.recv()
            assert closed.value.rcvd.code == 1009
            assert (await locutor.command("draw_ball"))["success"]  # the hub stays up

    run(scenario())


def test_a_subscriber_that_falls_behind_is_dropped_without_holding_up_the_others(store):
    """The fan-out itself: a stuck sender's bounded queue overflows; a live one keeps up."""

    async def scenario():
        from support.demo import open_log

        url, _, _ = store
        log = open_log(url)
        try:
            fanout = Fanout(log, "sala-1")
            stuck, live = Subscriber(0, maxsize=5), Subscriber(0, maxsize=5)
            received: list[str] = []
            never = asyncio.Event()

            async def blocked_send(frame: str) -> None:
                await never.wait()

            async def live_send(frame: str) -> None:
                received.append(frame)

            stuck_task = asyncio.create_task(fanout.serve(stuck, blocked_send))
            live_task = asyncio.create_task(fanout.serve(live, live_send))
            await asyncio.sleep(0.05)
            from datetime import UTC, datetime

            from bingo_hall.store import NewEvent

            for n in range(20):
                envelope = log.append(
                    "sala-1", [NewEvent(None, None, "t", {"n": n}, datetime.now(UTC), "x")]
                )[0]
                fanout.publish(envelope)
                await asyncio.sleep(0)
            with pytest.raises(TooSlow):
                await asyncio.wait_for(stuck_task, 5)
            await asyncio.sleep(0.05)
            assert len(received) == 20 and not live.overflow.is_set()
            live_task.cancel()
        finally:
            log.engine.dispose()

    run(scenario())


def test_each_ball_is_announced_before_the_panels_show_it(store):
    """Spec §5: the number is announced first (caller channel), then shown (panel channel)."""

    async def scenario():
        async with (
            running_hub(*store, display_delay=0.6) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
            Client.login(hub.url, token=hub.monitor_token) as caller,
            Client.login(hub.url, token=hub.monitor_token) as panel,
            Client.login(hub.url, token=hub.monitor_token) as late_panel,
        ):
            await open_game(staff, locutor)
            head = hub.runtime.service.seq
            await caller.request({"type": "subscribe", "after_seq": head, "channel": "caller"})
            await panel.request({"type": "subscribe", "after_seq": head, "channel": "panel"})
            loop = asyncio.get_running_loop()
            drawn_at = loop.time()
            await locutor.ok("draw_ball")
            announced = await caller.events(1)
            heard = loop.time() - drawn_at
            shown = await panel.events(1)
            seen = loop.time() - drawn_at
            assert announced[0]["event"] == shown[0]["event"] == "ball_drawn"
            assert announced[0]["seq"] == shown[0]["seq"]
            assert heard < 0.5 <= seen

            # A panel reconnecting just after a ball catches up from the log: it too shows the
            # ball only once the delay after its call has passed.
            drawn_at = loop.time()
            await locutor.ok("draw_ball")
            head = hub.runtime.service.seq
            await late_panel.request(
                {"type": "subscribe", "after_seq": head - 1, "channel": "panel"}
            )
            caught_up = await late_panel.events(1)
            assert caught_up[0]["event"] == "ball_drawn" and caught_up[0]["seq"] == head
            assert loop.time() - drawn_at >= 0.5

    run(scenario())


def test_a_subscription_the_store_fails_to_serve_closes_the_connection_to_resume(store):
    """A panel must never be left subscribed to nothing: when its catch-up cannot be read (here
    the log's table gone from under the hub), the hub closes it with 1011 and logs why."""

    async def scenario():
        url = store[0]
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, token=hub.monitor_token) as panel,
        ):
            with sqlite3.connect(url.removeprefix("sqlite:///")) as database:
                database.execute("ALTER TABLE event_log RENAME TO event_log_gone")
            answer = await panel.request({"type": "subscribe", "after_seq": 0})
            assert answer["success"]
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(panel.connection.recv(), 10)
            assert closed.value.rcvd.code == 1011
            assert "resume" in closed.value.rcvd.reason

    run(scenario())


def test_a_game_is_not_opened_on_series_that_print_a_card_twice(store):
    """Spec §2.1: a card printed twice would win one combination twice over. A series
    imported with another's cards (here B1, A1's first ten cards under new numbers) is refused
    for a game beside it, naming the cards; alone it may be sold."""
    from bingo_hall.store.cards import CardStore
    from support.demo import open_log

    url = store[0]
    log = open_log(url)
    try:
        cards = CardStore(log.engine)
        copied = cards.grids("A1", 1, 10)
        records = [
            {"number": n, "grid": [list(row) for row in copied[n]], "code": f"copia-{n}"}
            for n in range(1, 11)
        ]
        cards.import_records("B1", "1.50", 10, "b1-commitment", records)
    finally:
        log.engine.dispose()

    async def scenario():
        async with (
            running_hub(*store) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-BOLAS-0001")
            await staff.ok("open_session")
            await staff.ok("record_equipment_check", ok=True)
            await staff.ok("change_ball_set", ball_set_id="JB-1", reason="puesta en servicio")
            await staff.ok("load_balls")
            for series_id, size in (("A1", 120), ("B1", 10)):
                await staff.ok("register_series", series_id=series_id, face_value="1.50", size=size)
            head = hub.runtime.service.seq
            answer = await staff.command("announce_series", series=["A1", "B1"])
            assert answer["error"]["code"] == "duplicate_cards"
            repeated = re.findall(r"A1-(\d+) = B1-(\d+)", answer["error"]["message"])
            assert len(repeated) == 5 and all(a == b for a, b in repeated)
            assert hub.runtime.service.seq == head  # nothing written
            await staff.ok("announce_series", series=["B1"])

    run(scenario())
