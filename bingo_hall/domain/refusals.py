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
    # a casino table's spinning rotation, its spin and its outcome
    "table_rotation_empty_name": "the rotation names an empty croupier",
    "table_rotation_repeats": "the rotation names {croupiers} more than once: each croupier "
    "spins once a round (N79 L127 «sucesivamente»)",
    "table_rotation_too_short": "under {game} under profile {profile} the rotation names at "
    "least {least} croupiers: none may specialise in throwing the ball (N79 L424, EUS L652)",
    "table_wheel_turns_clockwise": "under {game} under profile {profile} the wheel is set "
    "turning clockwise (WOF L25 «en el sentido de las agujas del reloj»), not anticlockwise",
    "table_already_spinning": "coup {coup} is already spinning: record where the ball stops "
    "(after «no va más»), or declare the coup void",
    "table_spin_before_no_more": "coup {coup} has not been spun: {due} spins before «no va más» "
    "(N79 L226: it is called as the ball slows)",
    "table_spin_again_before_no_more": "coup {coup} has not been spun again after its void: "
    "{due} spins before «no va más» (N79 L226: it is called as the ball slows)",
    "table_spin_before_outcome": "coup {coup} has not been spun: {due} spins before the outcome "
    "is recorded",
    "table_spin_again_before_outcome": "coup {coup} has not been spun again after its void: "
    "{due} spins before the outcome is recorded",
    "table_outcome_not_on_wheel": "outcome {outcome} is not on the {game} wheel ({pockets})",
    "table_revolutions_needed": "{game} under profile {profile}: record the wheel's complete "
    "revolutions after the second impulse (at least {least}, WOF L27)",
    # a casino table's session and who directs it
    "table_not_open": "the table is not open",
    "table_heads_already": "{head} heads table {table} already",
    "table_deputy_already": "{head} is the deputy head of table {table} already",
    "table_not_headed_by": "under {game} under profile {profile} a table is headed by: {roles}; "
    "not by the {role}",
    "table_two_layouts_roulette_only": "{game} under profile {profile}: a table on two layouts "
    "is a roulette's («a dos paños», N79 L111); not this game's",
    "table_no_deputy_head": "{game} under profile {profile}: a table has no deputy head under "
    "this profile",
    "table_deputy_two_layouts_only": "{game} under profile {profile}: only a table on two "
    "layouts has a deputy head (N79 L119-121); this one has one layout",
    "table_head_of_its_own": "{head} heads {already} already, and {table} ({game} under profile "
    "{profile}) has a head of its own (N79 L117-121): another head takes one of them first",
    "table_head_directs_at_most": "{head} heads {already} already: one head directs at most "
    "{most} tables (EUS L224)",
    "table_head_across_sectors": "{head} heads {already} already: one head directs several "
    "tables only in one sector (EUS L224), and these are not ({where})",
    "table_closed_for_a_while": "table {table} is closed for a while, its float locked: the "
    "director who holds the key ({key}) resumes it or closes it (EUS L306)",
    "table_not_its_head": "table {table}: {head} does not head it (its head: {current}); a "
    "table's head directs the tables he heads: take it first (take_table)",
    "table_not_its_head_none": "table {table}: {head} does not head it (its head: none); a "
    "table's head directs the tables he heads: take it first (take_table)",
    "table_not_its_deputy": "table {table}: {head} is not its deputy head (its deputy: "
    "{current}): take it first (take_table)",
    "table_not_its_deputy_none": "table {table}: {head} is not its deputy head (its deputy: "
    "none): take it first (take_table)",
    "table_deputy_elsewhere": "table {table}: {deputy} is the deputy head of {other} already: a "
    "deputy head stands at one table (N79 L119)",
    # who gives a casino table's command, and its arguments
    "table_unknown": "there is no table {table} (tables: {tables})",
    "table_unknown_none": "there is no table {table} (tables: none)",
    "table_unknown_command": "there is no table command {command}; table commands: {commands}",
    "table_other_tables_device": "{kind} {who} (role {role}) may not give {command} at table "
    "{table}: it is table {own}'s device and acts on that table only",
    "table_not_your_command": "{kind} {who} (role {role}) may not give the table command "
    "{command}; role {role} may give at a table: {allowed}",
    "table_no_command_of_yours": "{kind} {who} (role {role}) may not give the table command "
    "{command}; role {role} may give at a table: none",
    "table_money_as_float": "{command}: {field}: give money as a decimal string, not a float",
    "table_spins_as_himself": "{command}: {field}: {who} spins as himself, not as {named}: leave "
    "it out",
    "table_exchanges_as_himself": "{command}: {field}: {who} makes the exchange as himself, not "
    "as {named}: leave it out",
    "table_station_names_spinner": "{command}: {field}: a table's station names the croupier who "
    "spins",
    "table_station_names_exchanger": "{command}: {field}: a table's station names the croupier "
    "who makes the exchange",
    "table_not_active_croupiers": "{command}: {field}: not an active croupier of the hall: "
    "{unknown} (its croupiers: {croupiers})",
    "table_no_active_croupiers": "{command}: {field}: not an active croupier of the hall: "
    "{unknown} (its croupiers: none)",
    "table_resume_head_not_staff": "resume_table: head: {head} is not an active table head or "
    "inspector of the hall",
    # a casino table's float and its amounts
    "table_amount_positive": "{what} is a positive amount in units of {unit}, up to {largest}, "
    "not {amount}",
    "table_amount_zero_or_more": "{what} is an amount of 0 or more in units of {unit}, up to "
    "{largest}, not {amount}",
    "table_float_needed": "{game} under profile {profile}: a table is given a float of at least "
    "{least} ({minimum} × {multiple}, EUS L51-53): configure its float",
    "table_float_below_minimum": "{game} under profile {profile}: its float {amount} is below "
    "the {least} a table at minimum {minimum} is given ({minimum} × {multiple}, EUS L51-53)",
    "table_top_up_in_proportion": "{game} under profile {profile}: raising the minimum from "
    "{old} to {new} tops the float {float} up by at least {due}, not {top_up}: the float rises "
    "in proportion to the minimum (N77 L285-290)",
    "table_top_up_below_least": "{game} under profile {profile}: raising the minimum from {old} "
    "to {new} tops the float {float} up by at least {due}, not {top_up}: a float is at least "
    "{multiple} times the minimum",
    "table_float_count_needed": "{game} under profile {profile}: count the float before closing "
    "(float_count): it goes back to the cash desk against the {amount} handed and topped up",
    "table_exchange_uncontrolled": "an exchange is made under the control of the table's head or "
    "deputy head («el jefe y el subjefe … controlar los cambios», N79 L125): the table has "
    "neither; one takes it first (take_table)",
    # a casino table's limits, and the rules spanning the tables
    "table_tier_needed": "choose the table's tier (straight-up maximum as a multiple of the "
    "minimum): one of {tiers}",
    "table_tier_not_allowed": "tier {tier} is not allowed: the straight-up maximum is one of "
    "{tiers} × the minimum under this profile",
    "table_even_minimum_range": "the even-chance minimum may be 1 to {most} × the table minimum "
    "under this profile, not {given}",
    "table_even_multiples_not_allowed": "this profile does not let the casino require "
    "even-chance multiples",
    "table_number_maximum_band": "the number maximum must be {low} to {high} × the minimum, not "
    "{given}",
    "table_even_maximum_band": "the even-chance maximum must be {low} to {high} × the minimum, "
    "not {given}",
    "table_layout_minimum": "a boule layout plays at {multiples} or {last} × the authorised "
    "minimum, not {given}",
    "table_layout_minimum_one": "a boule layout plays at {multiple} × the authorised minimum, "
    "not {given}",
    "table_fortune_maximum_needed": "a wheel-of-fortune table needs its maximum (WOF L19-21, EUS "
    "L1521)",
    "table_maximum_below_minimum": "the maximum {maximum} is below the minimum {minimum}",
    "table_one_above_minimum": "{game} table {tables} would play above the authorised minimum "
    "{minimum} with none of the game at it: one table of the game keeps the authorised minimum "
    "while any plays (N79 L216, EUS L308)",
    "table_all_above_minimum": "{game} tables {tables} would play above the authorised minimum "
    "{minimum} with none of the game at it: one table of the game keeps the authorised minimum "
    "while any plays (N79 L216, EUS L308)",
    "table_boule_floor_layout": "boule layout {tables} would play at twice the authorised "
    "minimum with no boule layout open at the authorised minimum: one must keep it while any "
    "plays at twice it (N79 L440)",
    "table_boule_floor_layouts": "boule layouts {tables} would play at twice the authorised "
    "minimum with no boule layout open at the authorised minimum: one must keep it while any "
    "plays at twice it (N79 L440)",
    "table_limits_frozen": "{game} under profile {profile}: once a table is running its limits "
    "may not change during the session (N79 L210-218; AST L258-279); the attempt is on the record",
    "table_authorisation_needed": "{game} under profile {profile}: a new minimum needs the "
    "authority's authorisation, and cannot apply before it is granted (N77 L277-291): give its "
    "reference",
    "table_limits_change_pending": "a change of limits is already announced: its last balls are "
    "not over",
    "table_minimum_only_raised": "{game} under profile {profile}: under this profile a table's "
    "minimum may only be raised (N77 L277-291), not changed from {old} to {new}",
    "table_minimum_below_authorised": "{game} under profile {profile}: a change may not take the "
    "minimum below the authorised {authorised} (the licence sets it, EUS L290), not to {new}",
    # a casino table's colour chips and value chips
    "table_no_colour_chips": "{game} under profile {profile} has no colour chips (American "
    "roulette: N79 L246)",
    "table_colour_taken": "colour {colour} is already {player}'s",
    "table_colour_not_held": "colour {colour} is held by no player at this table",
    "table_colour_bets_on_layout": "colour {colour}: {player}'s bets in it are on the layout "
    "({bets}): he leaves the colour once they are settled",
    "table_colour_value_fixed": "colour {colour}: its chips are worth {value} and bets in it are "
    "on the layout ({bets}); its value is fixed when the stack is received (N79 L270), so it "
    "cannot become {new} before they are settled",
    "table_colours_held_at_close": "colour chips are still held: {held}; they are the table's "
    "and it closes: change them back (return_colour_chips) first",
    "table_colours_held_at_suspension": "colour chips are still held: {held}; a player holding "
    "them is a customer at the table: change them back (return_colour_chips) first",
    "table_colour_not_whole_unit": "colour {colour}: {value} is not a whole number of {unit}",
    "table_colour_value_range": "colour {colour}: a chip's value must be between the straight-up "
    "minimum {minimum} and maximum {maximum}, not {value}",
    "table_value_chips_not_controlled": "{game} under profile {profile}: no one allows or stops "
    "bets in value chips under this profile (the Basque American table's head or inspector does, "
    "EUS L338)",
    "table_value_chips_allowed_already": "new bets in value chips are allowed already",
    "table_value_chips_stopped_already": "new bets in value chips are stopped already",
    "table_value_chip_bets_stopped": "bet {bet}: the head has stopped new bets in value chips at "
    "this table (EUS L338 c): bet in colour chips",
    "table_value_chip_bet_names_player": "bet {bet}: a bet in value chips names its player, who "
    "must stay identifiable (EUS L338 c)",
    # a casino table's close, and its closing for a while
    "table_last_coups_announced_already": "the last coups of this session have already been "
    "announced",
    "table_bets_in_prison": "{count} bets are in prison ({bets}): play on until they are freed "
    "or lost; announce the last coup so that a zero refunds them",
    "table_last_coups_not_announced": "{game} under profile {profile}: announce the last {count} "
    "balls of the session before closing (EUS L2923)",
    "table_last_coups_to_play": "{count} of the announced last coups are still to play",
    "table_no_temporary_closure": "{game} under profile {profile}: a table is not closed for a "
    "while during the session; only the Basque catalogue provides it (EUS L306): close it",
    "table_suspend_with_bets": "bets are on the layout ({bets}): a table closes for a while only "
    "when left without customers («bezerorik gabe», EUS L306)",
    "table_suspend_after_last_coups": "the session's last coups are announced: play them and "
    "close the table; a table closes for a while only with the session still to run (EUS L2931 d)",
    "table_closing_time_unknown": "the hall's closing time is not configured (closing_time): a "
    "table closes for a while only with at least an hour left before the casino's closing time "
    "(EUS L2931 d); set it in the hall's configuration",
    "table_closing_too_soon": "the casino closes at {at}, {minutes} minutes from now: a table "
    "closes for a while only with at least an hour left before the closing time (EUS L2931 d); "
    "keep it open, or close it",
    "table_closing_in_a_minute": "the casino closes at {at}, {minutes} minute from now: a table "
    "closes for a while only with at least an hour left before the closing time (EUS L2931 d); "
    "keep it open, or close it",
    # a casino table's coup
    "table_bets_not_opened_by": "under {game} under profile {profile} «hagan sus apuestas» is "
    "announced by: {roles}; not by the {role}",
    "table_last_coup_played": "the announced last coup has been played: close the table",
    "table_bet_id_taken": "bet id {bet} is already on the layout",
    "table_bet_placed_in_prison": "bet {bet}: a bet goes to prison only on a zero, not when placed",
    "table_bet_colour_not_issued": "bet {bet}: colour {colour} was not issued to it",
    "table_no_such_bet": "there is no bet {bet} on the layout",
    "table_bet_in_prison_stays": "bet {bet} is in prison and cannot be withdrawn (spec §2.5)",
    "table_void_reason_not_in_profile": "{game} under profile {profile} has no void coup for "
    "{reason} (its reasons: {reasons})",
    "table_void_only_when_no_head": "under {game} under profile {profile} the {role} declares a "
    "void coup only when no {head} is at the table: say that none is (no_head_present), or let "
    "them declare it",
    "table_void_only_when_no_heads": "under {game} under profile {profile} the {role} declares a "
    "void coup only when no {heads} or {head} is at the table: say that none is "
    "(no_head_present), or let them declare it",
    "table_no_head_present_not_for_role": "no_head_present is for a role that declares a void "
    "coup only in the head's absence; under {game} under profile {profile} the {role} declares "
    "it as such",
    "table_void_declared_by": "under {game} under profile {profile} a void coup is declared by: "
    "{heads}; not by the {role}",
    "table_void_declared_by_or_absent": "under {game} under profile {profile} a void coup is "
    "declared by: {heads} (or, when none is there, {absent}); not by the {role}",
    "table_zero_choice_even_chances_only": "bet {bet}: only even chances at French roulette "
    "choose on a zero",
    "table_outcome_not_a_zero": "the outcome is {outcome}, not a zero: there is nothing to choose",
    "table_zero_choice_last_coup": "bet {bet} cannot choose {choice}: on the last coup of the "
    "session the half is refunded (N79 L171)",
    "table_zero_choice_below_minimum": "bet {bet} cannot choose {choice}: its value is below the "
    "table minimum, so it stays in prison (N79 L169)",
    # a casino table's bets as written
    "table_bet_not_on_wheel": "bet {bet}: {number} is not on the {game} wheel ({pockets})",
    "table_bet_number_twice": "bet {bet}: a number is given twice in {numbers}",
    "table_bet_one_number": "bet {bet}: a {type} bet names 1 number, not {count}",
    "table_bet_numbers": "bet {bet}: a {type} bet names {wanted} numbers, not {count}",
    "table_bet_five_number": "bet {bet}: the five-number bet is 0-00-1-2-3 on the double-zero "
    "wheel",
    "table_bet_not_a_sixline": "bet {bet}: {numbers} are not two adjacent rows of the layout",
    "table_bet_even_chance_numbers": "bet {bet}: an even-chance bet names no numbers (it covers "
    "its 18)",
    "table_bet_zero_split": "bet {bet}: the zero split is 0-00, on the double-zero wheel (AST "
    "L430-434)",
    "table_bet_not_a_zero_split": "bet {bet}: {numbers} is not a split of this layout (splits "
    "with zero: {allowed})",
    "table_bet_not_a_zero_split_none": "bet {bet}: {numbers} is not a split of this layout "
    "(splits with zero: none)",
    "table_bet_not_a_split": "bet {bet}: {first} and {second} do not touch on the layout, so "
    "they are not a split",
    "table_bet_not_a_zero_trio": "bet {bet}: {numbers} is not a trio of this table (trios with "
    "zero: {allowed})",
    "table_bet_not_a_zero_trio_none": "bet {bet}: {numbers} is not a trio of this table (trios "
    "with zero: none)",
    "table_bet_not_a_street": "bet {bet}: {numbers} are not a row (street) of the layout",
    "table_bet_first_four": "bet {bet}: the first four is 0-1-2-3, at tables whose catalogue "
    "lists it",
    "table_bet_not_a_corner": "bet {bet}: {numbers} do not meet at one corner of the layout",
    "table_bet_twelve": "bet {bet}: a {type} bet names the {type} (1, 2 or 3) or its 12 numbers",
    "table_bet_not_adjacent": "bet {bet}: {type} must be adjacent («a caballo»): 1-2 or 2-3",
    "table_bet_twenty_four": "bet {bet}: a {type} bet names two adjacent ones (1-2 or 2-3) or "
    "their 24 numbers",
    "table_bet_boule_even_chance_numbers": "bet {bet}: a boule even chance names no numbers (5 "
    "is never in one)",
    "table_bet_sector_numbers": "bet {bet}: a {type} bet names no numbers: its chips are fixed",
    "table_bet_sector_chips": "bet {bet}: a {type} bet is {units} equal chips: {amount} does not "
    "divide into {units} chips of whole {unit}",
    "table_bet_colour_chips_american_only": "bet {bet}: colour chips are used only at American "
    "roulette (N79 L246)",
    "table_bet_amount_or_colour": "bet {bet}: give either amount, or colour and chips",
    "table_bet_amount_missing": "bet {bet}: amount is missing",
    "table_bet_amount_not_positive": "bet {bet}: the amount must be positive, not {amount}",
    "table_bet_sector_chip_below_minimum": "bet {bet}: a {type} bet of {amount} makes chips of "
    "{chip}, below the minimum {minimum}",
    "table_bet_sector_position_above_maximum": "bet {bet}: a {type} bet ({position} {numbers}) "
    "of {amount} is above its maximum {maximum}",
    "table_bet_even_chance_multiple": "bet {bet}: even-chance stakes at this table are multiples "
    "of {multiple}",
    "table_bet_prison_even_chance_only": "bet {bet}: only an even-chance bet at French roulette "
    "can be in prison",
    "table_bet_zero_choice_even_chance_only": "bet {bet}: zero_choice applies only to even "
    "chances at French roulette",
    "table_bet_unknown_type": "bet {bet}: unknown bet type {given} for {game} (types: {types})",
    "table_bet_type_not_in_catalogue": "bet {bet}: {type} is not a bet of {game} under profile "
    "{profile} (its catalogue lists: {types})",
    "table_position_above_maximum": "bet {bet}: player {player} has {total} on {position} "
    "{numbers}, above its maximum {maximum}",
    "table_position_above_maximum_in_prison": "bet {bet}: player {player} has {total} on "
    "{position} {numbers} ({held}), above its maximum {maximum}",
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
