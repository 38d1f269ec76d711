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
