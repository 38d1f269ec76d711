"""Who heads a table: a head each (N79 L117-121), or one head or inspector for up to four tables
of one sector (EUS L224, L650, L1505); the table records its head and who relieves whom."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tables_support import NOW, PROFILES, Table, default_choice, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.decide import decide
from bingo_hall.tables.evolve import evolve, replay
from bingo_hall.tables.heads import HeadedTable, heading_problem
from bingo_hall.tables.profiles import GameName, Role
from bingo_hall.tables.state import TableState


def test_every_catalogue_gives_a_head_to_each_table_but_the_basque_one_to_four():
    per_head = {
        (profile, game.value): rules.tables_per_head
        for profile, catalogue in PROFILES.items()
        for game, rules in catalogue.games.items()
    }
    assert {k: v for k, v in per_head.items() if v != 1} == {
        ("basque", game): 4
        for game in ("french-roulette", "american-roulette", "boule", "wheel-of-fortune")
    }


def test_a_table_records_its_head_and_who_relieves_whom():
    t = table("1979", "french-roulette")
    table_ = Table(t, rotation=())
    assert table_.state.head is None  # the director opened it
    (taken,) = table_.do(c.TakeTable(head="jmj"))
    assert (taken.head, taken.previous) == ("jmj", None)
    with pytest.raises(RuleError, match="jmj heads table T1 already"):
        table_.do(c.TakeTable(head="jmj"))
    table_.do(c.SetSpinRotation(croupiers=("ana",), set_by="director"))
    table_.open_bets()
    (relief,) = table_.do(c.TakeTable(head="marta"))  # mid-coup: a relief
    assert (relief.head, relief.previous) == ("marta", "jmj")
    assert replay(table_.events) == table_.state and table_.state.head == "marta"
    (opened,) = decide(
        TableState(),
        c.OpenTable(table_id="T2", table=t, limits=default_choice(t), head="luis"),
        NOW,
    )
    assert isinstance(opened, e.TableOpened) and evolve(TableState(), opened).head == "luis"


@pytest.mark.parametrize("game", ["french-roulette", "boule", "wheel-of-fortune"])
def test_a_basque_table_is_headed_by_its_head_or_its_inspector_and_a_1979_one_by_its_head(game):
    """«Mahaiburu edo ikuskatzaile bat» (EUS L216-224, L650, L1505): the inspector directs a
    Basque table as its head, and announces the bets at its boule (L674 «partidako buruak»)."""
    basque = Table(table("basque", game))
    (taken,) = basque.do(c.TakeTable(head="iker", role=Role.INSPECTOR))
    assert (taken.head, taken.role) == ("iker", Role.INSPECTOR)
    (opened,) = basque.do(c.OpenBets(role=basque.state.require_table()[0].rules.bets_opened_by[-1]))
    assert isinstance(opened, e.BetsOpened)
    if game == "wheel-of-fortune":
        return
    national = table("1979", game)
    state = Table(national).state
    with pytest.raises(RuleError, match="a table is headed by: table_head; not by the inspector"):
        decide(state, c.TakeTable(head="iker", role=Role.INSPECTOR), NOW)
    with pytest.raises(RuleError, match="headed by: table_head; not by the inspector"):
        decide(
            TableState(),
            c.OpenTable(
                table_id="T3",
                table=national,
                limits=default_choice(national),
                head="iker",
                head_role=Role.INSPECTOR,
            ),
            NOW,
        )


def headed(table_id: str, sector: str = "A", per_head: int = 4) -> HeadedTable:
    return HeadedTable(table_id, sector, per_head, GameName.FRENCH_ROULETTE, "1979")


def test_one_head_each_where_the_catalogue_says_so():
    problem = heading_problem("jmj", [headed("R1", per_head=1)], headed("R2"))
    own = "R1 (french-roulette under profile 1979) has a head of its own (N79 L117-121)"
    assert problem is not None and own in problem.message
    assert heading_problem("jmj", [], headed("R1", per_head=1)) is None
    assert heading_problem("jmj", [headed("R1", per_head=1)], headed("R1", per_head=1)) is None


def test_up_to_four_tables_of_one_sector_under_the_basque_catalogue():
    three = [headed("R1"), headed("R2"), headed("B1")]
    assert heading_problem("jmj", three, headed("W1")) is None  # whatever their games
    five = heading_problem("jmj", [*three, headed("W1")], headed("R5"))
    assert five is not None and "at most 4 tables (EUS L224)" in five.message
    elsewhere = heading_problem("jmj", three, headed("R9", sector="B"))
    assert elsewhere is not None and "only in one sector" in elsewhere.message
    assert "R9 in B" in elsewhere.message
    unplaced = heading_problem("jmj", [headed("R1", sector="")], headed("R2", sector=""))
    assert unplaced is not None and "R1 in no sector" in unplaced.message


@given(
    tables=st.lists(
        st.tuples(st.sampled_from(["A", "B", ""]), st.sampled_from([1, 4])),
        min_size=1,
        max_size=7,
    )
)
def test_a_head_s_tables_are_never_more_than_any_allows_nor_across_sectors(tables):
    """Take the tables one by one, keeping those the rule allows: the kept ones are never more
    than the strictest of them allows, and several share one named sector."""
    kept: list[HeadedTable] = []
    for number, (sector, per_head) in enumerate(tables):
        candidate = headed(f"T{number}", sector, per_head)
        if heading_problem("jmj", kept, candidate) is None:
            kept.append(candidate)
    assert kept  # the first table is always allowed
    assert len(kept) <= min(t.tables_per_head for t in kept)
    if len(kept) > 1:
        assert len({t.sector for t in kept}) == 1 and kept[0].sector != ""


DEPUTY = Role.DEPUTY_HEAD


def test_a_two_layout_1979_table_has_a_deputy_head_beside_its_head():
    """«Para la denominada "a dos paños": un jefe de mesa y un subjefe de mesa» (N79 L119)."""
    table_ = Table(table("1979", "french-roulette"), rotation=(), layouts=2)
    table_.do(c.TakeTable(head="jmj"))
    (taken,) = table_.do(c.TakeTable(head="sub", role=DEPUTY))
    assert (taken.role, taken.previous) == (DEPUTY, None)
    assert (table_.state.head, table_.state.deputy) == ("jmj", "sub")
    for who, words in (("sub", "sub is the deputy head of table T1"), ("jmj", "jmj heads")):
        with pytest.raises(RuleError, match=words):
            table_.do(c.TakeTable(head=who, role=DEPUTY))
    (relief,) = table_.do(c.TakeTable(head="sub2", role=DEPUTY))
    assert relief.previous == "sub" and table_.state.deputy == "sub2"
    table_.do(c.TakeTable(head="sub2"))  # the deputy steps up: the table has no deputy now
    assert (table_.state.head, table_.state.deputy) == ("sub2", None)
    assert replay(table_.events) == table_.state


@pytest.mark.parametrize(
    ("profile", "game", "layouts", "words"),
    [
        ("1979", "french-roulette", 1, "only a table on two layouts has a deputy head"),
        ("1979", "american-roulette", 2, "no deputy head under this profile"),
        ("basque", "french-roulette", 2, "no deputy head under this profile"),
        ("asturias", "french-roulette", 2, "no deputy head under this profile"),
    ],
)
def test_no_deputy_head_stands_where_the_text_names_none(profile, game, layouts, words):
    table_ = Table(table(profile, game), rotation=(), layouts=layouts)
    with pytest.raises(RuleError, match=words):
        table_.do(c.TakeTable(head="sub", role=DEPUTY))


@pytest.mark.parametrize("game", ["boule", "wheel-of-fortune"])
def test_only_a_roulette_plays_on_two_layouts(game):
    t = table("basque", game)
    opening = c.OpenTable(
        table_id="T1",
        table=t,
        limits=default_choice(t),
        layouts=2,
        float_amount=default_choice(t).minimum * 15000,
    )
    with pytest.raises(RuleError, match="a table on two layouts is a roulette's"):
        decide(TableState(), opening, NOW)
