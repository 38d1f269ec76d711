"""Writes docs/protocol.md: the websocket protocol, with JSON Schemas generated from the
message models (python -m bingo_hall.transport.protocol_doc > docs/protocol.md)."""

from __future__ import annotations

import json

from bingo_hall.domain.commands import COMMAND_TYPES
from bingo_hall.transport import messages as m

INTRO = """# The hub's protocol

Generated from `bingo_hall/transport/messages.py` by
`python -m bingo_hall.transport.protocol_doc > docs/protocol.md`; a test keeps it current.

## Websocket

One port (8080 by default) serves the protocol at `/ws` and `GET /health` beside it. Frames are
JSON text, at most 64 KiB (a larger frame closes the connection with 1009).

1. The hub sends `auth_required`. The client's first frame is `auth`: a device token (monitors,
   auxiliary terminals) or a staff user's name and password. The hub answers `auth_ok` (with the
   commands the role may give) or `auth_invalid` and closes with 4001; no auth frame within 10 s
   closes with 4002.
2. `subscribe` with `after_seq` (0 for everything): the hub sends every event with a greater seq
   from the log, in order, then each new event once it is durable — no gap, no duplicate, also
   across a reconnect or a hub restart. A subscriber whose queue overflows (it reads too slowly)
   is closed with 4008 and resumes with a new connection from the last seq it saw. Channel
   `panel` (display panels) receives each `ball_drawn` a configured interval after it was
   announced; `caller` (the sound channel, the control screen) at once.
3. `command` runs a command of the rules engine by name (`args` as in the command's schema
   below). The answer is a `result` with the same `id`: `success` and the events it produced,
   or an `error` with a `code` (`forbidden`, `wrong_phase`, `rule_error`, `invalid_card`,
   `invalid_args`, `unknown_command`, `unknown_card`, `bad_frame`) and a message for a person.
   The hub fills in what comes from outside the rules: the configured rule profile and machine
   for `open_session`, the ball from the certified random draw for `draw_ball` (a blower hall
   sends `number`), the master card for `call_claim`, who resolves a hold for `resolve_hold`.
4. The CCTV check (spec §4): before a ball is announced the hub reads the camera frames of the
   ball exit and compares the reading with the call. Agreement: `ball_drawn` carries `camera`
   (reading, guess, confidence, reason, the SHA-256 of the frame) and `check: "agreed"`. Any
   other reading: `ball_held` (phase `camera_hold`) and nothing is announced; the Jefe de Mesa
   sees the frame, the reading and the call and sends `resolve_hold` with the called number
   (confirmed) or the ball the camera shows (corrected): `hold_resolved`, then `ball_drawn` with
   `check` and `resolved_by`. `hold_ball` is given by the hub's camera check only. Monitors and
   terminals receive `ball_held` and `hold_resolved` with the `ordinal` alone: nothing of a held
   ball reaches them before it is resolved. `GET /frames/<sha256>.jpg` serves a kept frame.
5. A frame that is not JSON, not an object or of an unknown type gets an `error` frame (or a
   failed `result` when it carried an `id`) and changes nothing.

Event frames carry the log's envelope: `hall`, `seq` (per hall, from 1), `session`, `game`,
`event` (the type), `payload`, `time`, `actor`, `hash` (of the hash chain).

The same event frames go to MQTT (topic `bingo/<hall>/events`, with a retained `state` and a
replay on request): see docs/mqtt.md.
"""


def _schema_block(model: type) -> str:
    return (
        "```json\n"
        + json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False)
        + "\n```\n"
    )


def render() -> str:
    parts = [INTRO, "\n## Client to hub\n"]
    for model in m.CLIENT_MESSAGES:
        parts.append(f"\n### `{model.__name__}`\n\n{(model.__doc__ or '').strip()}\n\n")
        parts.append(_schema_block(model))
    parts.append("\n## Hub to client\n")
    for model in m.HUB_MESSAGES:
        parts.append(f"\n### `{model.__name__}`\n\n{(model.__doc__ or '').strip()}\n\n")
        parts.append(_schema_block(model))
    parts.append("\n## Commands (`args` of a `command` frame)\n")
    for name, command in COMMAND_TYPES.items():
        legal = ", ".join(sorted(p.value for p in command.legal_in))
        parts.append(f"\n### `{name}`\n\nLegal in: {legal}.\n\n")
        parts.append(_schema_block(command))
    return "".join(parts)


if __name__ == "__main__":
    print(render(), end="")
