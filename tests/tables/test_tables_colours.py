"""The American table's colour-chip ledger (spec §3.3): each player's colour with its stacks
issued and changed back at the value its marker showed, the colour freed when he leaves, and
no table stopping while a colour is still held."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st
from tables_support import Table, default_choice, refused, request, table

from bingo_hall.tables import commands as c
from bingo_hall.tables import events as e
from bingo_hall.tables.evolve import replay

AMERICAN = table("basque", "american-roulette")


def american() -> Table:
    return Table(AMERICAN, default_choice(AMERICAN, "1"))


def test_a_player_changes_his_colour_back_when_he_leaves_and_another_takes_it():
    table_ = american()
    table_.do(c.IssueColourChips(colour="green", player="ana", chips=20, unit_value=Decimal(2)))
    table_.do(c.IssueColourChips(colour="green", player="ana", chips=10))  # the minimum, 1
    held = table_.state.colours["green"]
    assert (held.issued, held.issued_value, held.unit_value) == (30, Decimal(50), 1)
    assert "colour green is already ana's" in refused(
        table_, c.IssueColourChips(colour="green", player="eva", chips=5)
    )
    (back,) = table_.do(c.ReturnColourChips(colour="green", chips=12, leaves=False))
    assert isinstance(back, e.ColourChipsReturned) and (back.player, back.value) == ("ana", 12)
    table_.do(c.ReturnColourChips(colour="green", chips=3))
    assert "green" not in table_.state.colours
    (line,) = table_.state.colours_left
    assert (line.player, line.returned, line.returned_value, line.left) == ("ana", 15, 15, True)
    table_.do(c.IssueColourChips(colour="green", player="eva", chips=5))
    assert table_.state.colours["green"].player == "eva"
    assert "held by no player" in refused(table_, c.ReturnColourChips(colour="red", chips=1))
    assert replay(table_.events) == table_.state


def test_a_player_leaves_his_colour_only_once_his_bets_in_it_are_settled():
    table_ = american()
    table_.do(c.IssueColourChips(colour="blue", player="eva", chips=10))
    table_.open_bets()
    table_.do(c.PlaceBet(bet=request("b", "red", amount=None, colour="blue", chips=2)))
    leave = c.ReturnColourChips(colour="blue", chips=8)
    assert "bets in it are on the layout (b)" in refused(table_, leave)
    table_.do(c.ReturnColourChips(colour="blue", chips=4, leaves=False))  # some, staying
    table_.do(c.WithdrawBet(bet_id="b"))
    table_.do(leave)
    assert table_.state.colours == {}


def test_no_table_closes_or_stops_for_a_while_while_a_colour_is_held():
    table_ = american()
    table_.do(c.IssueColourChips(colour="blue", player="eva", chips=10))
    table_.do(c.AnnounceLastCoups())
    for _ in range(3):
        table_.coup("5")
    message = refused(table_, c.CloseTable(seal="S"))
    assert "colour chips are still held: blue (eva)" in message
    assert "return_colour_chips" in message
    table_.do(c.ReturnColourChips(colour="blue", chips=10))
    (closed,) = table_.do(c.CloseTable(seal="S"))
    assert isinstance(closed, e.TableClosed)
    assert [(h.colour, h.player, h.issued, h.returned) for h in closed.colour_chips] == [
        ("blue", "eva", 10, 10)
    ]
    other = american()
    other.do(c.IssueColourChips(colour="red", player="ana", chips=1))
    assert "a customer at the table" in refused(other, c.SuspendTable(key_held_by="director"))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ana", "eva", "luz"]),
            st.sampled_from(["issue", "back", "leave"]),
            st.integers(0, 40),
            st.integers(1, 30),
        ),
        max_size=25,
    )
)
def test_the_ledger_holds_every_stack_issued_and_changed_back_at_its_markers_value(steps):
    """Each player has his own colour; whatever the order, the ledger's lines (held and left)
    add up to the stacks issued and changed back, each valued at the marker's value then."""
    colour_of = {"ana": "green", "eva": "blue", "luz": "white"}
    table_ = american()
    issued = {p: [Decimal(0), Decimal(0)] for p in colour_of}
    returned = {p: [Decimal(0), Decimal(0)] for p in colour_of}
    for player, step, chips, value in steps:
        colour = colour_of[player]
        if step == "issue":
            table_.do(
                c.IssueColourChips(
                    colour=colour, player=player, chips=max(chips, 1), unit_value=Decimal(value)
                )
            )
            issued[player][0] += max(chips, 1)
            issued[player][1] += max(chips, 1) * value
        elif colour in table_.state.colours:
            unit = table_.state.colours[colour].unit_value
            table_.do(c.ReturnColourChips(colour=colour, chips=chips, leaves=step == "leave"))
            returned[player][0] += chips
            returned[player][1] += chips * unit
    lines = [*table_.state.colours_left, *table_.state.colours.values()]
    for player in colour_of:
        mine = [line for line in lines if line.player == player]
        assert sum(line.issued for line in mine) == issued[player][0]
        assert sum(line.issued_value for line in mine) == issued[player][1]
        assert sum(line.returned for line in mine) == returned[player][0]
        assert sum(line.returned_value for line in mine) == returned[player][1]
    assert replay(table_.events) == table_.state


def test_a_basque_head_controls_the_bets_in_value_chips():
    """EUS L338 c: value-chip bets beside colour chips, authorised by the head or inspector
    while the bettor stays identifiable, and stopped by him when there are too many."""
    table_ = american()
    table_.do(c.IssueColourChips(colour="blue", player="eva", chips=10))
    table_.open_bets()
    anonymous = c.PlaceBet(bet=request("v0", "red", amount="5"))
    assert "names its player, who must stay identifiable" in refused(table_, anonymous)
    table_.do(c.PlaceBet(bet=request("v1", "red", amount="5", player="ana")))
    (stopped,) = table_.do(c.SetValueChipBets(allowed=False, set_by="jmj"))
    assert isinstance(stopped, e.ValueChipBetsSet) and table_.state.value_chip_bets_stopped
    again = c.SetValueChipBets(allowed=False, set_by="jmj")
    assert "stopped already" in refused(table_, again)
    value = c.PlaceBet(bet=request("v2", "black", amount="5", player="ana"))
    assert "the head has stopped new bets in value chips" in refused(table_, value)
    table_.do(c.PlaceBet(bet=request("c1", "black", amount=None, colour="blue", chips=2)))
    assert list(table_.state.bets) == ["v1", "c1"]  # the bet before the stop stays
    table_.do(c.SetValueChipBets(allowed=True, set_by="jmj"))
    table_.do(value)
    assert replay(table_.events) == table_.state


def test_elsewhere_value_chip_bets_are_nobodys_to_stop():
    t = table("1979", "american-roulette")
    table_ = Table(t, default_choice(t, "1"))
    assert "under this profile" in refused(table_, c.SetValueChipBets(allowed=False, set_by="jmj"))
    table_.open_bets()
    table_.do(c.PlaceBet(bet=request("v", "red", amount="5")))  # no player named: as before
