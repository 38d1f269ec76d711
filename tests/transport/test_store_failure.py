"""The database going away under a running hub: each command it cannot record is answered
`store_failed` (never a dropped connection), a refusal the rules give from what the hub knows
stands, the pages' data and a camera frame say the store failed (503), nothing is recorded,
and once the database is back the same connections go on."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from support.aio import run_async
from support.databases import fresh_database_url, postgresql_unreachable
from support.hub import PASSWORD, Client, hall_staff, open_game, prepare_store, running_hub
from support.serve import api_hall


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_database_gone_is_answered_store_failed_and_play_goes_on_when_it_is_back():
    with fresh_database_url("postgresql") as url:
        token, series = prepare_store(url)

        async def scenario() -> None:
            async with running_hub(url, token, series) as hub, hall_staff(hub) as staff_etc:
                staff, mesa, locutor, monitor = staff_etc
                await open_game(staff, locutor)
                port = int(hub.http.rsplit(":", 1)[1])
                assert (await asyncio.to_thread(api_hall, port, "mesa", PASSWORD))[0] == 200
                seq = hub.runtime.service.seq
                with postgresql_unreachable(url):
                    failed = await locutor.command("draw_ball")
                    assert failed["success"] is False, failed
                    error = failed["error"]
                    assert error["code"] == "store_failed", error
                    assert "look at the hall's state before giving it again" in error["message"]
                    assert "INSERT" not in error["message"] and "\n" not in error["message"]
                    refused = await staff.command("start_sale")  # the rules refuse it anyway
                    assert refused["error"]["code"] == "wrong_phase", refused
                    request = await mesa.command(
                        "record_player_request", kind="information", text="¿Premio?"
                    )
                    assert request["error"]["code"] == "store_failed", request
                    for user in ("mesa", "sala"):  # a login remembered, and one to check
                        status, body = await asyncio.to_thread(api_hall, port, user, PASSWORD)
                        assert status == 503 and body["error"]["code"] == "store_failed", body
                    async with connect(hub.url) as unchecked:  # a login the store cannot check
                        await unchecked.recv()
                        await unchecked.send(json.dumps({"type": "auth", "token": "mon-x.y"}))
                        with pytest.raises(ConnectionClosed):
                            await unchecked.recv()
                        assert unchecked.close_code == 1011  # try again, not a refused login
                        assert unchecked.close_reason == "the hall's store failed: try again"
                    refused = await monitor.request({"type": "subscribe", "after_seq": seq})
                    assert refused["error"]["code"] == "store_failed", refused
                    frame = await asyncio.to_thread(_get, f"{hub.http}/frames/{'0' * 64}.jpg")
                    assert frame[0] == 503 and frame[1]["error"]["code"] == "store_failed"
                    assert hub.runtime.service.seq == seq
                # a login the store failed to check is checked again, not refused from memory
                status, _ = await asyncio.to_thread(api_hall, port, "sala", PASSWORD)
                assert status == 200
                drawn = await locutor.ok("draw_ball")  # the same connection, the store back
                assert [event["seq"] for event in drawn["events"]] == [seq + 1]
                async with Client.login(hub.url, user="mesa", password=PASSWORD) as again:
                    assert (await again.request({"type": "ping"}))["type"] == "pong"

        run_async(scenario(), timeout=120)
