"""The regulator's inspector: a staff user who reads what the acta's keepers read (the acta,
the players' complaints, each event's hash to check the chain) and gives no command."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from bingo_hall.hub.auth import KNOWN_COMMANDS
from bingo_hall.store.credentials import CredentialStore
from support.aio import run_async as run
from support.demo import open_log
from support.hub import PASSWORD, Client, announce_game, hall_staff, prepare_store, running_hub
from support.serve import staff_api


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    prepared = prepare_store(url)
    log = open_log(url)
    try:
        CredentialStore(log.engine).add_user("inspeccion", "inspector", PASSWORD)
    finally:
        log.engine.dispose()
    return (url, *prepared)


def test_the_inspector_reads_the_acta_and_the_complaints_and_gives_no_command(store):
    async def scenario() -> None:
        async with (
            running_hub(*store) as hub,
            hall_staff(hub) as (staff, mesa, _locutor, _monitor),
            Client.login(hub.url, user="inspeccion", password=PASSWORD) as inspector,
        ):
            welcome = inspector.welcome
            assert (welcome["role"], welcome["commands"], welcome["acta"]) == (
                "inspector",
                [],
                True,
            )
            assert "table_commands" not in welcome  # none at any table either
            await staff.ok("register_ball_set", ball_set_id="JB-1", homologation="CNJ-B-1")
            await announce_game(staff)
            await mesa.ok(
                "record_player_request", kind="complaint", player="Ana", text="No oyó el 45"
            )
            seq = hub.runtime.service.seq
            for name in sorted(KNOWN_COMMANDS):
                refused = await inspector.command(name)
                assert refused["error"]["code"] == "forbidden", (name, refused)
                assert refused["error"]["reason"] == "read_only_role"
                assert refused["error"]["message"].endswith("who gives none (read only)")
            assert hub.runtime.service.seq == seq  # nothing was written

            await inspector.request({"type": "subscribe", "after_seq": 0})
            seen = await inspector.events(seq)
            complaint = seen[-1]
            assert complaint["event"] == "player_request_recorded"
            assert complaint["payload"]["text"] == "No oyó el 45"
            assert all(event["hash"] for event in seen)  # the chain, to check it
            service = hub.runtime.service
            logged = await asyncio.to_thread(service.log.read, service.hall_id)
            assert [event["hash"] for event in seen] == [envelope.hash for envelope in logged]

            port = urlsplit(hub.http).port
            acta = await asyncio.to_thread(
                staff_api, port, "/api/acta?session=1", "inspeccion", PASSWORD
            )
            assert acta[0] == 200 and acta[1]["acta"]["chain"]["ok"]
            assert "No oyó el 45" in acta[1]["text"]
            status, registers = await asyncio.to_thread(
                staff_api, port, "/api/hall", "inspeccion", PASSWORD
            )
            assert status == 200
            assert [r["text"] for r in registers["open_requests"]] == ["No oyó el 45"]
            cashier = await asyncio.to_thread(
                staff_api, port, "/api/acta?session=1", "caja", PASSWORD
            )
            assert cashier[0] == 403

    run(scenario())
