"""Writes docs/protocol.md: the websocket protocol, with JSON Schemas generated from the
message models (python -m bingo_hall.transport.protocol_doc > docs/protocol.md)."""

from __future__ import annotations

import json

from bingo_hall.domain.commands import COMMAND_TYPES
from bingo_hall.domain.events import EVENT_TYPES
from bingo_hall.hub.runtime import HUB_FILLED_ARGS
from bingo_hall.hub.table_runtime import HUB_FILLED, TABLE_ARGS
from bingo_hall.tables.commands import COMMAND_TYPES as TABLE_COMMAND_TYPES
from bingo_hall.tables.events import EVENT_TYPES as TABLE_EVENT_TYPES
from bingo_hall.transport import messages as m
from bingo_hall.transport.fanout import DEVICE_FIELDS

INTRO = """# The hub's protocol

Generated from `bingo_hall/transport/messages.py` by
`python -m bingo_hall.transport.protocol_doc > docs/protocol.md`; a test keeps it current.

## Websocket

One port (8080 by default) serves the protocol at `/ws` and `GET /health` beside it. Frames are
JSON text, at most 64 KiB (a larger frame closes the connection with 1009).

`GET /health` answers, without authentication, the hall, the log's last `seq`, the phase, the
linked tables' (when there are any), and the exit camera: `null` for a hall without one, else
`kind` (`simulated`, `file`, or `live` for a device or a stream), `receiving` (a live source
gave a frame in the last two seconds) and `losses` (how often a live source was lost and
opened again); and, when the configuration names a broker, each MQTT bridge (`stream`,
`connected`, `published_seq`, and `halted`: why it stopped, when the broker had seen the stream
past the log's head, docs/mqtt.md); under `bingo-hall serve`, `store_lock`: whether the hub
holds its store's single-instance lock (false while a PostgreSQL connection that held it is
being taken again, docs/architecture.md). A call the camera could not see is held with the reason
`no_picture`; one whose frames the ball set's own prints (kept at its commissioning) show as
another ball, with `set_disagrees` and that ball in `set_ball`.

1. The hub sends `auth_required`. The client's first frame is `auth`: a device token (monitors,
   auxiliary terminals) or a staff user's name and password. The hub answers `auth_ok` (with the
   commands the role may give) or `auth_invalid` and closes with 4001; no auth frame within 10 s
   closes with 4002. A connection whose credential is withdrawn while it is open (its device
   revoked, its user disabled, its password changed) is closed with 4003 within seconds. A
   terminal works from one connection: its token logging in again closes the one it had with
   4009 (a copied token shows; the page so closed says so and does not reconnect on its own).
   A command of a connection so closed that still waits its turn does nothing
   (`connection_closing`).
   Monitors, staff and table devices may be connected more than once, up to
   `[server] max_connections_per_credential` connections each (8 by default): one more is
   closed with 4010 after `auth`, and the pages try again a few seconds later.
2. `subscribe` with `after_seq` (0 for everything): the hub sends every event with a greater seq
   from the log, in order, then each new event once it is durable — no gap, no duplicate, also
   across a reconnect or a hub restart. A subscriber whose queue overflows (it reads too slowly)
   is closed with 4008 and resumes with a new connection from the last seq it saw; one the hub
   cannot go on serving (its store failing) is closed with 1011 and resumes alike. An
   `after_seq` past the end of the stream's log is refused (`not_in_log`, naming the log's
   last seq): the log was restored from an older copy, and what the client saw after that seq
   is no longer a fact; so is one whose `after_time` (the `time` of the event at `after_seq`,
   as the client got it) is not that event's in the log (restored, and gone on since). The
   client starts again from the log (the pages reload). Channel
   `panel` (display panels) receives each `ball_drawn` a configured interval after it was
   announced, also when it catches up from the log just after a ball; `caller` (the sound
   channel, the control screen) at once. A terminal subscribes to the hall's stream on `panel`
   only (`forbidden` otherwise): its player sees each ball when the hall's panels show it, not
   before; its `my_cards` marks a ball, and its claims count it, from then on too.
3. `command` runs a command of the rules engine by name (`args` as in the command's schema
   below). The answer is a `result` with the same `id`: `success` and the events it produced,
   or an `error` with a `code` (`forbidden`, `wrong_phase`, `rule_error`, `invalid_card`,
   `invalid_args`, `unknown_command`, `unknown_card`, `duplicate_cards`, `bad_frame`; a frame
   that is not JSON: `bad_json`) and a message for a person.
   The hub fills in what comes from outside the rules: the configured rule profile and machine
   for `open_session`, the ball from the certified random draw for `draw_ball` (a blower hall
   sends `number`), the master card for `call_claim`, who resolves a hold for `resolve_hold`.
4. The CCTV check (spec §4): before a ball is announced the hub reads the camera frames of the
   ball exit and compares the reading with the call. Agreement: `ball_drawn` carries `camera`
   (reading, guess, confidence, reason, the SHA-256 of the frame) and `check: "agreed"`. In a
   hall configured with `camera.call_witness_floor` (it is in `session_opened`), a reading that
   is not accepted but whose best guess is the call at that confidence or more, the set's
   prints recognising the frame and lying nearest the call too (`set_nearest`), gives `check:
   "witnessed"`. Any other reading: `ball_held` (phase `camera_hold`) and nothing is announced;
   the Jefe de Mesa sees the frame, the reading and the call and sends `resolve_hold` with the
   called number (confirmed) or the ball the camera shows (corrected): `hold_resolved`, then
   `ball_drawn` with `check` and `resolved_by`. `hold_ball` is given by the hub's camera check
   only. Monitors and terminals receive `ball_held` and `hold_resolved` with the `ordinal`
   alone: nothing of a held ball reaches them before it is resolved; and `sale_recorded` with
   its `sale` alone: which player at which terminal bought is the staff's to see (a terminal
   asks `my_cards` for its own). `GET /frames/<sha256>.jpg` serves a kept frame. A player's
   request for information or complaint (`player_request_recorded`, `player_request_answered`)
   reaches devices, and the staff who do not read the acta (all but the Jefes de Sala and de
   Mesa and the regulator's inspector), as its `request_id` and `kind` alone.
   The camera confirms calls only on a ball set that passed its commissioning: every ball
   shown to the camera (`commission_ball_set`, `ball_set_commissioned` with `fit`); on any
   other set every call is held (`ball_held` with `cause: "uncommissioned_set"`). The
   readings come from the hub, never from the client. Under a real camera the staff put each
   ball at the exit and send `show_ball_to_camera` (`ball_set_id`, `number`): the hub reads
   the camera and appends the showing to the log (`ball_shown_to_camera`: `ball_set_id`,
   `showing`), then answers with it (`shown`: `number`, `camera`), every showing so far of
   that set (`showings`: `ball_set_id`, `showings`, `balls_missing`) and `events`. The
   showings are facts of the log: a restarted hub has them still. `ball_showings` reads them;
   `discard_ball_showings` sets them aside unjudged (`ball_showings_discarded` with their
   count; the acta lists each discarding; `{"discarded": 0}` and no event when none are kept);
   `commission_ball_set` with that `ball_set_id` has the rules judge them. Before they do,
   the hub reads each showing's frame against the other showings' (the set's prints, as play
   will read calls against them): each showing of `ball_set_commissioned` carries that
   `cross` reading (`ball`, `margin`, `confirms`), and `read` counts the showings the
   networks doubted and the other prints confirmed (`cross_read` of them).
   Each showing and each discarding is pushed to every other connection whose role may read
   the showings, as a `showings` frame with what `ball_showings` would answer (`null`: none
   kept), so that two control pages see each other's showings as they are made.
   One set at a time, between games. With no showings kept and a simulated camera,
   `commission_ball_set` takes `showings_per_ball` (1-10, default 2) and the hub shows every
   ball itself. With the hub stopped, `bingo-hall commission-ball-set` does the same at the
   console.
5. A frame that is not JSON, not an object or of an unknown type gets an `error` frame (or a
   failed `result` when it carried an `id`) and changes nothing.

Event frames carry the log's envelope: `hall`, `seq` (per hall, from 1), `session`, `game`,
`event` (the type), `payload`, `time`, `actor`, `hash` (of the hash chain).

The same event frames go to MQTT (topic `bingo/<hall>/events`, with a retained `state` and a
replay on request): see docs/mqtt.md.

## Casino tables

The hall's casino tables (docs/tables.md) are configured in the hall's file (`[[tables]]`);
each has its own stream in the same log, with its own seq and hash chain.

- `tables` lists them: `result.tables` holds each table's `TableStateMessage` (game, profile,
  phase, coup, outcomes, limits, bets on the layout, the settlement until it is paid) with the
  `seq` of its stream it reflects.
- Staff, and a table device at its own table, get a table's stream and state whole. Monitors
  and terminals (and a table device at another table) get its **public view**, as MQTT does:
  every event with its seq (so resuming works as for the bingo), but a bet placed, withdrawn
  or returned late, a zero choice, a settlement and a payment carry their `coup` only, colour
  chips issued no field, and a closing not its seal; their `TableStateMessage` has `bets: []`
  and `settlement: null`. The fields each event keeps: docs/tables.md.
- `subscribe` with `stream: "table:R1"` streams table R1's events after `after_seq` (of R1's
  stream), with the same guarantees as the hall's: no gap, no duplicate, across a reconnect
  or a hub restart. A connection may subscribe to the hall and to any tables, each once
  (`already_subscribed` otherwise). A table's event frames carry `table` beside `hall`; their
  `seq` is the table's, `session` the table's session and `game` the coup. A page builds its
  table view from `tables`, then subscribes after each table's `seq`.
- `command` with `table: "R1"` runs a table command (below) at R1; the `result` lists the
  events it produced (`table_…` types). Errors as for the bingo, plus `unknown_table`; a
  command outside its phase gets `wrong_phase` naming the commands allowed now; an impossible
  bet `rule_error` naming the bet and why; a table device acting on another table, or a role
  without the command, `forbidden`. Money is a decimal string (`"10"`, `"2.50"`): a JSON
  number with a fraction is refused (`invalid_args`). The hub fills in the table's game,
  profile and limits (from the hall's configuration) and its head at `open_table`, and who
  takes a table, declares a void (and in what role), asks for new limits or sets the spinning
  rotation. A croupier
  spins as himself; a table device names the croupier at the wheel (`spun_by`).
- Who may give which table command: docs/roles.md. A table device (`device-add --kind table
  --table R1`) gives the croupier's commands at its own table only.

A whole coup at a French roulette table:

```json
{"id": 1, "type": "command", "table": "R1", "command": "open_table", "args": {}}
{"id": 2, "type": "command", "table": "R1", "command": "set_spin_rotation",
 "args": {"croupiers": ["ana", "luis"]}}
{"id": 3, "type": "command", "table": "R1", "command": "open_bets"}
{"id": 4, "type": "command", "table": "R1", "command": "spin",
 "args": {"spun_by": "ana", "direction": "clockwise"}}
{"id": 5, "type": "command", "table": "R1", "command": "place_bet",
 "args": {"bet": {"id": "b1", "type": "straight", "numbers": [17], "amount": "10"}}}
{"id": 6, "type": "command", "table": "R1", "command": "call_no_more_bets"}
{"id": 7, "type": "command", "table": "R1", "command": "record_outcome",
 "args": {"outcome": "17"}}
{"id": 8, "type": "command", "table": "R1", "command": "settle"}
{"id": 9, "type": "command", "table": "R1", "command": "pay_coup"}
```

The games director (the Jefe de Sala) sets the rotation between coups; the croupiers spin in
its order, one coup each, the cylinder each time the other way (the next coup above:
`"anticlockwise"`, by luis). A void coup is launched again by its croupier. The rules refuse a
spin out of turn or the wrong way before the ball is launched (docs/tables.md, "Who spins").

The table's events go to MQTT too, in their public view (`bingo/<hall>/tables/<table>/events`
and a retained `…/state`): see docs/mqtt.md.
"""


