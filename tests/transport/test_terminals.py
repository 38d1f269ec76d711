"""Auxiliary terminals (spec §8): whole blocks in the open sale, at most 6 per machine (whatever
player names it gives), their own cards only, who bought kept from other devices, and the hall
category's cap on terminals."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from websockets.exceptions import ConnectionClosed

from bingo_hall.hub.auth import Principal, Role
from bingo_hall.store.credentials import CredentialStore
from bingo_hall.transport.messages import CLOSE_REPLACED
from support.aio import run_async as run
from support.cli import REPO, hall
from support.demo import open_log
from support.hub import PASSWORD, Client, open_game, open_sale, prepare_store, running_hub


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)
    log = open_log(url)
    try:
        credentials = CredentialStore(log.engine)
        tokens = {
            name: credentials.add_device(name, "terminal")
            for name in ("term-1", "term-2", "term-3")
        }
    finally:
        log.engine.dispose()
    return url, token, series, tokens


async def _sales(url: str, count: int, **auth: str) -> list[dict]:
    """The first `count` sale_recorded events of the log, as these credentials see them."""
    sales: list[dict] = []
    async with Client.login(url, **auth) as client:
        await client.request({"type": "subscribe", "after_seq": 0, "channel": "panel"})
        while len(sales) < count:
            sales += [e for e in await client.events(1) if e["event"] == "sale_recorded"]
    return sales


def test_a_terminal_buys_blocks_sees_its_cards_and_claims_only_with_them(store):
    url, token, series, tokens = store

    async def scenario():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as seller,
            Client.login(hub.url, token=tokens["term-1"]) as one,
            Client.login(hub.url, token=tokens["term-2"]) as two,
        ):
            await open_sale(staff)
            # a terminal buys the next whole block: it cannot pick cards, and is told so
            picked = await one.command("buy_cards", player="ana", series_id="A1", first=61)
            assert picked["error"] == {
                "code": "invalid_args",
                "message": "buy_cards: unknown argument 'first'",
                "reason": "unknown_argument",
                "params": {
                    "command": {"key": "command.buy_cards", "text": "buy_cards"},
                    "field": "'first'",
                },
            }
            junk = await one.command("my_cards", all=True)
            assert junk["error"]["message"] == "my_cards: unknown argument 'all'"
            for _ in range(6):
                await one.ok("buy_cards", player="ana", series_id="A1")
            # the limit is the machine's: another name at the same machine buys no more
            for player in ("ana", "luis"):
                refused = await one.command("buy_cards", player=player, series_id="A1")
                assert not refused["success"] and refused["error"]["message"] == (
                    "terminal term-1 already plays 6 series in this game; the limit per machine "
                    "and player is 6"
                )
            await two.ok("buy_cards", player="eva", series_id="A1")
            # staff record sales; only a terminal's purchase names a buyer, and the hub names it
            posing = await seller.command(
                "record_sale", series_id="A1", first=43, last=48, buyer="term-2/eva"
            )
            assert posing["error"] == {
                "code": "invalid_args",
                "message": "record_sale: buyer: only a terminal's purchase (buy_cards) names one",
                "reason": "filled_by_hub",
                "params": {
                    "command": {"key": "command.record_sale", "text": "record_sale"},
                    "field": "buyer",
                    "why": "only a terminal's purchase (buy_cards) names one",
                },
            }
            mine = await one.ok("my_cards")
            assert mine["count"] == 36
            assert [c["number"] for c in mine["cards"]] == list(range(1, 37))
            assert {c["player"] for c in mine["cards"]} == {"ana"}
            assert mine["cards"][0]["grid"] == [list(r) for r in series.card(1)]
            assert (await two.ok("my_cards"))["count"] == 6
            # who bought is the staff's to see, not another terminal's (or a monitor's)
            sales = await _sales(hub.url, 7, user="sala", password=PASSWORD)
            seen = await _sales(hub.url, 7, token=tokens["term-3"])  # a terminal: one link
            assert [e["payload"]["buyer"] for e in sales] == ["term-1/ana"] * 6 + ["term-2/eva"]
            assert [e["payload"] for e in seen] == [{"sale": e["payload"]["sale"]} for e in sales]
            assert [e["actor"] for e in seen] == ["term-1"] * 6 + ["term-2"]
            # nor can they test guesses at it against the hash of the whole payload
            assert all(e["hash"] for e in sales) and all(e["hash"] is None for e in seen)
            await staff.ok("close_sale")
            await staff.ok("announce_prizes")
            await staff.ok("start_draw")
            await hub.runtime.execute(
                Principal("locutor", Role.VENDEDOR_LOCUTOR, "staff"), "draw_ball", {}
            )
            theirs = await two.command("call_claim", kind="line", series_id="A1", card_number=1)
            assert not theirs["success"] and theirs["error"]["code"] == "forbidden"
            unsold = await one.command("call_claim", kind="line", series_id="A1", card_number=100)
            assert not unsold["success"] and unsold["error"]["code"] == "forbidden"
            drawn = hub.runtime.service.state.game.calls[0]
            marked = await one.ok("my_cards")
            for card in marked["cards"]:
                numbers = {n for row in card["grid"] for n in row if n}
                assert card["marked"] == ([drawn] if drawn in numbers else [])
                assert card["bingo_needs"] == 15 - len(card["marked"])
                assert card["line_needs"] == 5 - any(drawn in row for row in card["grid"])
            # a terminal marks its cards: it claims only what a card holds with the balls
            # announced (no stopping the draw for nothing, card after card, ball after ball)
            early = await one.command("call_claim", kind="line", series_id="A1", card_number=3)
            assert early["error"]["code"] == "not_complete", early
            assert (
                "card A1-3 does not hold a line with the numbers announced"
                in (early["error"]["message"])
            )
            locutor = Principal("locutor", Role.VENDEDOR_LOCUTOR, "staff")
            while not [c for c in (await one.ok("my_cards"))["cards"] if c["line_needs"] == 0]:
                await hub.runtime.execute(locutor, "draw_ball", {})
            (full, *_) = [c for c in (await one.ok("my_cards"))["cards"] if c["line_needs"] == 0]
            assert full["bingo_needs"] > 0
            bingo = await one.command(
                "call_claim", kind="bingo", series_id="A1", card_number=full["number"]
            )
            assert bingo["error"]["code"] == "not_complete"
            own = await one.command(
                "call_claim", kind="line", series_id="A1", card_number=full["number"]
            )
            assert own["success"], own  # called (and verified as any claim)

            # once the game is over, a terminal reloaded still finds the player's cards (and so
            # the prizes they won) until another game begins
            await staff.ok("verify_claims")
            await staff.ok("void_game", reason="announcement_error", note="prueba")
            ended = await one.ok("my_cards")
            assert ended["game"] == 1 and ended["count"] == 36
            await staff.ok("announce_series", series=["A1"])
            assert await one.ok("my_cards") == {"game": 2, "count": 0, "cards": []}

    run(scenario())


def test_a_purchase_sent_again_after_its_answer_was_lost_buys_one_block(store):
    """A terminal names each purchase; the answer lost with the connection (the hub had
    already recorded the sale), the purchase sent again, even to a hub started anew, is
    answered with the block bought then, and the player pays once."""
    url, token, series, tokens = store
    purchase = "f3a9c1d2e4b5a6c7"

    async def buy_and_drop(hub_url: str) -> None:
        async with Client.login(hub_url, token=tokens["term-1"]) as terminal:
            body = {"type": "command", "command": "buy_cards", "id": 1}
            args = {"player": "ana", "series_id": "A1", "purchase": purchase}
            await terminal.connection.send(json.dumps({**body, "args": args}))
        # closed without reading the answer

    async def first_hub():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
        ):
            await open_sale(staff)
            await buy_and_drop(hub.url)
            while not hub.runtime.service.state.game.holdings:
                await asyncio.sleep(0.05)
            async with Client.login(hub.url, token=tokens["term-1"]) as terminal:
                again = await terminal.ok(
                    "buy_cards", player="ana", series_id="A1", purchase=purchase
                )
                assert again == {
                    "events": [],
                    "sale": {"series_id": "A1", "first": 1, "last": 6, "player": "ana", "game": 1},
                    "repeated": True,
                }
                assert (await terminal.ok("my_cards"))["count"] == 6

    async def second_hub():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, token=tokens["term-1"]) as one,
            Client.login(hub.url, token=tokens["term-2"]) as two,
            Client.login(hub.url, user="locutor", password=PASSWORD) as seller,
        ):
            # the name is kept in the log: a hub started anew knows the purchase
            again = await one.ok("buy_cards", player="ana", series_id="A1", purchase=purchase)
            assert again["repeated"] and again["sale"]["first"] == 1
            # the name is the machine's: another terminal's purchase of that name is its own
            theirs = await two.ok("buy_cards", player="eva", series_id="A1", purchase=purchase)
            assert theirs["repeated"] is False
            assert theirs["sale"] == {
                "series_id": "A1",
                "first": 7,
                "last": 12,
                "player": "eva",
                "game": 1,
            }
            # one name, one purchase: sent for another series or player it is refused
            other = await one.command("buy_cards", player="luis", series_id="A1", purchase=purchase)
            assert other["error"] == {
                "code": "invalid_args",
                "message": "buy_cards: purchase f3a9c1d2e4b5a6c7 bought series A1 for ana; a new "
                "purchase needs a new name",
                "reason": "purchase_name_taken",
                "params": {"purchase": "f3a9c1d2e4b5a6c7", "series": "A1", "player": "ana"},
            }
            for bad in ("short", "a" * 65, "spaces in it", 12345678):
                refused = await one.command("buy_cards", player="ana", series_id="A1", purchase=bad)
                assert refused["error"] == {
                    "code": "invalid_args",
                    "message": "buy_cards: purchase must be 8-64 letters, digits, '-' or '_'",
                    "reason": "purchase_form",
                    "params": {},
                }
            fresh = await one.ok(
                "buy_cards", player="ana", series_id="A1", purchase="second-one", game=1
            )
            assert fresh["sale"]["first"] == 13 and fresh["repeated"] is False
            # a purchase names the game it is for: one the hub never got is not made in another
            for game in (2, True, "1"):
                late = await one.command(
                    "buy_cards", player="ana", series_id="A1", purchase="never-got", game=game
                )
                assert late["error"] == {
                    "code": "invalid_args",
                    "message": f"buy_cards: game {game!r} is not the game on sale (game 1)",
                    "reason": "not_the_game_on_sale",
                    "params": {"game": repr(game), "on_sale": 1},
                }
            # a staff sale names no purchase
            posing = await seller.command(
                "record_sale", series_id="A1", first=19, last=24, purchase="staff-sale-1"
            )
            assert posing["error"]["message"] == (
                "record_sale: purchase: only a terminal's purchase (buy_cards) names one"
            )
            state = hub.runtime.service.state
            assert [(h.buyer, h.first, h.purchase) for h in state.game.holdings] == [
                ("term-1/ana", 1, purchase),
                ("term-2/eva", 7, purchase),
                ("term-1/ana", 13, "second-one"),
            ]
            assert state.game.takings == 18 * state.series["A1"].face_value

    async def next_game():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, token=tokens["term-1"]) as one,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
        ):
            await staff.ok("close_sale")
            await staff.ok("void_game", reason="equipment_breakdown", note="avería")
            await staff.ok("announce_series", series=["A1"])
            await staff.ok("start_sale")
            # game 1's purchase, its answer lost, found in the game that ended: not bought again
            again = await one.ok(
                "buy_cards", player="ana", series_id="A1", purchase=purchase, game=1
            )
            assert again["repeated"] and again["sale"]["game"] == 1
            assert hub.runtime.service.state.game.holdings == ()
            lost = await one.command(
                "buy_cards", player="ana", series_id="A1", purchase="never-got", game=1
            )
            assert lost["error"]["message"] == (
                "buy_cards: game 1 is not the game on sale (game 2)"
            )

    run(first_hub())
    run(second_hub())
    run(next_game())


def test_a_terminal_works_from_one_connection_and_a_new_login_closes_the_old(store):
    """A copied terminal token shows: its login closes the connection the terminal had (4009),
    where a monitor or a staff user may be open on several screens."""
    url, token, series, tokens = store

    async def closed_with(client: Client) -> int | None:
        try:
            while True:
                await asyncio.wait_for(client.connection.recv(), 5)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None

    log = open_log(url)
    try:  # a staff user named like a terminal is someone else
        CredentialStore(log.engine).add_user("term-1", "auxiliar_de_sala", PASSWORD)
    finally:
        log.engine.dispose()

    async def scenario():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, user="term-1", password=PASSWORD) as namesake,
            Client.login(hub.url, token=tokens["term-1"]) as first,
            Client.login(hub.url, token=token) as panel,
            Client.login(hub.url, user="sala", password=PASSWORD) as sala,
            # then each logs in again
            Client.login(hub.url, token=tokens["term-1"]) as second,
            Client.login(hub.url, token=token) as other_panel,
            Client.login(hub.url, user="sala", password=PASSWORD) as other_sala,
        ):
            # the old screen gives nothing once the new one is in: its purchase is not made
            await open_sale(sala)
            buy = {"player": "ana", "series_id": "A1"}
            frame = {"type": "command", "id": 99, "command": "buy_cards", "args": buy}
            with contextlib.suppress(ConnectionClosed):
                await first.connection.send(json.dumps(frame))
            assert await closed_with(first) == CLOSE_REPLACED
            assert hub.runtime.service.state.game.holdings == ()
            assert (await second.ok("my_cards"))["count"] == 0
            for client in (panel, other_panel, sala, other_sala, namesake):
                answer = await client.request({"type": "ping"})
                assert answer["type"] == "pong"
            assert hub.server is not None
            live = sorted(s.principal.id for s in hub.server.sessions)
            assert live == ["mon-1", "mon-1", "sala", "sala", "term-1", "term-1"]
            # another terminal is another device
            async with Client.login(hub.url, token=tokens["term-2"]) as two:
                assert (await two.ok("my_cards"))["count"] == 0
                assert (await second.ok("my_cards"))["count"] == 0

    run(scenario())


def test_terminals_need_a_profile_with_auxiliary_machines(store):
    url, token, series, tokens = store

    async def scenario():
        async with (
            running_hub(url, token, series, profile="1979") as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, token=tokens["term-1"]) as terminal,
        ):
            await open_sale(staff)
            answer = await terminal.command("buy_cards", player="ana", series_id="A1")
            assert not answer["success"] and "no auxiliary terminals" in answer["error"]["message"]
            forbidden = await terminal.command("record_sale", series_id="A1", first=1, last=6)
            assert forbidden["error"]["code"] == "forbidden"

    run(scenario())


def test_the_hall_category_caps_the_number_of_terminals(tmp_path):
    config = tmp_path / "hall.toml"
    profiles = REPO / "config" / "profiles"
    config.write_text(
        f'hall_id = "sala-9"\nprofile = "basque"\nprofiles_dir = "{profiles}"\n'
        f'category = "third"\n[store]\nurl = "sqlite:///{tmp_path / "h.sqlite"}"\n'
    )
    results = [
        hall("device-add", f"term-{k}", "--kind", "terminal", "--config", str(config))
        for k in range(1, 8)
    ]
    assert [r.returncode for r in results] == [0] * 6 + [2]
    assert "third-category hall under profile basque may have 6" in results[-1].stderr


def test_a_terminal_sees_each_ball_when_the_panels_do(store):
    """The caller's channel has each ball before the panels: a terminal may not take it."""
    url, token, series, tokens = store

    async def scenario():
        async with (
            running_hub(url, token, series, profile="basque") as hub,
            Client.login(hub.url, token=tokens["term-1"]) as terminal,
            Client.login(hub.url, token=hub.monitor_token) as speaker,
        ):
            early = await terminal.request(
                {"type": "subscribe", "after_seq": 0, "channel": "caller"}
            )
            assert (
                early["error"]["code"] == "forbidden"
                and "channel panel" in early["error"]["message"]
            )
            panel = await terminal.request(
                {"type": "subscribe", "after_seq": 0, "channel": "panel"}
            )
            assert panel["success"]
            sound = await speaker.request(
                {"type": "subscribe", "after_seq": 0, "channel": "caller"}
            )
            assert sound["success"]  # a monitor speaks each number before the panels show it

    run(scenario())


