"""Every refusal the bingo's rules and its hub give a person, by reason.

A refusal carries a stable reason and its parameters besides its English text, so that the
pages say it in the language they are read in: the English texts are here, the pages' own
(Spanish, Basque, English) are `refusal.<reason>` in `displays/i18n/*.json`, with the same
placeholders. A test holds the two together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Term:
    """A word the pages translate from their own texts (`<family>.<name>`): a phase, a
    command, a claim's kind, the kind of a datum's fault. In English it is `text`, or its
    name; a page without the key shows that too."""

    family: str
    name: str
    text: str | None = None
    vars: tuple[tuple[str, str], ...] = ()  # the term's own parameters (a bound, a length)

    def __str__(self) -> str:
        return self.name if self.text is None else self.text


Param = str | int | Term | Sequence[str | int | Term]

REFUSALS: dict[str, str] = {
    # phases and the hub's turn
    "wrong_phase": "'{command}' is not allowed in phase {phase} (it is legal in: {legal_in}); "
    "commands allowed now: {allowed}",
    "wrong_phase_nothing_allowed": "'{command}' is not allowed in phase {phase} (it is legal "
    "in: {legal_in}); commands allowed now: none",
    "connection_closing": "this connection is being closed (its credential withdrawn, or its "
    "terminal opened on another screen) and the command, which waited its turn, did nothing",
    "unknown_command": "there is no command {command}",
    "invalid_args": "{command}: {field}: {problem}",
    "not_your_command": "{command} is not a command of the {role}, who may give: {allowed}",
    "read_only_role": "{command} is not a command of the {role}, who gives none (read only)",
    "table_role": "{command} is not a command of the {role}, who gives only a casino table's "
    "commands (with `table`)",
    "filled_by_hub": "{command}: {field}: {why}",
    "unknown_argument": "{command}: unknown argument {field}",
    "ball_not_shown_yet": "ball {ball} is not on the hall's panels yet: the next ball is drawn "
    "once the panels show it",
    # the session and its machine
    "no_homologation": "machine {machine} has no homologation reference: the model of the "
    "drawing machine must be homologated before play (S79 L1188); give it in the hall's "
    "configuration, [machine] homologation",
    "close_needs_note": "the session closes at ball loading only with a note saying why the "
    "balls are not loaded",
    "last_game_not_announced": "profile {profile} requires the last game to be announced aloud "
    "before the session closes: announce the last game first",
    "last_game_not_played": "profile {profile}: the last game was announced aloud and has not "
    "been played: announce its series (or void it) before the session closes",
    "last_game_already_announced": "the last game of this session has already been announced",
    "last_game_played": "the announced last game has been played: close the session",
    # ball sets and the camera's commissioning
    "ball_set_already_registered": "ball set {ball_set} is already registered",
    "ball_set_not_registered": "ball set {ball_set} is not registered",
    "ball_set_retired": "ball set {ball_set} was retired and cannot go back in service",
    "ball_set_retired_not_commissioned": "ball set {ball_set} was retired: it cannot be "
    "commissioned",
    "ball_set_already_in_service": "ball set {ball_set} is already in service",
    "ball_set_worn": "ball set {ball_set} has played {games} games; a pneumatic machine must "
    "change its set at {limit} games at most: record a ball-set change",
    "no_ball_set_in_service": "no ball set is in service: record a ball-set change first",
    "no_ball_set_loaded": "no ball set is loaded",
    "balls_not_all_shown": "ball set {ball_set}: every ball must be shown to the camera; "
    "{count} were not: {balls}",
    "nothing_to_discard": "no ball set is being shown to the camera: there is nothing to discard",
    "other_set_being_shown": "the balls of {ball_set} are being shown; commission that set or "
    "discard its showings first",
    "ball_shown_enough": "ball {ball} was shown {times} times",
    "showings_kept": "{count} showings of {ball_set} are kept from the control page: judge "
    "those, or discard them before judging others",
    "cross_readings_count": "{count} cross readings given for {showings} showings: one is "
    "needed for each showing, in order",
    "cross_reading_disagrees": "showing {index} (ball {ball}): its cross reading confirms ball "
    "{confirmed}, but the camera's best guess was {guess}",
    "no_camera": "this hall has no camera to commission a set for",
    "commissioned_between_games": "a ball set is commissioned between games, not in {phase}",
    "no_such_ball_set": "{command}: no ball set {ball_set} is registered",
    "showings_per_ball_whole": "showings_per_ball must be a whole number",
    "showings_per_ball_range": "showings_per_ball must be 1 to {maximum}",
    "show_balls_first": "a real camera is shown each ball by the staff: show_ball_to_camera "
    "for every ball (or `bingo-hall commission-ball-set` at the hub), then commission_ball_set",
    "showings_per_ball_simulated": "commission_ball_set: showings_per_ball is for a simulated "
    "camera; the balls shown of {ball_set} are judged as shown",
    # series and the sale
    "series_id_form": "series id {series} must be a letter (or two) and an identification "
    "number, e.g. A17",
    "series_already_registered": "series {series} is already registered",
    "face_value_range": "face value of series {series} must be positive and at most {maximum}",
    "face_value_decimals": "face value {value} has more than two decimals",
    "series_size_range": "series size must be 1 to {maximum}, not {size}",
    "series_named_twice": "a series is named twice",
    "too_many_series": "profile {profile} allows {maximum} series per game, not {count}",
    "series_not_registered": "series {series} is not registered",
    "series_sold_out": "series {series} has no cards left",
    "series_not_on_sale": "series {series} is not on sale in this game (on sale: {on_sale})",
    "sale_not_consecutive": "cards are sold consecutively: the next card of series {series} "
    "is no. {next}, not {first}",
    "range_empty": "the range {first}-{last} is empty",
    "card_beyond_series": "series {series} has {size} cards; card {card} does not exist",
    "no_terminals": "profile {profile} has no auxiliary terminals",
    "whole_blocks": "a terminal buys whole blocks of {block} cards",
    "purchase_repeated": "terminal {terminal} already made purchase {purchase} in this game",
    "terminal_series_limit": "terminal {terminal} already plays {count} series in this game; "
    "the limit per machine and player is {limit}",
    "player_name": "buy_cards needs player: a name of 1-32 characters",
    "purchase_form": "buy_cards: purchase must be 8-64 letters, digits, '-' or '_'",
    "purchase_name_taken": "buy_cards: purchase {purchase} bought series {series} for "
    "{player}; a new purchase needs a new name",
    "no_series_here": "buy_cards: no series {series} in this hall",
    "no_game_on_sale": "buy_cards: game {game} is not the game on sale (no game)",
    "not_the_game_on_sale": "buy_cards: game {game} is not the game on sale (game {on_sale})",
    "nothing_sold": "no card has been sold: record a sale, or void the game",
    "no_paying_line": "profile {profile} does not allow a designated paying line",
    "duplicate_cards": "announce_series: the same card is printed more than once ({cards}): "
    "a game cannot be sold on these series",
    # balls and the camera's check
    "ball_out_of_range": "ball {ball} does not exist: balls are numbered 1 to 90",
    "ball_already_drawn": "ball {ball} was already drawn (ball {ordinal})",
    "camera_does_not_confirm": "the camera does not confirm ball {ball} (it reads {reading}): "
    "the ball must be held for the Jefe de Mesa",
    "set_not_commissioned": "ball set {ball_set} has not passed its camera commissioning: the "
    "camera cannot confirm its calls; ball {ball} must be held for the Jefe de Mesa",
    "nothing_to_hold": "the camera confirms ball {ball}: there is nothing to hold",
    "random_draw_takes_no_number": "this hall draws from the certified random draw: send no number",
    "not_a_ball": "{command}: number must be a ball, 1 to 90",
    # claims
    "no_such_card": "series {series} has no card no. {card}",
    "claim_repeated": "card {series}-{card} already has a {status} {kind} claim (claim {claim})",
    "no_claim_waiting": "no claim is waiting for verification",
    "claims_waiting": "claims are waiting for verification: verify them before the order",
    "window_too_short": "«¿Alguna línea más? ¿Algún bingo más?» has been open {waited} s; "
    "profile {profile} leaves at least {minimum} s",
    "claim_needs_card": "call_claim needs series_id (text) and card_number (a number)",
    "unknown_master_card": "the hall has no master card {series}-{card}",
    "card_not_bought_here": "terminal {terminal} did not buy card {series}-{card} in this game",
    "claim_not_complete": "card {series}-{card} does not hold a {kind} with the numbers "
    "announced: {needs} still to come",
    "invalid_card": "invalid card: {violations}",
    # voids, prizes, refunds, requests
    "void_reason_not_in_profile": "profile {profile} does not name {reason} as a cause of a "
    "void game (causes: {causes})",
    "no_number_announced": "game {game} has announced no number yet, so no announcement error "
    "can void it; name the cause that stops it",
    "no_such_request": "no request or complaint no. {request} has been recorded",
    "request_answered": "request or complaint no. {request} has already been answered",
    "no_such_prize": "game {game} has no prize for claim {claim}",
    "prize_paid": "the prize of claim {claim} in game {game} is already paid",
    "prize_paid_at_game_end": "this {kind} prize is paid at the end of the game",
    "prize_paid_later": "this {kind} prize is paid later",
    "game_not_voided": "game {game} was not voided: only a voided game's cards are refunded",
    "no_refund_owed": "voided game {game} owes no refund: it sold no card, or every card it "
    "sold has been refunded",
    "refund_range_reversed": "cards {series} nº {first}–{last}: the first card is after the last",
    "refund_not_sold": "cards {series} nº {first}–{last} were not all sold in game {game}, so "
    "they are not refunded (its refunds: {refunds})",
    "refund_not_sold_none": "cards {series} nº {first}–{last} were not all sold in game {game}, "
    "so they are not refunded (its refunds: none, nothing was sold)",
    "refund_paid": "card {series} nº {card} of game {game} has already been refunded "
    "(nº {paid_first}–{paid_last})",
    # the records (the acta, a table's record) asked of what the log does not hold
    "no_such_game": "hall {hall} has no game {game}",
    "no_such_session": "hall {hall} has no session {session}",
    "table_never_opened": "table {table} has no session in the log",
    "no_such_table_session": "table {table} has no session {session} (its sessions: {sessions})",
    # a casino table's coup, as its station meets them
    "table_no_rotation": "no spinning rotation is set: the director gives the croupiers' order "
    "(set_spin_rotation) before the first coup (N79 L127, L424)",
    "table_not_spinners_turn": "it is {due}'s turn to spin (rotation: {rotation}; N79 L127), "
    "not {spun_by}'s",
    "table_void_relaunched_by": "coup {coup} was void: {due}, who launched it, launches it "
    "again (N79 L232), not {spun_by}",
    "table_direction_needed": "give the cylinder's direction ({direction}): it turns opposite "
    "to the coup before (N79 L224)",
    "table_first_direction_needed": "give the cylinder's direction (clockwise or "
    "anticlockwise): the session's first coup sets it, and each coup turns it the other way "
    "(N79 L224)",
    "table_direction_wrong": "the cylinder turned {before} on the coup before, so it turns "
    "{due} now (N79 L224 «en un sentido opuesto a la anterior»)",
    "table_bet_below_minimum": "bet {bet}: a {type} bet of {amount} is below the minimum {minimum}",
    "table_bet_above_maximum": "bet {bet}: a {type} bet of {amount} is above its maximum {maximum}",
    "table_bet_not_whole_unit": "bet {bet}: {amount} is not a whole number of {unit}",
    "table_seal_needed": "the cylinder was closed with seal {seal}: say the seal (or key) "
    "found on it (seal_found)",
    "table_seal_mismatch": "the seal on the cylinder, {found}, is not the one it was closed "
    "with, {expected}: the cylinder may have been opened. The table opens only with a note of "
    "what was found and whom it was reported to (seal_note); the finding is on the record",
}


def english(reason: str, params: Mapping[str, Param]) -> str:
    """The refusal's English text, its parameters filled in (a list joined with commas)."""
    return REFUSALS[reason].format_map({name: _text(value) for name, value in params.items()})


def _text(value: Param) -> str:
    if isinstance(value, str | int | Term):
        return str(value)
    return ", ".join(str(item) for item in value)


def params_json(params: Mapping[str, Param]) -> dict[str, Any]:
    """The parameters as the pages get them: a term as `{"key", "text"}`, which a page
    translates (`i18n.fill`), a list as a list."""
    return {name: _json(value) for name, value in params.items()}


def _json(value: Param) -> Any:
    if isinstance(value, Term):
        said = {"key": f"{value.family}.{value.name}", "text": str(value)}
        return said | {"vars": dict(value.vars)} if value.vars else said
    if isinstance(value, str | int):
        return value
    return [_json(item) for item in value]
