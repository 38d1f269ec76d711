"""`bingo-hall tables settle` through a subprocess: settlements as JSON, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "bingo-hall"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN), "tables", *args], capture_output=True, text=True, timeout=60, check=False
    )


def write(tmp_path: Path, bets: object, name: str = "bets.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(bets), encoding="utf-8")
    return str(path)


def settle(tmp_path: Path, game: str, profile: str, bets: object, *extra: str) -> dict:
    """Through the installed script, in a subprocess."""
    done = run(
        "settle", "--game", game, "--profile", profile, "--bets", write(tmp_path, bets), *extra
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


@pytest.fixture
def settle_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """The same command in-process (bingo_hall.cli.main): the subprocesses cost a second each."""
    from bingo_hall.cli import main

    def settle_(game: str, profile: str, bets: object, *extra: str) -> dict:
        bets_file = write(tmp_path, bets)
        argv = ["tables", "settle", "--game", game, "--profile", profile, "--bets", bets_file]
        assert main([*argv, *extra]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        return json.loads(out)

    return settle_


def test_the_1977_profile_settles_though_no_hall_table_plays_by_it(settle_main):
    """N77 has no below-minimum clause: at minimum 10, a red of 10 in prison (worth 5) meeting
    its second zero may still take the half, 2.50 (N79 L169 would keep it in prison)."""
    red = [{"id": "r", "type": "red", "amount": "10", "prison": 1, "zero_choice": "half"}]
    for profile, status, returns in (("1977", "half_back", "2.50"), ("1979", "prison", "0.00")):
        out = settle_main("french-roulette", profile, red, "--outcome", "0", "--minimum", "10")
        assert (out["bets"]["r"]["status"], out["bets"]["r"]["returns"]) == (status, returns)


def test_help_describes_the_command():
    done = run("settle", "--help")
    assert done.returncode == 0
    for option in ("--game", "--profile", "--bets", "--outcome", "--zero-choice", "--last-coup"):
        assert option in done.stdout


def test_spec_examples_1_to_4_on_a_1979_french_table(tmp_path):
    bets = [
        {"id": "b1", "type": "straight", "numbers": [17], "amount": "10"},
        {"id": "b2", "type": "split", "numbers": [17, 20], "amount": "10"},
        {"id": "b3", "type": "two_dozens", "numbers": [1, 2], "amount": "10"},
        {"id": "b4", "type": "red", "amount": "10"},
    ]
    out = settle(tmp_path, "french-roulette", "1979", bets, "--outcome", "17")
    got = {k: (v["status"], v["returns"]) for k, v in out["bets"].items()}
    assert got == {
        "b1": ("won", "360.00"),
        "b2": ("won", "180.00"),
        "b3": ("won", "15.00"),
        "b4": ("lost", "0.00"),
    }
    assert out["totals"] == {
        "staked": "40.00",
        "returns": "555.00",
        "carried": "0.00",
        "residue": "0.00",
        "bank_result": "-515.00",
    }
    assert [p["bet"] for p in out["payment_order"]] == ["b3", "b2", "b1"]
    assert out["collected"] == ["b4"]


def test_the_prison_chain_and_the_last_coup(tmp_path, settle_main):
    bets = [
        {"id": "new", "type": "red", "amount": "10"},
        {"id": "jailed", "type": "black", "amount": "10", "prison": 1},
        {"id": "own", "type": "odd", "amount": "10", "zero_choice": "prison"},
    ]
    out = settle(
        tmp_path, "french-roulette", "1979", bets, "--outcome", "0", "--zero-choice", "half"
    )
    assert out["bets"]["new"] == {
        "type": "red",
        "numbers": [],
        "stake": "10.00",
        "status": "half_back",
        "returns": "5.00",
        "carried": "0.00",
        "residue": "0.00",
        "zero": 1,
        "zero_choice": "half",
    }
    assert (out["bets"]["jailed"]["status"], out["bets"]["jailed"]["returns"]) == (
        "half_back",
        "2.50",
    )
    own = out["bets"]["own"]
    assert (own["status"], own["carried"], own["prison"]) == ("prison", "10.00", 1)
    last = settle_main("french-roulette", "1979", bets, "--outcome", "0", "--last-coup")
    assert {k: (v["returns"], v.get("forced")) for k, v in last["bets"].items()} == {
        "new": ("5.00", "last_coup"),
        "jailed": ("2.50", "last_coup"),
        "own": ("5.00", "last_coup"),
    }


def test_double_zero_basque_sectors_boule_and_wheels(settle_main):
    five = settle_main(
        "american-roulette-00",
        "asturias",
        [{"id": "f", "type": "five_number", "numbers": [0, "00", 1, 2, 3], "amount": "10"}],
        "--outcome",
        "00",
        "--tier",
        "30",
    )
    assert five["bets"]["f"]["returns"] == "70.00"  # example 12
    sectors = settle_main(
        "french-roulette",
        "basque",
        [
            {"id": "v", "type": "zero_sector", "amount": "9"},
            {"id": "o", "type": "zurtzak", "amount": "5"},
            {"id": "n", "type": "neighbours", "numbers": [17], "amount": "50"},
        ],
        "--outcome",
        "17",
    )
    assert {k: v["returns"] for k, v in sectors["bets"].items()} == {
        "v": "0.00",
        "o": "36.00",
        "n": "360.00",
    }
    boule = settle_main(
        "boule",
        "1979",
        [
            {"id": "n", "type": "number", "numbers": [5], "amount": "10"},
            {"id": "o", "type": "odd", "amount": "10"},
        ],
        "--outcome",
        "5",
    )
    assert {k: v["returns"] for k, v in boule["bets"].items()} == {"n": "80.00", "o": "0.00"}
    wheel = settle_main(
        "wheel-of-fortune",
        "wof-003",
        [{"id": "w", "type": "segment", "numbers": ["5"], "amount": "10"}],
        "--outcome",
        "5",
        "--revolutions",
        "4",
    )
    assert wheel["bets"]["w"]["returns"] == "60.00"  # example 18


def test_void_coups(tmp_path, settle_main):
    bets = [{"id": "w", "type": "segment", "numbers": ["joker"], "amount": "10"}]
    spun = settle(
        tmp_path, "wheel-of-fortune", "wof-003", bets, "--outcome", "joker", "--revolutions", "3"
    )
    assert (spun["void"], spun["bets"]["w"]["status"], spun["bets"]["w"]["returns"]) == (
        "too_few_revolutions",
        "void",
        "0.00",
    )
    assert spun["bets"]["w"]["carried"] == "10.00"
    roulette = settle_main(
        "french-roulette",
        "asturias",
        [{"id": "r", "type": "red", "amount": "10", "prison": 2}],
        "--void",
        "ball_did_not_drop",
        "--tier",
        "30",
    )
    r = roulette["bets"]["r"]
    assert (r["status"], r["stake"], r["returns"], r["carried"], r["prison"]) == (
        "void",
        "5.00",
        "0.00",
        "5.00",
        2,
    )
    assert roulette["totals"]["bank_result"] == "0.00"


CASES = [
    (["--game", "craps", "--profile", "1979"], "unknown game 'craps'"),
    (["--game", "boule", "--profile", "1990"], "unknown table profile '1990'"),
    (["--game", "wheel-of-fortune", "--profile", "1979"], "profile 1979 has no wheel-of-fortune"),
    (["--game", "american-roulette-00", "--profile", "basque"], "has no american-roulette-00"),
    (["--outcome", "37"], "outcome '37' is not on the french-roulette wheel"),
    (["--outcome", "00"], "outcome '00' is not on"),
    (["--void", "earthquake"], "'earthquake' is not a void reason of french-roulette"),
    (["--tier", "50"], "tier 50 is not allowed"),
    (["--minimum", "cheap"], "--minimum is not a number: 'cheap'"),
    (["--minimum", "1e999999"], "--minimum must be at most 1,000,000,000,000"),
    (["--minimum", "1.005"], "--minimum must be a whole number of cents, not '1.005'"),
    (["--minimum", "0"], "--minimum must be a positive amount"),
    (["--revolutions", "5"], "--revolutions applies to the wheel of fortune only"),
    (["--colour", "green=2"], "--colour: french-roulette under profile 1979 has no colour"),
    (["--maximum", "50"], "--maximum does not apply to french-roulette"),
    (["--game", "boule", "--even-minimum", "2"], "--even-minimum does not apply to boule"),
    (
        ["--game", "american-roulette", "--zero-choice", "half"],
        "--zero-choice does not apply to american-roulette (it has no prison)",
    ),
    (
        ["--game", "wheel-of-fortune", "--profile", "wof-003", "--tier", "5"],
        "--tier does not apply to wheel-of-fortune",
    ),
]
BAD_FILES = [
    (
        '[{"id": "a", "type": "split", "numbers": [17, 19], "amount": "10"}]',
        "bet a: 17 and 19 do not touch on the layout",
    ),
    (
        '[{"id": "a", "type": "straight", "numbers": [1], "amount": "31"}]',
        "bet a: a straight bet of 31 is above its maximum 30",
    ),
    (
        '[{"id": "a", "type": "red", "amount": "10"}, {"id": "a", "type": "red", "amount": "10"}]',
        "bet id 'a' is used twice",
    ),
    ('{"id": "a"}', "must hold a JSON list of bets"),
    ('[{"id": "a", "type": "red", "amount": "10"', "is not JSON"),
    ('[{"id": "a", "type": "red"}]', "bet a: amount is missing"),
    (  # more digits than a Decimal's context holds: still a stake above the maximum
        '[{"id": "a", "type": "straight", "numbers": [1], "amount": "1E+30"}]',
        "bet a: a straight bet of 1E+30 is above its maximum 30",
    ),
    ("[" * 100_000, "is not JSON: nested too deep"),
    ('[{"id": "a", "numbers": [' + "9" * 5000 + "]}]", "is not JSON: a number too long"),
]


def bad_input_commands(tmp_path: Path) -> list[tuple[list[str], str]]:
    good = write(tmp_path, [{"id": "a", "type": "red", "amount": "10"}], "good.json")
    commands = []
    for extra, message in CASES:
        base = {"--game": "french-roulette", "--profile": "1979", "--bets": good, "--outcome": "1"}
        for flag, value in zip(extra[::2], extra[1::2], strict=True):
            base[flag] = value
        if "--void" in base:
            del base["--outcome"]
        commands.append(([x for pair in base.items() for x in pair], message))
    for index, (text, message) in enumerate(BAD_FILES):
        path = tmp_path / f"bad{index}.json"
        path.write_text(text, encoding="utf-8")
        args = ["--game", "french-roulette", "--profile", "1979", "--bets", str(path)]
        commands.append(([*args, "--outcome", "1"], message))
    missing = ["--game", "boule", "--profile", "1979", "--bets", str(tmp_path / "nope.json")]
    commands.append(([*missing, "--outcome", "1"], "bets file not found"))
    segment = write(tmp_path, [{"id": "w", "type": "segment", "numbers": [1], "amount": "5"}])
    wof = ["--game", "wheel-of-fortune", "--profile", "wof-003", "--bets", segment]
    commands.append(([*wof, "--outcome", "1"], "needs --revolutions"))
    commands.append(([*wof, "--outcome", "3", "--revolutions", "5"], "outcome '3' is not on"))
    commands.append(([*wof, "--outcome", "1", "--revolutions", "-1"], "must be 0 or more"))
    huge = ["--outcome", "1", "--revolutions", "5"]
    commands.append(([*wof, *huge, "--maximum", "1e999999"], "--maximum must be at most"))
    commands.append(([*wof, *huge, "--minimum", "999999999999"], "the table's maximum: must be"))
    return commands


def test_bad_input_gives_one_line_naming_the_problem(tmp_path, capsys):
    """The whole matrix in-process (bingo_hall.cli.main, the same code the script runs)."""
    from bingo_hall.cli import main

    for args, message in bad_input_commands(tmp_path):
        assert main(["tables", "settle", *args]) == 2, args
        out, err = capsys.readouterr()
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bingo-hall: error: "), err
        assert message in lines[0], (message, lines[0])


def test_bad_input_through_the_script_exits_2_without_a_traceback(tmp_path):
    commands = [bad_input_commands(tmp_path)[i] for i in (2, 4, 10, 16)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda item: run("settle", *item[0]), commands))
    for (args, message), done in zip(commands, results, strict=True):
        assert done.returncode == 2, (args, done.stdout)
        assert done.stdout == "" and "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bingo-hall: error: ")
        assert message in lines[0]


def test_missing_arguments_are_an_argparse_usage_error(capsys):
    from bingo_hall.cli import main

    for args in (["tables"], ["tables", "settle"], ["tables", "settle", "--game", "boule"]):
        with pytest.raises(SystemExit) as exit_:
            main(args)
        assert exit_.value.code == 2
        assert "usage:" in capsys.readouterr().err
