"""`bingo-hall tables settle`: settle one coup of a wheel game and print it as JSON."""

from __future__ import annotations

import argparse
import json
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.bets import (
    Bet,
    check_bet,
    check_colour_value,
    check_positions,
    request_from_json,
)
from bingo_hall.tables.config import TABLE_PROFILES_DIR, find_table_profile
from bingo_hall.tables.limits import (
    LimitChoice,
    ResolvedLimits,
    default_tier,
    limit_problem,
    resolve_limits,
)
from bingo_hall.tables.money import money
from bingo_hall.tables.profiles import (
    BouleRules,
    FortuneRules,
    GameName,
    RouletteRules,
    TableGame,
    VoidReason,
    ZeroChoice,
    table_game,
)
from bingo_hall.tables.settlement import (
    BetStatus,
    Settlement,
    check_outcome,
    settle,
    void_coup,
)
from card_generator.arguments import whole_number

PROFILE_NAMES = ("1977", "1979", "basque", "asturias", "wof-003")
DEFAULT_FORTUNE_MAXIMUM = 100  # × the minimum, when --maximum is not given


def _decimal(text: str, what: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise RuleError(f"{what} is not a number: {text!r}") from None
    if (problem := limit_problem(value)) is not None:
        raise RuleError(f"{what} {problem}, not {text!r}")
    return value


def read_bets_file(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuleError(f"bets file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RuleError(f"bets file {path} cannot be read: {error}") from None
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise RuleError(
            f"bets file {path} is not JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise RuleError(f"bets file {path} is not JSON: nested too deep") from None
    except ValueError:  # an integer of thousands of digits
        raise RuleError(f"bets file {path} is not JSON: a number too long") from None
    if not isinstance(data, list):
        raise RuleError(f"bets file {path} must hold a JSON list of bets")
    return data


def _refuse_misplaced(args: argparse.Namespace, table: TableGame) -> None:
    """An option given for a game it does not apply to is refused, not ignored: a croupier who
    gives one expects it to change the settlement."""
    rules = table.rules
    has_prison = isinstance(rules, RouletteRules) and rules.prison is not None
    misplaced = [
        option
        for option, given, applies in (
            ("--maximum", args.maximum is not None, isinstance(rules, FortuneRules)),
            ("--tier", args.tier is not None, not isinstance(rules, FortuneRules)),
            ("--even-tier", args.even_tier is not None, isinstance(rules, BouleRules)),
            ("--layout-minimum", args.layout_minimum != 1, isinstance(rules, BouleRules)),
            ("--even-minimum", args.even_minimum != 1, isinstance(rules, RouletteRules)),
            ("--even-multiples", args.even_multiples, isinstance(rules, RouletteRules)),
            ("--zero-choice", args.zero_choice is not None, has_prison),
        )
        if given and not applies
    ]
    if misplaced:
        why = " (it has no prison)" if misplaced[0] == "--zero-choice" else ""
        raise RuleError(f"{misplaced[0]} does not apply to {table.game.value}{why}")


def _choice(args: argparse.Namespace, table: TableGame) -> LimitChoice:
    minimum = _decimal(args.minimum, "--minimum")
    rules = table.rules
    _refuse_misplaced(args, table)
    tier = args.tier
    if tier is None and isinstance(rules, RouletteRules):
        tier = default_tier(rules)
    maximum = None
    if isinstance(rules, FortuneRules):
        maximum = (
            _decimal(args.maximum, "--maximum")
            if args.maximum is not None
            else minimum * DEFAULT_FORTUNE_MAXIMUM
        )
    try:
        return LimitChoice(
            minimum=minimum,
            tier=tier,
            even_tier=args.even_tier,
            maximum=maximum,
            layout_minimum=args.layout_minimum,
            even_minimum=args.even_minimum,
            even_multiples=args.even_multiples,
        )
    except ValidationError as error:  # e.g. the default maximum of a huge minimum
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        why = first["msg"].removeprefix("Value error, ")
        raise RuleError(f"the table's {where}: {why}") from None


def _colours(args: argparse.Namespace, table: TableGame, limits: ResolvedLimits) -> dict:
    colours: dict[str, Decimal] = {}
    rules = table.rules
    if args.colour and not (isinstance(rules, RouletteRules) and rules.colour_chips):
        raise RuleError(f"--colour: {table.label} has no colour chips (American roulette)")
    for item in args.colour or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise RuleError(f"--colour takes COLOUR=VALUE, not {item!r}")
        amount = _decimal(value, f"the value of colour {name}")
        check_colour_value(limits, name, amount, table.rounding_unit)
        colours[name] = amount
    return colours


def _bets(
    args: argparse.Namespace, table: TableGame, limits: ResolvedLimits, colours: dict
) -> list[Bet]:
    bets: list[Bet] = []
    seen: set[str] = set()
    for index, entry in enumerate(read_bets_file(Path(args.bets))):
        request = request_from_json(entry, index)
        if request.id in seen:
            raise RuleError(f"bet id {request.id!r} is used twice")
        seen.add(request.id)
        bets.append(check_bet(table, limits, request, colours))
    check_positions(bets, limits)
    return bets


def _void_reason(args: argparse.Namespace, table: TableGame) -> VoidReason | None:
    rules = table.rules
    if args.void is not None:
        try:
            reason = VoidReason(args.void)
        except ValueError:
            reason = None
        if reason is None or reason not in rules.void_reasons:
            raise RuleError(
                f"{args.void!r} is not a void reason of {table.label} (reasons: "
                f"{', '.join(r.value for r in rules.void_reasons) or 'none'})"
            )
        return reason
    if args.revolutions is not None and not isinstance(rules, FortuneRules):
        raise RuleError("--revolutions applies to the wheel of fortune only")
    if args.revolutions is not None and args.revolutions < 0:
        raise RuleError(f"--revolutions must be 0 or more, not {args.revolutions}")
    if isinstance(rules, FortuneRules) and rules.min_revolutions:
        if args.revolutions is None:
            raise RuleError(
                f"{table.label} needs --revolutions: the wheel must make at least "
                f"{rules.min_revolutions} revolutions after the second impulse (WOF L27)"
            )
        if args.revolutions < rules.min_revolutions:
            return VoidReason.TOO_FEW_REVOLUTIONS
    return None


def run_settle(args: argparse.Namespace) -> int:
    directory = Path(args.profiles) if args.profiles else TABLE_PROFILES_DIR
    if args.game not in {g.value for g in GameName}:
        raise RuleError(
            f"unknown game {args.game!r}; games: {', '.join(g.value for g in GameName)}"
        )
    table = table_game(find_table_profile(args.profile, directory), args.game)
    limits = resolve_limits(table.rules, _choice(args, table))
    bets = _bets(args, table, limits, _colours(args, table, limits))
    if args.outcome is not None:
        check_outcome(table, args.outcome)
    reason = _void_reason(args, table)
    if reason is not None:
        result = void_coup(table, bets, reason, last_coup=args.last_coup)
    else:
        if args.outcome is None:
            raise RuleError("give the coup's --outcome (or --void REASON)")
        choice = ZeroChoice(args.zero_choice) if args.zero_choice else None
        result = settle(
            table, limits, bets, args.outcome, last_coup=args.last_coup, zero_choice=choice
        )
    print(json.dumps(settlement_json(table, limits, result), ensure_ascii=False, indent=2))
    return 0


def settlement_json(table: TableGame, limits: ResolvedLimits, result: Settlement) -> dict:
    """The printed form: amounts as decimal strings, bets by id in the file's order."""
    unit = table.rounding_unit

    def m(amount: Decimal) -> str:
        return money(amount, unit)

    bets: dict[str, dict[str, Any]] = {}
    for r in result.results:
        entry: dict[str, Any] = {
            "type": r.type,
            "numbers": list(r.numbers),
            "stake": m(r.stake),
            "status": r.status.value,
            "returns": m(r.returns),
            "carried": m(r.carried),
            "residue": m(r.residue),
        }
        if r.player is not None:
            entry["player"] = r.player
        if r.status is BetStatus.PRISON or (r.status is BetStatus.VOID and r.prison):
            entry["prison"] = r.prison  # zeros it has been through: for the next coup's file
        if r.zero_choice is not None:
            entry["zero"] = r.prison  # the ordinal of the zero it just met
            entry["zero_choice"] = r.zero_choice.value
        if r.forced is not None:
            entry["forced"] = r.forced
        bets[r.id] = entry
    totals = result.totals
    return {
        "game": table.game.value,
        "profile": table.profile_id,
        "outcome": result.outcome,
        "void": result.void_reason.value if result.void_reason else None,
        "last_coup": result.last_coup,
        "currency": table.currency,
        "limits": {
            group: {"minimum": m(limit.minimum), "maximum": m(limit.maximum)}
            for group, limit in limits.groups.items()
        },
        "bets": bets,
        "totals": {
            "staked": m(totals.staked),
            "returns": m(totals.returns),
            "carried": m(totals.carried),
            "residue": m(totals.residue),
            "bank_result": m(totals.bank_result),
        },
        "collected": list(result.collected),
        "payment_order": [
            {"bet": p.bet, "type": p.kind, "amount": m(p.amount)}
            | ({"player": p.player} if p.player is not None else {})
            for p in result.payment_order
        ],
    }


def add_tables_parser(commands: argparse._SubParsersAction) -> None:
    """`bingo-hall tables …` (called from bingo_hall.cli.build_parser)."""
    tables = commands.add_parser(
        "tables",
        help="linked tables: settle a coup of a wheel game",
        description="The catalogue's table games (docs/tables.md). For now: the wheel games.",
    )
    sub = tables.add_subparsers(dest="tables_command", required=True)
    games = ", ".join(g.value for g in GameName)
    settle_parser = sub.add_parser(
        "settle",
        help="settle one coup and print it as JSON",
        description="Settles one coup of a wheel game under a rule profile: every bet of the "
        "bets file (a JSON list of {id, type, numbers, amount}; docs/tables.md) on the outcome, "
        "and prints per bet its status and returns (stake plus winnings handed back), the "
        "totals and the payment order, as JSON. Bad input: a one-line error, exit status 2.",
    )
    settle_parser.add_argument("--game", required=True, help=f"one of: {games}")
    settle_parser.add_argument(
        "--profile", required=True, help=f"rule profile: {', '.join(PROFILE_NAMES)}"
    )
    settle_parser.add_argument("--bets", required=True, metavar="FILE", help="JSON list of bets")
    outcome = settle_parser.add_mutually_exclusive_group(required=True)
    outcome.add_argument(
        "--outcome", help="the pocket (0-36, 00), boule number (1-9) or wheel segment (1 … joker)"
    )
    outcome.add_argument("--void", metavar="REASON", help="a void coup («tirada nula») and why")
    settle_parser.add_argument(
        "--zero-choice",
        choices=[c.value for c in ZeroChoice],
        help="French roulette, on a zero: what the players with even chances chose "
        "(default: the profile's, prison; a bet's own zero_choice wins)",
    )
    settle_parser.add_argument(
        "--last-coup",
        action="store_true",
        help="this is the last coup of the session: a zero forces the half back",
    )
    settle_parser.add_argument(
        "--revolutions",
        type=whole_number,
        help="wheel of fortune: complete revolutions after the second impulse",
    )
    settle_parser.add_argument("--minimum", default="1", help="table minimum (default 1)")
    settle_parser.add_argument(
        "--tier",
        type=whole_number,
        help="roulette: straight-up maximum × the minimum (default: the profile's highest); "
        "boule: number maximum × the minimum (default 100)",
    )
    settle_parser.add_argument(
        "--even-tier",
        type=whole_number,
        help="boule: even-chance maximum × the minimum (default 500)",
    )
    settle_parser.add_argument(
        "--maximum",
        help=f"wheel of fortune: table maximum (default {DEFAULT_FORTUNE_MAXIMUM} × the minimum)",
    )
    settle_parser.add_argument(
        "--layout-minimum",
        type=whole_number,
        default=1,
        help="boule: the layout plays at 1 or 2 × the authorised minimum",
    )
    settle_parser.add_argument(
        "--even-minimum",
        type=whole_number,
        default=1,
        help="roulette: even-chance minimum × the minimum (up to 5 where the profile allows)",
    )
    settle_parser.add_argument(
        "--even-multiples",
        action="store_true",
        help="even-chance stakes must be multiples of their minimum (basque)",
    )
    settle_parser.add_argument(
        "--colour",
        action="append",
        metavar="COLOUR=VALUE",
        help="American roulette: the value a player gave his colour chips (repeatable; "
        "default the table minimum)",
    )
    settle_parser.add_argument("--profiles", metavar="DIR", help="table profiles directory")
    settle_parser.set_defaults(run=run_settle)
