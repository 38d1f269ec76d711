"""The table profiles as data: they load, they differ where the texts differ, and a broken
profile file is refused with a one-line reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from tables_support import PROFILES

from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.config import (
    TABLE_PROFILES_DIR,
    find_table_profile,
    load_table_profile,
)
from bingo_hall.tables.profiles import GameName, LimitChange, PaymentRule

F, A, A00, B, W = (g.value for g in GameName)


def test_the_shipped_profiles_and_their_games():
    assert {k: sorted(g.value for g in p.games) for k, p in PROFILES.items()} == {
        "1977": sorted([F, A, B]),
        "1979": sorted([F, A, B]),
        "asturias": sorted([F, A, A00, B]),
        "basque": sorted([F, A, B, W]),
        "wof-003": [W],
    }


def test_only_the_replaced_1977_catalogue_is_not_for_live_tables():
    """Spec §0.3: ES-1977 is kept for comparison; N79 replaced it (N79 L82)."""
    assert {p for p, profile in PROFILES.items() if not profile.live} == {"1977"}


def rule(profile: str, game: str, name: str):
    return getattr(PROFILES[profile].rules(game), name)


@pytest.mark.parametrize(
    ("setting", "game", "values"),
    [
        # bets of zero: only AST and EUS list the trios and the first four (spec §9.1)
        ("zero_trios", F, {"1977": (), "1979": (), "asturias": 2, "basque": 2}),
        (
            "limit_change",
            F,
            {
                "1977": LimitChange.WITH_AUTHORISATION,
                "1979": LimitChange.FORBIDDEN,
                "asturias": LimitChange.FORBIDDEN,
                "basque": LimitChange.AFTER_LAST_BALLS,
            },
        ),
        ("last_coups_announced", F, {"1977": 1, "1979": 1, "asturias": 1, "basque": 3}),
        (
            "bets_after_void",
            F,
            {"1977": "frozen", "1979": "frozen", "asturias": "frozen", "basque": "open"},
        ),
        ("even_minimum_max_multiple", A, {"1977": 1, "1979": 1, "asturias": 5, "basque": 5}),
        (
            "pay_player_wins_at_once",
            A,
            {"1977": False, "1979": True, "asturias": True, "basque": True},
        ),
        ("at_once_excludes_even_chances", A, {"1979": False, "basque": True}),
        ("holes_per_number", B, {"1977": 1, "1979": 2, "basque": 2}),
        (
            "one_table_at_minimum",
            F,
            {"1977": False, "1979": True, "asturias": True, "basque": True},
        ),
        ("min_spinners", B, {"1977": 2, "1979": 2, "asturias": 2, "basque": 2}),
        ("spin_direction", W, {"basque": "unruled", "wof-003": "clockwise"}),
        ("tables_per_head", B, {"1977": 1, "1979": 1, "asturias": 1, "basque": 4}),
        ("min_revolutions", W, {"basque": 0, "wof-003": 4}),
        (
            "payment_rule",
            W,
            {"basque": PaymentRule.AS_PLACED, "wof-003": PaymentRule.SMALLEST_FIRST},
        ),
    ],
)
def test_profiles_differ_where_the_texts_differ(setting, game, values):
    for profile, expected in values.items():
        found = rule(profile, game, setting)
        if (
            isinstance(expected, int)
            and not isinstance(expected, bool)
            and isinstance(found, tuple)
        ):
            found = len(found)
        assert found == expected, (profile, setting)


def test_the_prison_below_minimum_clause_is_absent_only_in_1977():
    stays = {
        p: rule(p, F, "prison").below_minimum_stays for p in ("1977", "1979", "asturias", "basque")
    }
    assert stays == {"1977": False, "1979": True, "asturias": True, "basque": True}


def test_void_triggers_per_profile():
    reasons = {
        p: {r.value for r in rule(p, F, "void_reasons")}
        for p in ("1977", "1979", "asturias", "basque")
    }
    assert reasons["1977"] == {"object_in_wheel"}
    assert (
        reasons["1979"]
        == reasons["basque"]
        == {"object_in_wheel", "ball_left_wheel", "defective_launch"}
    )
    assert reasons["asturias"] == reasons["1979"] | {"ball_did_not_drop"}
    assert {r.value for r in rule("wof-003", W, "void_reasons")} == {
        "pointer_on_pin",
        "obstruction",
        "too_few_revolutions",
    }


def test_only_the_basque_text_has_neighbour_and_sector_bets():
    for profile in PROFILES:
        for game in PROFILES[profile].games:
            types = set(PROFILES[profile].games[game].bet_types)
            has = {"neighbours", "voisins", "tiers", "orphelins"} <= types
            assert has == (profile == "basque" and game.value in (F, A)), (profile, game)


def test_an_unknown_profile_lists_the_known_ones():
    with pytest.raises(RuleError, match="unknown table profile 'navarra'; profiles: 1977, 1979"):
        find_table_profile("navarra")


BROKEN = [
    ("payment_order = [", "is not valid TOML"),
    ('payment_order = ["column"]', "payment_order does not place"),
    ('bet_types = ["straight", "banca"]', "unknown bet types ['banca']"),
]


@pytest.mark.parametrize(("change", "reason"), BROKEN)
def test_a_broken_profile_file_is_refused_with_its_name_and_the_reason(tmp_path, change, reason):
    text = (TABLE_PROFILES_DIR / "1979.toml").read_text(encoding="utf-8")
    key = change.split(" = ")[0]
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
    end = start
    while not lines[end].rstrip().endswith("]"):
        end += 1
    lines[start : end + 1] = [change]
    path = tmp_path / "1979.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(RuleError) as error:
        load_table_profile(path)
    assert str(path) in error.value.message and reason in error.value.message
    assert "\n" not in error.value.message


def test_a_wheel_of_fortune_must_have_its_54_slots(tmp_path):
    text = (TABLE_PROFILES_DIR / "wof-003.toml").read_text(encoding="utf-8")
    path = Path(tmp_path / "wof-003.toml")
    path.write_text(text.replace("slots = 24", "slots = 23"), encoding="utf-8")
    with pytest.raises(RuleError, match="do not add up to 54"):
        load_table_profile(path)
