"""Reading the table profiles (config/tables/*.toml). Files are read here, never in the rules."""

from __future__ import annotations

from pathlib import Path

from bingo_hall.config import read_toml, validate_file
from bingo_hall.domain.errors import RuleError
from bingo_hall.tables.profiles import TableProfile

TABLE_PROFILES_DIR = Path(__file__).resolve().parent.parent.parent / "config" / "tables"


def load_table_profile(path: Path) -> TableProfile:
    """One profile file; a one-line RuleError naming the file and the field if it is wrong."""
    return validate_file(TableProfile, read_toml(path, "table profile"), path, "table profile")


def load_table_profiles(directory: Path = TABLE_PROFILES_DIR) -> dict[str, TableProfile]:
    """Every profile in a directory, by id."""
    profiles = {}
    for path in sorted(directory.glob("*.toml")):
        profile = load_table_profile(path)
        profiles[profile.id] = profile
    return profiles


def find_table_profile(name: str, directory: Path = TABLE_PROFILES_DIR) -> TableProfile:
    """The profile with this id (its file is `<id>.toml`)."""
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.toml"))
        raise RuleError(f"unknown table profile {name!r}; profiles: {', '.join(known)}")
    profile = load_table_profile(path)
    if profile.id != name:
        raise RuleError(f"table profile {path} has id {profile.id!r}, not {name!r}")
    return profile