def _schema_block(model: type, schema: dict | None = None) -> str:
    return (
        "```json\n"
        + json.dumps(schema or model.model_json_schema(), indent=2, ensure_ascii=False)
        + "\n```\n"
    )


def _client_args(model: type, filled: dict[str, str]) -> dict:
    """A command model's schema as a client's `args`: without what the hub fills in."""
    schema = model.model_json_schema()  # type: ignore[attr-defined]
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in filled}
    required = [k for k in schema.get("required", []) if k not in filled]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    definitions = schema.pop("$defs", {})
    kept: dict = {}
    while True:  # the definitions still referred to, directly or through each other
        text = json.dumps([schema, kept])
        wanted = {n for n in definitions if f'"#/$defs/{n}"' in text and n not in kept}
        if not wanted:
            break
        kept.update({n: definitions[n] for n in sorted(wanted)})
    if kept:
        schema["$defs"] = dict(sorted(kept.items()))
    return schema


HUB_ONLY = {"hold_ball": "given by the hub's camera check only, never by a client"}
DRAW_NOTE = (
    ' `number`: the ball the caller keys from the blower (`machine.draw = "blower"`); under '
    "the certified random draw the hub draws it and refuses one. Each ball is announced, then "
    "shown on the panels (`server.display_delay_seconds` later), then the next drawn: a "
    "`draw_ball` before the panels show the last ball is refused (`rule_error`)."
)
EXTRA_ARGS = {
    "commission_ball_set": " The hub also takes `showings_per_ball` (an integer, simulated "
    "camera only: how many times it shows each ball itself; default 2).",
}
HUB_COMMANDS = {
    "buy_cards": "A terminal buys the next whole block of a series on sale for its player: "
    '`{"player": "<1-32 characters, no />", "series_id": "A1", "purchase": "<8-64 of '
    'A-Z a-z 0-9 - _>", "game": 1}`; the hub records the sale with the terminal as buyer and '
    'answers `{"events": [...], "sale": {"series_id", "first", "last", "player", "game"}, '
    '"repeated": false}`. `purchase` (optional) is the terminal\'s name for this purchase, new '
    "for each: sent again (its answer lost with the connection) while its game is on sale or "
    "is the last one ended, it buys nothing more and is answered with the block bought then "
    "and `repeated: true`; a name already used for another series or player is refused. "
    "`game` (optional) is the game the purchase is for: another game's sale does not take it.",
    "my_cards": "A terminal's cards in the current game (or the one that just ended, until "
    'another begins), no `args`: `{"game": 1, "count": 6, "cards": [{"series", "number", '
    '"player", "grid", "marked", "line_needs", "bingo_needs"}, …]}`.',
    "ball_showings": "The balls of a set shown to the camera so far (staff), no `args`; pushed "
    "as `showings` to every other control connection when they change.",
    "discard_ball_showings": "Set aside the balls shown so far, no `args`.",
    "show_ball_to_camera": '`{"ball_set_id", "number"}`: the ball the staff put at the exit; '
    "the hub reads it and records `ball_shown_to_camera`.",
}


