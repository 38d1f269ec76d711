"""docs/protocol.md is generated from the message models and must match them."""

from __future__ import annotations

from pathlib import Path

from bingo_hall.transport.protocol_doc import render

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_protocol_doc_is_current():
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/protocol.md is stale: python -m bingo_hall.transport.protocol_doc > docs/protocol.md"
    )


def test_every_message_and_command_has_a_schema():
    text = DOC.read_text(encoding="utf-8")
    for name in ("Auth", "Subscribe", "Command", "Event", "Result", "draw_ball", "call_claim"):
        assert f"### `{name}`" in text


def test_every_error_code_the_hub_answers_with_is_listed():
    """The screens translate `error.<code>`: a code the hub sends that ERROR_CODES lacks would
    show as a raw key."""
    import re
    from pathlib import Path

    from bingo_hall.domain import errors
    from bingo_hall.transport.messages import ERROR_CODES

    sent = {c.code for c in vars(errors).values() if isinstance(getattr(c, "code", None), str)}
    pattern = re.compile(
        r'(?:CommandFailed\(|_failure\([^,]+,|_error\(|HTTPStatus\.[A-Z_]+,|"code":)\s*"([a-z_]+)"'
    )
    for source in (Path(__file__).resolve().parents[2] / "bingo_hall").rglob("*.py"):
        sent |= set(pattern.findall(source.read_text(encoding="utf-8")))
    assert {"duplicate_cards", "altered_log", "rule_error"} <= sent  # the scan finds them
    assert sent - ERROR_CODES == set()
