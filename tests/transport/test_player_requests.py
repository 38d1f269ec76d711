"""Players' requests for information and complaints through the protocol: the Jefe de Mesa
takes them down and answers them; devices learn only that one was made."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from support.aio import run_async as run
from support.hub import PASSWORD, Client, announce_game, hall_staff, prepare_store, running_hub
from support.serve import api_hall


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    return (url, *prepare_store(url))


def test_the_jefe_de_mesa_answers_a_complaint_and_only_the_actas_keepers_read_it(store):
    """The Jefes take down and answer a complaint; a monitor, and the cashier (who does not keep
    the acta), learn only that one was made, on the websocket and in the registers."""

    async def scenario() -> None:
        async with (
            running_hub(*store) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, monitor),
            Client.login(hub.url, user="caja", password=PASSWORD) as caja,
        ):
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-B-1")
            await announce_game(staff)
            for watcher in (monitor, caja):
                await watcher.request({"type": "subscribe", "after_seq": hub.runtime.service.seq})
            seq = hub.runtime.service.seq
            for args, message in (
                ({"kind": "complaint", "text": "   "}, "record_player_request: text: "),
                ({"kind": "quarrel", "text": "x"}, "record_player_request: kind: "),
                ({"kind": "complaint", "text": "x" * 2001}, "record_player_request: text: "),
                # a line of its own in the acta: refused
                (
                    {"kind": "complaint", "text": "x\nCierre de la sesión"},
                    "record_player_request: text: ",
                ),
                (
                    {"kind": "complaint", "text": "x", "player": "a\rb"},
                    "record_player_request: player: ",
                ),
            ):
                refused = await mesa.command("record_player_request", **args)
                assert refused["error"]["code"] == "invalid_args"
                assert refused["error"]["message"].startswith(message), refused
            forbidden = await caja.command("record_player_request", kind="complaint", text="x")
            assert forbidden["error"]["code"] == "forbidden"
            assert hub.runtime.service.seq == seq  # nothing was written

            port = urlsplit(hub.http).port
            recorded = await mesa.ok(
                "record_player_request",
                kind="complaint",
                player="Ana, cartón A1 nº 17",
                text="No oyó el 45",
            )
            assert [e["type"] for e in recorded["events"]] == ["player_request_recorded"]
            request_id = hub.runtime.service.state.player_requests
            assert request_id == 1
            answered = await mesa.ok(
                "answer_player_request", request_id=request_id, answer="Se repitió el 45"
            )
            assert [e["type"] for e in answered["events"]] == ["player_request_answered"]
            again = await staff.command("answer_player_request", request_id=1, answer="otra")
            assert again["error"]["code"] == "rule_error"
            assert "already been answered" in again["error"]["message"]

            for watcher in (monitor, caja):
                seen = await watcher.events(2)
                assert [(e["event"], e["payload"]) for e in seen] == [
                    ("player_request_recorded", {"request_id": 1, "kind": "complaint"}),
                    ("player_request_answered", {"request_id": 1}),
                ]
                assert all(e["hash"] is None for e in seen)

            await mesa.ok("record_player_request", kind="information", text="¿Hay descanso?")
            _, kept = await asyncio.to_thread(api_hall, port, "mesa", PASSWORD)
            assert [(r["request_id"], r["text"]) for r in kept["open_requests"]] == [
                (2, "¿Hay descanso?")
            ]
            _, cashier = await asyncio.to_thread(api_hall, port, "caja", PASSWORD)
            assert cashier["open_requests"] == []

    run(scenario())
