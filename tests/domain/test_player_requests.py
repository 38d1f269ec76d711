"""Players' requests for information and complaints (S77 L2427-2432): numbered in order, each
answered once, open until answered, whatever the order of the Jefe de Mesa's commands."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bingo_hall.domain import RuleError
from bingo_hall.domain import commands as c
from support.hall import Hall, profile

RECORD = st.builds(
    c.RecordPlayerRequest,
    kind=st.sampled_from(["information", "complaint"]),
    player=st.sampled_from(["", "mesa 4", "Ana, cartón A1 nº 17"]),
    text=st.sampled_from(["¿A qué hora es la última partida?", "No oyó el 45"]),
    answer=st.sampled_from([None, "Respondida en el acto"]),
)
ANSWER = st.builds(c.AnswerPlayerRequest, request_id=st.integers(-1, 8), answer=st.just("Sí"))


@given(st.lists(st.one_of(RECORD, ANSWER), max_size=20))
def test_requests_are_numbered_in_order_and_each_is_answered_once(commands) -> None:
    hall = Hall(profile("1979")).open_ready()
    recorded = 0
    answered: set[int] = set()
    for command in commands:
        before = hall.state
        if isinstance(command, c.AnswerPlayerRequest) and (
            not 1 <= command.request_id <= recorded or command.request_id in answered
        ):
            try:
                hall.run(command)
            except RuleError:
                assert hall.state == before  # a refusal changes nothing
                continue
            raise AssertionError(f"{command} was accepted")
        (event,) = hall.run(command)
        if isinstance(command, c.RecordPlayerRequest):
            recorded += 1
            assert event.request_id == recorded
            if command.answer is not None:
                answered.add(recorded)
        else:
            answered.add(command.request_id)
    assert hall.state.player_requests == recorded
    assert set(hall.state.open_requests) == set(range(1, recorded + 1)) - answered
