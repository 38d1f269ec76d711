"""A voided game's cards refunded through the protocol: the Cajero pays ranges of them (in a
later session too), the hub refuses what the rules refuse and writes nothing, every audience
sees the refund whole (it names no player), and the registers say what is still owed."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from support.aio import run_async as run
from support.hub import PASSWORD, Client, hall_staff, open_sale, prepare_store, running_hub
from support.serve import api_hall


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    return (url, *prepare_store(url))


def test_the_cajero_refunds_a_voided_games_cards_over_the_websocket(store):
    async def scenario() -> None:
        async with (
            running_hub(*store) as hub,
            hall_staff(hub) as (staff, mesa, locutor, monitor),
            Client.login(hub.url, user="caja", password=PASSWORD) as caja,
        ):
            port = urlsplit(hub.http).port
            await open_sale(staff)
            await locutor.ok("record_sale", series_id="A1", first=1, last=60)
            not_yet = await caja.command("pay_refund", game_id=1, series_id="A1", first=1, last=6)
            assert not_yet["error"]["code"] == "rule_error"
            assert "game 1 was not voided" in not_yet["error"]["message"]
            await mesa.ok("void_game", reason="equipment_breakdown", note="Avería del soplador")
            await monitor.request({"type": "subscribe", "after_seq": hub.runtime.service.seq})

            paid = await caja.ok("pay_refund", game_id=1, series_id="A1", first=1, last=6)
            assert [e["type"] for e in paid["events"]] == ["refund_paid"]
            (seen,) = await monitor.events(1)  # a refund names no player: a device sees it whole
            assert (seen["event"], seen["payload"]) == (
                "refund_paid",
                {
                    "game_id": 1,
                    "series_id": "A1",
                    "first": 1,
                    "last": 6,
                    "cards": 6,
                    "amount": "9.00",
                },
            )
            assert (seen["session"], seen["game"], seen["actor"]) == (1, 1, "caja")

            seq = hub.runtime.service.seq
            for args, code, message in (
                ({"first": 6, "last": 8}, "rule_error", "A1 nº 6 of game 1 has already been"),
                ({"first": 55, "last": 61}, "rule_error", "not all sold in game 1"),
                ({"first": 0, "last": 3}, "invalid_args", "pay_refund: first: "),
            ):
                refused = await caja.command("pay_refund", game_id=1, series_id="A1", **args)
                assert refused["error"]["code"] == code, refused
                assert message in refused["error"]["message"], refused
            forbidden = await locutor.command(
                "pay_refund", game_id=1, series_id="A1", first=7, last=7
            )
            assert forbidden["error"]["code"] == "forbidden"
            assert hub.runtime.service.seq == seq  # nothing was written

            _, registers = await asyncio.to_thread(api_hall, port, "caja", PASSWORD)
            (owed,) = registers["refunds"]
            assert (owed["game_id"], owed["session_id"]) == (1, 1)
            assert [(r["first"], r["last"], r["amount"]) for r in owed["owed"]] == [
                (7, 60, "81.00")
            ]
            assert (owed["refund_total"], owed["paid_total"], owed["owed_total"]) == (
                "90.00",
                "9.00",
                "81.00",
            )

            # the session closes with cards owed; the next one refunds them
            await staff.ok("close_session")
            await staff.ok("open_session")
            await caja.ok("pay_refund", game_id=1, series_id="A1", first=7, last=60)
            assert hub.runtime.service.seq == seq + 3
            _, registers = await asyncio.to_thread(api_hall, port, "sala", PASSWORD)
            (settled,) = registers["refunds"]
            assert settled["owed"] == [] and Decimal(settled["owed_total"]) == 0
            assert [p["last"] for p in settled["paid"]] == [6, 60]

    run(scenario())
