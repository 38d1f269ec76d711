"""Who spins a coup and which way: the director's rotation (N79 L127, L424; EUS L226, L652),
the cylinder turned opposite to the coup before (N79 L224), the 003 wheel of fortune turned
clockwise (WOF L25), and a void coup launched again by its own croupier (N79 L232)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import Table, refused, request, table

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.evolve import replay
from bingo_hall.tables.phases import TablePhase as P
from bingo_hall.tables.profiles import SpinDirection, VoidReason
from bingo_hall.tables.spinning import direction_due

CW, ACW = SpinDirection.CLOCKWISE, SpinDirection.ANTICLOCKWISE
ROULETTES = [
    (profile, game)
    for profile in ("1977", "1979", "asturias", "basque")
    for game in ("french-roulette", "american-roulette")
]


def open_table(profile: str, game: str, *rotation: str) -> Table:
    """An open table with `rotation` and bets open."""
    table_ = Table(table(profile, game), rotation=rotation)
    table_.open_bets()
    return table_


def void(table_: Table, reason: str = "defective_launch") -> None:
    rules = table_.state.require_table()[0].rules
    table_.do(
        c.DeclareVoid(reason=VoidReason(reason), declared_by="h", role=rules.void_declared_by[0])
    )


@pytest.mark.parametrize(("profile", "game"), [("1979", "french-roulette"), ("1979", "boule")])
def test_no_coup_opens_before_the_director_sets_the_rotation(profile, game):
    """Else its bets would lie on a layout no croupier may spin, and the rotation could not be
    set until the coup was over."""
    t = table(profile, game)
    table_ = Table(t, rotation=())
    message = refused(table_, c.OpenBets(role=t.rules.bets_opened_by[0]))
    assert "no spinning rotation is set" in message and "set_spin_rotation" in message
    table_.do(c.SetSpinRotation(croupiers=("ana", "luis"), set_by="director"))
    table_.open_bets()
    assert "has not been spun" in refused(table_, c.CallNoMoreBets())


@pytest.mark.parametrize(("profile", "game"), ROULETTES)
def test_the_croupiers_spin_in_the_rotation_and_the_cylinder_turns_each_way_in_turn(profile, game):
    table_ = open_table(profile, game, "ana", "luis", "marta")
    assert "it is ana's turn to spin (rotation: ana, luis, marta" in refused(
        table_, c.Spin(spun_by="luis", direction=CW)
    )
    assert "give the cylinder's direction" in refused(table_, c.Spin(spun_by="ana"))
    spinners, directions = [], []
    for coup in range(7):
        if coup:
            table_.open_bets()
        due = [ACW, CW][coup % 2]
        if coup:  # the first coup of the session may go either way; then each the other way
            wrong = CW if due is ACW else ACW
            message = refused(table_, c.Spin(spun_by=table_.state.next_spinner, direction=wrong))
            assert f"so it turns {due.value} now (N79 L224" in message
        (spun,) = table_.do(c.Spin(spun_by=table_.state.next_spinner, direction=due))
        spinners.append(spun.spun_by)
        directions.append(spun.direction)
        assert "already spinning" in refused(table_, c.Spin(spun_by="marta", direction=due))
        table_.do(c.CallNoMoreBets())
        table_.do(c.RecordOutcome(outcome="5"))
        table_.do(c.Settle())
        table_.do(c.PayCoup())
    assert spinners == ["ana", "luis", "marta", "ana", "luis", "marta", "ana"]
    assert directions == [ACW, CW, ACW, CW, ACW, CW, ACW]
    assert dict(table_.state.spins) == {"ana": 3, "luis": 2, "marta": 2}


def test_a_void_coup_is_launched_again_by_its_croupier_and_keeps_the_turn():
    table_ = open_table("1979", "french-roulette", "ana", "luis")
    table_.do(c.Spin(spun_by="ana", direction=CW))
    assert "already spinning" in refused(table_, c.Spin(spun_by="ana", direction=CW))
    table_.do(c.CallNoMoreBets())
    void(table_)
    assert table_.state.phase is P.NO_MORE_BETS  # 1979: relaunched on the same bets
    assert "has not been spun again after its void: ana spins" in refused(
        table_, c.RecordOutcome(outcome="3")
    )
    message = refused(table_, c.Spin(spun_by="luis", direction=ACW))
    assert "coup 1 was void: ana, who launched it, launches it again (N79 L232)" in message
    (again,) = table_.do(c.Spin(spun_by="ana", direction=CW))
    assert again.relaunch and again.coup == 1
    table_.do(c.RecordOutcome(outcome="3"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    table_.open_bets()
    assert table_.state.next_spinner == "luis"  # the void coup counted once, for ana
    assert dict(table_.state.spins) == {"ana": 1}


def test_a_basque_void_reopens_the_bets_and_the_same_croupier_relaunches():
    table_ = open_table("basque", "french-roulette", "ana", "luis")
    table_.do(c.Spin(spun_by="ana", direction=ACW))
    void(table_)
    assert table_.state.phase is P.BETTING  # «zuen apustuak alda ditzakezue» (EUS L320)
    table_.do(c.PlaceBet(bet=request("r", "red")))
    assert "ana, who launched it" in refused(table_, c.Spin(spun_by="luis", direction=ACW))
    table_.do(c.Spin(spun_by="ana", direction=ACW))
    table_.do(c.CallNoMoreBets())


@pytest.mark.parametrize("profile", ["1977", "1979", "asturias", "basque"])
def test_a_boule_rotation_names_two_croupiers_or_more(profile):
    t = table(profile, "boule")
    table_ = Table(t, rotation=())
    message = refused(table_, c.SetSpinRotation(croupiers=("ana",), set_by="director"))
    assert "at least 2 croupiers: none may specialise in throwing the ball (N79 L424" in message
    assert "more than once" in refused(
        table_, c.SetSpinRotation(croupiers=("ana", "luis", "ana"), set_by="director")
    )
    table_.do(c.SetSpinRotation(croupiers=("ana", "luis"), set_by="director"))
    table_.open_bets()
    (spun,) = table_.do(c.Spin(spun_by="ana"))  # no direction is ruled for the ball
    assert spun.direction is None


def test_a_roulette_with_few_customers_may_have_one_croupier():
    """EUS L220: one croupier at a one-layout table when there are few customers."""
    table_ = Table(table("basque", "french-roulette"), rotation=())
    (ev,) = table_.do(c.SetSpinRotation(croupiers=(" iker ",), set_by="director"))
    assert ev.croupiers == ("iker",)
    assert "an empty croupier" in refused(
        table_, c.SetSpinRotation(croupiers=("ana", " "), set_by="director")
    )


def test_the_003_wheel_of_fortune_turns_clockwise_and_a_short_spin_keeps_its_croupier():
    table_ = open_table("wof-003", "wheel-of-fortune", "ana", "luis")
    assert "clockwise (WOF L25" in refused(table_, c.Spin(spun_by="ana", direction=ACW))
    (spun,) = table_.do(c.Spin(spun_by="ana"))
    assert spun.direction is CW
    table_.do(c.CallNoMoreBets())
    (voided,) = table_.do(c.RecordOutcome(outcome="20", revolutions=3))  # under four: void
    assert isinstance(voided, e.CoupVoided) and table_.state.phase is P.BETTING
    assert "ana, who launched it" in refused(table_, c.Spin(spun_by="luis"))
    table_.do(c.Spin(spun_by="ana"))


def test_the_rotation_changes_between_coups_only_and_the_closing_counts_each_croupier():
    table_ = open_table("1979", "french-roulette", "ana", "luis")
    table_.do(c.Spin(spun_by="ana", direction=CW))
    with pytest.raises(RuleError, match="not allowed in phase betting"):
        table_.do(c.SetSpinRotation(croupiers=("marta",), set_by="director"))
    table_.do(c.CallNoMoreBets())
    table_.do(c.RecordOutcome(outcome="3"))
    table_.do(c.Settle())
    table_.do(c.PayCoup())
    table_.do(c.SetSpinRotation(croupiers=("marta", "luis"), set_by="director"))
    table_.coup("8")  # marta: a new rotation starts at its first croupier
    assert [ev.spun_by for ev in table_.events if isinstance(ev, e.Spun)] == ["ana", "marta"]
    assert table_.state.last_direction is ACW
    (closed,) = table_.do(c.CloseTable(seal="S-1"))
    assert closed.spins == {"ana": 1, "marta": 1}


@settings(max_examples=60, deadline=None)
@given(
    rotation=st.lists(
        st.sampled_from(["ana", "luis", "marta", "iker", "jon"]),
        min_size=2,
        max_size=5,
        unique=True,
    ),
    coups=st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from(["ana", "luis", "marta", "iker", "jon"])),
        min_size=1,
        max_size=12,
    ),
    profile=st.sampled_from(["1979", "basque"]),
)
def test_every_counted_coup_is_spun_by_the_rotation_in_order_whatever_the_voids(
    rotation, coups, profile
):
    """Each coup has up to two voids before it counts, and a croupier tries to spin before the
    one due: he is refused unless it is his turn. The counted coups follow the rotation, the
    cylinder alternates, and replaying the events gives the same state."""
    t = table(profile, "french-roulette")
    table_ = Table(t, rotation=tuple(rotation))
    counted = []
    for voids, intruder in coups:
        table_.open_bets()
        for attempt in range(voids + 1):
            due, direction = table_.state.next_spinner, direction_due(t, table_.state)
            if intruder != due:
                with pytest.raises(RuleError):
                    table_.do(c.Spin(spun_by=intruder, direction=direction))
            table_.do(c.Spin(spun_by=due, direction=direction or CW))
            if attempt < voids:
                void(table_)
        if table_.state.phase is P.BETTING:
            table_.do(c.CallNoMoreBets())
        table_.do(c.RecordOutcome(outcome="1"))
        table_.do(c.Settle())
        table_.do(c.PayCoup())
        counted.append(next(ev for ev in reversed(table_.events) if isinstance(ev, e.Spun)))
    assert [ev.spun_by for ev in counted] == [
        rotation[i % len(rotation)] for i in range(len(coups))
    ]
    directions = [ev.direction for ev in counted]
    assert all(a is not b for a, b in itertools.pairwise(directions))
    assert replay(table_.events) == table_.state
    assert sum(table_.state.spins.values()) == len(coups)
