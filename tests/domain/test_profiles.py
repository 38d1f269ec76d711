"""Rule profiles are data: the differences of spec §10 are settings, and bad files say where."""

from __future__ import annotations

from datetime import time
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bingo_hall.config import HallConfig, load_config, load_profile, load_profiles
from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.profiles import ClaimDeadline, RuleProfile, VoidReason
from bingo_hall.tables.closing import ClosingTime

REPO = Path(__file__).resolve().parents[2]
PROFILES_DIR = REPO / "config" / "profiles"
GOOD = (PROFILES_DIR / "1979.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def profiles() -> dict[str, RuleProfile]:
    return load_profiles(PROFILES_DIR)


def test_the_three_profiles_load_by_id(profiles):
    assert set(profiles) == {"1977", "1979", "basque"}
    for name, rules in profiles.items():
        assert load_profile(PROFILES_DIR / f"{name}.toml") == rules
        assert rules.id == name
        assert rules.title
        assert rules.line_prize_percent + rules.bingo_prize_percent <= 100
        assert rules.rounding_unit == Decimal("0.01")


# spec §10, one row per difference: the 1977 value, then the 1979 and Basque value.
DIFFERENCES = {
    "claim_deadline": (ClaimDeadline.NEXT_BALL, ClaimDeadline.UNTIL_ORDER),
    "last_number_on_combination": (True, False),
    "designated_line_allowed": (True, False),
    "max_series_per_game": (1, 0),
    "last_game_announcement_required": (True, False),
    "pneumatic_ball_set_game_limit": (0, 1000),
}


@pytest.mark.parametrize("setting", list(DIFFERENCES))
def test_the_differences_of_the_catalogues_are_settings(profiles, setting):
    in_1977, later = DIFFERENCES[setting]
    assert getattr(profiles["1977"], setting) == in_1977
    assert getattr(profiles["1979"], setting) == later
    assert getattr(profiles["basque"], setting) == later
    assert type(getattr(profiles["1977"], setting)) is type(in_1977)


def test_claim_deadline_values_are_the_documented_strings(profiles):
    assert profiles["1977"].claim_deadline.value == "next_ball"
    assert profiles["1979"].claim_deadline.value == "until_order"
    assert profiles["basque"].claim_deadline.value == "until_order"


def test_void_causes_per_catalogue(profiles):
    assert set(profiles["1977"].void_reasons) == {
        VoidReason.ANNOUNCEMENT_ERROR,
        VoidReason.EQUIPMENT_BREAKDOWN,
    }
    for name in ("1979", "basque"):
        assert VoidReason.REGLAMENTO_ART36_OTHER in profiles[name].void_reasons


def test_basque_auxiliary_terminals_and_series(profiles):
    assert profiles["basque"].terminals_per_hall_category == {
        "special": 12,
        "first": 12,
        "second": 8,
        "third": 6,
    }
    assert profiles["basque"].max_series_per_terminal_player == 6
    for name in ("1977", "1979"):
        assert profiles[name].terminals_per_hall_category == {}
        assert profiles[name].max_series_per_terminal_player == 0


def test_sale_wordings_are_the_catalogues(profiles):
    ranges = [("A17", 1, 54), ("B3", 7, 20)]
    assert profiles["1977"].sale_wording(ranges) == (
        "Se han vendido los cartones número 1 a 54 de la serie A17"
        " y los cartones número 7 a 20 de la serie B3"
    )
    assert profiles["1979"].sale_wording(ranges) == (
        "Cartones vendidos de la serie A17 del número 1 al 54 y de la serie B3 del número 7 al 20"
    )


# --- bad files --------------------------------------------------------------------------------


def with_value(key: str, value: str) -> str:
    """The 1979 profile with one `key = ...` line replaced."""
    lines = GOOD.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} ="))
    lines[index] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


def without(key: str) -> str:
    return "\n".join(line for line in GOOD.splitlines() if not line.startswith(f"{key} =")) + "\n"


BAD_PROFILES = {
    "a percentage that is not a number": (
        with_value("line_prize_percent", '"abc"'),
        "line_prize_percent",
    ),
    "a percentage that is NaN": (with_value("line_prize_percent", '"NaN"'), "line_prize_percent"),
    "a negative percentage": (with_value("line_prize_percent", '"-1"'), "line_prize_percent"),
    "a percentage over 100": (with_value("bingo_prize_percent", '"101"'), "bingo_prize_percent"),
    "percentages adding to more than 100": (
        with_value("bingo_prize_percent", '"91"'),
        "bingo_prize_percent",
    ),
    "a zero rounding unit": (with_value("rounding_unit", '"0"'), "rounding_unit"),
    "an unknown claim deadline": (with_value("claim_deadline", '"whenever"'), "claim_deadline"),
    "an unknown void cause": (with_value("void_reasons", '["lightning"]'), "void_reasons"),
    "a negative series limit": (with_value("max_series_per_game", "-1"), "max_series_per_game"),
    "a boolean given as text": (
        with_value("designated_line_allowed", '"maybe"'),
        "designated_line_allowed",
    ),
    "an unknown key": (GOOD + 'lucky_number = "7"\n', "lucky_number"),
    "a missing setting": (without("claim_deadline"), "claim_deadline"),
}


