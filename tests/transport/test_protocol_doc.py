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
    from bingo_hall.domain.events import EVENT_TYPES
    from bingo_hall.tables.events import EVENT_TYPES as TABLE_EVENT_TYPES

    for name in (*EVENT_TYPES, *TABLE_EVENT_TYPES):  # every event's payload
        assert f"### event `{name}`" in text


def test_every_error_code_the_hub_answers_with_is_listed():
    """The screens translate `error.<code>`: a code the hub sends that ERROR_CODES lacks would
    show as a raw key."""
    import re
    from pathlib import Path

    from bingo_hall.domain import errors
    from bingo_hall.transport.messages import ERROR_CODES

    sent = {c.code for c in vars(errors).values() if isinstance(getattr(c, "code", None), str)}
    pattern = re.compile(
        r'(?:CommandFailed(?:\.of)?\(|_failure\([^,]+,|_error\(|HTTPStatus\.[A-Z_]+,|"code":)\s*"([a-z_]+)"'
    )
    for source in (Path(__file__).resolve().parents[2] / "bingo_hall").rglob("*.py"):
        sent |= set(pattern.findall(source.read_text(encoding="utf-8")))
    assert {"duplicate_cards", "altered_log", "rule_error"} <= sent  # the scan finds them
    assert sent - ERROR_CODES == set()


def test_every_argument_the_doc_says_the_hub_fills_in_is_refused_from_a_client(tmp_path):
    """docs/protocol.md leaves out of each command's `args` what the hub fills in itself: a
    client that sends one anyway is refused (invalid_args), not obeyed."""
    from bingo_hall.hub.auth import Principal, roles_allowed
    from bingo_hall.hub.runtime import HUB_FILLED_ARGS, CommandFailed
    from support.aio import run_async
    from support.hub import prepare_store, running_hub

    url = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    token, series = prepare_store(url)

    async def scenario():
        async with running_hub(url, token, series) as hub:
            for command, fields in HUB_FILLED_ARGS.items():
                role = roles_allowed(command)[0]
                principal = Principal(id="someone", role=role, kind="staff")
                for field in fields:
                    try:
                        await hub.runtime.execute(principal, command, {field: "x"})
                    except CommandFailed as failed:
                        assert failed.code == "invalid_args", (command, field, failed)
                        assert failed.message == f"{command}: {field}: {fields[field]}"
                    else:
                        raise AssertionError(f"{command} took {field} from a client")

    run_async(scenario(), timeout=60)