def test_the_next_ball_is_drawn_only_once_the_panels_show_the_last(store):
    """§5 G4: a ball is announced, then shown on the panels, then the next one drawn. A draw
    sent before the panels show the last ball (a second control page, a client) is refused
    and records nothing, so that no terminal ever counts a ball the panels have not shown."""
    url, token, series, _ = store
    delay = 1.5

    async def scenario():
        async with (
            running_hub(url, token, series, display_delay=delay) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            await open_game(staff, locutor)
            await locutor.ok("draw_ball")
            first = hub.runtime.service.state.game.calls[-1]
            seq = hub.runtime.service.seq
            early = await locutor.command("draw_ball")
            assert early["error"]["code"] == "rule_error", early
            assert f"ball {first} is not on the hall's panels yet" in early["error"]["message"]
            assert hub.runtime.service.seq == seq
            await asyncio.sleep(delay)
            await locutor.ok("draw_ball")
            assert len(hub.runtime.service.state.game.calls) == 2
        # a hub started again at once still waits for the panels to show the last ball
        async with (
            running_hub(url, token, series, display_delay=delay) as hub,
            Client.login(hub.url, user="locutor", password=PASSWORD) as locutor,
        ):
            early = await locutor.command("draw_ball")
            assert early["error"]["code"] == "rule_error", early
            await asyncio.sleep(delay)
            await locutor.ok("draw_ball")
            assert len(hub.runtime.service.state.game.calls) == 3

    run(scenario())


def test_a_terminal_marks_a_ball_only_once_the_panels_show_it(store):
    """`my_cards` and the claims a terminal makes go by the balls the panels show: the last
    one only after the display delay, as the panel channel gets it."""
    url, token, series, tokens = store
    delay = 2.0

    async def scenario():
        async with (
            running_hub(url, token, series, profile="basque", display_delay=delay) as hub,
            Client.login(hub.url, user="sala", password=PASSWORD) as staff,
            Client.login(hub.url, token=tokens["term-1"]) as terminal,
        ):
            await open_sale(staff)
            for _ in range(6):
                await terminal.ok("buy_cards", player="ana", series_id="A1")
            for command in ("close_sale", "announce_prizes", "start_draw"):
                await staff.ok(command)
            locutor = Principal("locutor", Role.VENDEDOR_LOCUTOR, "staff")
            while True:  # a ball on one of the terminal's cards
                await hub.runtime.execute(locutor, "draw_ball", {})
                ball = hub.runtime.service.state.game.calls[-1]
                early = (await terminal.ok("my_cards"))["cards"]
                holding = [c for c in early if ball in {n for row in c["grid"] for n in row}]
                if holding:
                    break
                await asyncio.sleep(delay)
            assert not [c for c in early if ball in c["marked"]]  # not yet on the panels
            await asyncio.sleep(delay)
            later = (await terminal.ok("my_cards"))["cards"]
            marked = [c["number"] for c in later if ball in c["marked"]]
            assert marked == [c["number"] for c in holding]

    run(scenario())