def _events_section(title: str, types: dict[str, type]) -> str:
    """Each event type's payload (as staff see it), and what devices see of it."""
    parts = [f"\n## {title}\n\nEach payload as staff see it; money is a decimal string.\n"]
    for name, event in types.items():
        doc = (event.__doc__ or "").strip()
        parts.append(f"\n### event `{name}`\n\n{doc + chr(10) + chr(10) if doc else ''}")
        public = DEVICE_FIELDS.get(name)
        if public is not None:
            shown = ", ".join(f"`{f}`" for f in public) or "nothing"
            parts.append(f"Monitors, terminals and MQTT see {shown} of it.\n\n")
        parts.append(_schema_block(event, event.model_json_schema(mode="serialization")))
    return "".join(parts)


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
        if name in HUB_ONLY:
            parts.append(f"\n### `{name}`\n\nLegal in: {legal}; {HUB_ONLY[name]}.\n")
            continue
        filled = HUB_FILLED_ARGS.get(name, {})
        notes = "".join(f" `{key}`: {why}." for key, why in filled.items())
        notes = f" Filled in by the hub:{notes}" if notes else ""
        notes += (DRAW_NOTE if name == "draw_ball" else "") + EXTRA_ARGS.get(name, "")
        parts.append(f"\n### `{name}`\n\nLegal in: {legal}.{notes}\n\n")
        parts.append(_schema_block(command, _client_args(command, filled)))
    parts.append("\n## The hub's own commands\n")
    for name, text in HUB_COMMANDS.items():
        parts.append(f"\n### `{name}`\n\n{text}\n")
    parts.append("\n## Table commands (`args` of a `command` frame with `table`)\n")
    for name, args in TABLE_ARGS.items():
        legal = ", ".join(sorted(p.value for p in TABLE_COMMAND_TYPES[name].legal_in))
        filled = "".join(f" `{key}`: {why}." for key, why in HUB_FILLED.get(name, {}).items())
        parts.append(f"\n### table `{name}`\n\nLegal in: {legal}.{filled}\n\n")
        parts.append(_schema_block(args))
    parts.append(_events_section("Events (`payload` of an `event` frame)", EVENT_TYPES))
    parts.append(
        _events_section(
            "Table events (`payload` of an `event` frame with `table`)", TABLE_EVENT_TYPES
        )
    )
    parts.append("\n## Table state\n\n### `TableStateMessage`\n\n")
    parts.append(f"{(m.TableStateMessage.__doc__ or '').strip()}\n\n")
    parts.append(_schema_block(m.TableStateMessage))
    return "".join(parts)


if __name__ == "__main__":
    print(render(), end="")