def assert_one_line_naming(error: RuleError, path: Path, field: str | None) -> None:
    message = str(error)
    assert "\n" not in message, message
    assert str(path) in message, message
    if field is not None:
        assert field in message, message


@pytest.mark.parametrize("case", list(BAD_PROFILES))
def test_a_bad_profile_names_the_file_and_the_field(tmp_path, case):
    text, field = BAD_PROFILES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_profile(path)
    assert_one_line_naming(raised.value, path, field)


def test_percentages_may_add_up_to_exactly_100(tmp_path):
    path = tmp_path / "full.toml"
    path.write_text(with_value("bingo_prize_percent", '"90"'), encoding="utf-8")
    assert load_profile(path).bingo_prize_percent == Decimal(90)


def test_a_missing_profile_file_is_named(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(RuleError) as raised:
        load_profile(path)
    assert_one_line_naming(raised.value, path, None)
    assert "not found" in str(raised.value)


def test_broken_toml_is_named_with_its_place(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(GOOD + "[[[\n", encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_profile(path)
    assert_one_line_naming(raised.value, path, None)
    assert "TOML" in str(raised.value)
    assert "line" in str(raised.value)


@pytest.mark.parametrize("kind", ["not UTF-8", "a directory"])
def test_an_unreadable_profile_file_is_a_rule_error(tmp_path, kind):
    """Any file that cannot be read as text is bad input: a RuleError naming it, no other
    exception (the CLI turns only RuleError/StoreError into a one-line message)."""
    path = tmp_path / "unreadable.toml"
    if kind == "a directory":
        path.mkdir()
    else:
        path.write_bytes(GOOD.encode("utf-8").replace("Catálogo".encode(), b"Cat\xe1logo"))
    with pytest.raises(RuleError) as raised:
        load_profile(path)
    assert_one_line_naming(raised.value, path, None)


def test_load_profiles_stops_at_the_first_bad_file(tmp_path):
    (tmp_path / "1979.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "zz.toml").write_text(with_value("rounding_unit", '"-0.01"'), encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_profiles(tmp_path)
    assert_one_line_naming(raised.value, tmp_path / "zz.toml", "rounding_unit")


# --- the hall configuration -------------------------------------------------------------------

GOOD_CONFIG = """\
hall_id = "sala-9"
profile = "basque"

[store]
url = "sqlite:///var/h.sqlite"

[machine]
kind = "drum"
"""


def test_the_repository_configuration_loads(tmp_path):
    config = load_config(REPO / "config" / "hall.toml")
    assert isinstance(config, HallConfig)
    assert config.hall_id == "sala-1"
    assert config.load_profile().id == config.profile == "1979"
    assert config.machine.kind == "pneumatic"
    assert config.store_url() == f"sqlite:///{REPO / 'var' / 'hall.sqlite'}"
    assert config.closing() == ClosingTime(time(4, 0), ZoneInfo("Europe/Madrid"))


def test_the_casinos_closing_time_is_configured_in_its_time_zone(tmp_path):
    """EUS L2931 d needs it; unset, there is none (and no table closes for a while)."""
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG, encoding="utf-8")
    config = load_config(path)
    assert (config.closing_time, config.time_zone, config.closing()) == (
        None,
        "Europe/Madrid",
        None,
    )
    top = 'closing_time = "03:30"\ntime_zone = "Atlantic/Canary"\n'
    path.write_text(top + GOOD_CONFIG, encoding="utf-8")
    closing = load_config(path).closing()
    assert closing == ClosingTime(time(3, 30), ZoneInfo("Atlantic/Canary"))
    path.write_text("closing_time = 03:30:00\n" + GOOD_CONFIG, encoding="utf-8")  # TOML's time
    assert load_config(path).closing_time == time(3, 30)


def test_the_simulated_sets_typeface_is_configured(tmp_path):
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG + '[camera]\nseed = 4\ntypeface = "times-bold"\n')
    camera = load_config(path).camera
    assert (camera.seed, camera.typeface) == (4, "times-bold")
    assert camera.call_witness_floor is None  # by default only the accepted reading confirms


def test_the_call_as_a_second_witness_is_configured(tmp_path):
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG + "[camera]\ncall_witness_floor = 0.999\n")
    assert load_config(path).camera.call_witness_floor == 0.999


def test_a_configuration_finds_its_profile_beside_it(tmp_path):
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "basque.toml").write_text(
        (PROFILES_DIR / "basque.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG, encoding="utf-8")
    config = load_config(path)
    assert config.hall_id == "sala-9"
    assert config.machine.kind == "drum"
    assert config.load_profile().id == "basque"
    assert config.store_url() == f"sqlite:///{tmp_path.parent.resolve() / 'var' / 'h.sqlite'}"


BAD_CONFIGS = {
    "an empty hall id": (GOOD_CONFIG.replace('"sala-9"', '""'), "hall_id"),
    "no profile": (GOOD_CONFIG.replace('profile = "basque"\n', ""), "profile"),
    "an unknown top-level key": ("colour = 'red'\n" + GOOD_CONFIG, "colour"),
    "an unknown store key": (GOOD_CONFIG.replace("[store]\n", "[store]\npool = 3\n"), "store.pool"),
    "an unknown machine kind": (GOOD_CONFIG.replace('"drum"', '"steam"'), "machine.kind"),
    "an unknown draw": (GOOD_CONFIG + 'draw = "dice"\n', "machine.draw"),
    "an unknown typeface for the simulated set": (
        GOOD_CONFIG + '[camera]\ntypeface = "comic-sans"\n',
        "camera.typeface",
    ),
    "a witness floor short of a majority": (
        GOOD_CONFIG + "[camera]\ncall_witness_floor = 0.4\n",
        "camera.call_witness_floor",
    ),
    "a witness floor of certainty": (
        GOOD_CONFIG + "[camera]\ncall_witness_floor = 1.0\n",
        "camera.call_witness_floor",
    ),
    "an unknown time zone": (
        'time_zone = "Europe/Bilbao"\n' + GOOD_CONFIG,
        "time_zone: Value error, 'Europe/Bilbao' is not a time zone this machine knows",
    ),
    "a time zone that is a path": ('time_zone = "../../etc/passwd"\n' + GOOD_CONFIG, "time_zone"),
    "a closing time past midnight's 24": (
        'closing_time = "24:30"\n' + GOOD_CONFIG,
        "closing_time: Value error, '24:30' is not a time of day",
    ),
    "a closing time without its minutes": ('closing_time = "4"\n' + GOOD_CONFIG, "closing_time"),
    "a closing time as a number": ("closing_time = 4\n" + GOOD_CONFIG, "closing_time"),
    "a closing time with its date": (
        "closing_time = 2024-05-02T04:00:00\n" + GOOD_CONFIG,
        "closing_time",
    ),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_a_bad_configuration_names_the_file_and_the_field(tmp_path, case):
    text, field = BAD_CONFIGS[case]
    path = tmp_path / "hall.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_config(path)
    assert_one_line_naming(raised.value, path, field)


def test_a_missing_or_broken_configuration_is_named(tmp_path):
    missing = tmp_path / "absent.toml"
    with pytest.raises(RuleError) as raised:
        load_config(missing)
    assert_one_line_naming(raised.value, missing, None)
    assert "not found" in str(raised.value)

    broken = tmp_path / "broken.toml"
    broken.write_text('hall_id = "x"\nprofile =\n', encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_config(broken)
    assert_one_line_naming(raised.value, broken, None)
    assert "TOML" in str(raised.value)


@pytest.mark.parametrize("kind", ["not UTF-8", "a directory"])
def test_an_unreadable_configuration_is_a_rule_error(tmp_path, kind):
    path = tmp_path / "hall.toml"
    if kind == "a directory":
        path.mkdir()
    else:
        path.write_bytes(b'hall_id = "sal\xf3n"\nprofile = "1979"\n')
    with pytest.raises(RuleError) as raised:
        load_config(path)
    assert_one_line_naming(raised.value, path, None)


def test_a_configuration_naming_a_missing_profile_fails_naming_the_profile_file(tmp_path):
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG.replace('"basque"', '"1982"'), encoding="utf-8")
    config = load_config(path)  # the profile is read when the hall needs it
    with pytest.raises(RuleError) as raised:
        config.load_profile()
    assert_one_line_naming(raised.value, tmp_path / "profiles" / "1982.toml", None)


@pytest.mark.parametrize("hall_id", ["sala 9", "sala/9", "sala#9", "sala+9", "sala\\t9"])
def test_a_hall_id_that_cannot_name_its_streams_and_topics_is_refused(tmp_path, hall_id):
    """The hall id names its streams in the log (`<hall>/tables/<id>`) and its MQTT topics."""
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG.replace('"sala-9"', f'"{hall_id}"'), encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_config(path)
    assert_one_line_naming(raised.value, path, "a hall id is one word")


@pytest.mark.parametrize("source", ["true", "1e3", '""', "-1"])
def test_a_camera_source_that_names_no_camera_is_refused(tmp_path, source):
    """TOML's true is not device 1, nor 1e3 device 1000; an empty source is none at all."""
    path = tmp_path / "hall.toml"
    path.write_text(GOOD_CONFIG + f"\n[camera]\nsource = {source}\n", encoding="utf-8")
    with pytest.raises(RuleError) as raised:
        load_config(path)
    assert_one_line_naming(raised.value, path, "camera.source")
