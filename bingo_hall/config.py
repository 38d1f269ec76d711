"""The hall's configuration file (config/hall.toml): which hall, which rules, which store."""

from __future__ import annotations

import re
import tomllib
from datetime import time
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
)

from bingo_hall.domain.errors import RuleError
from bingo_hall.domain.events import WitnessFloor
from bingo_hall.domain.profiles import RuleProfile
from bingo_hall.hub.streams import TABLE_ID_PATTERN
from bingo_hall.tables.closing import ClosingTime
from bingo_hall.tables.limits import LimitChoice
from bingo_hall.tables.profiles import GameName

DEFAULT_CONFIG = Path("config/hall.toml")
M = TypeVar("M", bound=BaseModel)
# an authorisation's reference: one line, something to cite
Reference = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^\S[^\x00-\x1f\x7f]*$")]


class MachineConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = "EXT-1"
    kind: Literal["drum", "pneumatic"] = "pneumatic"
    # the homologation of the machine's model (S79 L1188: «será precisa la homologación previa
    # … de los distintos modelos»), recorded at each session's opening and in the acta; no
    # session opens without it
    homologation: str = Field(default="", max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")
    draw: Literal["certified_random", "blower"] = "certified_random"


class CameraConfig(BaseModel):
    """The CCTV camera on the ball exit (spec §4) that checks every call."""

    model_config = ConfigDict(extra="forbid")
    # strict: TOML's true is not device 1, nor 1e3 device 1000, and "" is no source at all
    source: (
        Annotated[StrictInt, Field(ge=0, le=2**31 - 1)] | Annotated[StrictStr, Field(min_length=1)]
    ) = Field(
        default="simulated",
        description='"simulated", "none", a device index (0 or more), or a video URL/file '
        "for OpenCV",
    )
    frames_per_ball: int = Field(default=3, ge=1, le=30)
    seed: int | None = Field(default=None, description="simulated camera only: repeatable frames")
    typeface: str | None = Field(
        default=None,
        description="simulated camera only: the typeface its ball set is printed in",
    )
    call_witness_floor: WitnessFloor | None = Field(
        default=None,
        description="the call as a second witness: the camera confirms a call its best guess "
        "names at this confidence or more, the set's prints nearest it too (docs/vision.md); "
        "none: only on its accepted reading",
    )

    @field_validator("source", mode="before")
    @classmethod
    def _a_camera(cls, source: object) -> object:
        if isinstance(source, bool | float) or source == "":
            raise ValueError(
                f'{source!r} is not a camera: give "simulated", "none", a device index (0 '
                "or more), or a video URL or file"
            )
        return source

    @field_validator("typeface")
    @classmethod
    def _known_typeface(cls, typeface: str | None) -> str | None:
        from bingo_hall.vision.styles import HELD_OUT

        if typeface is not None:
            HELD_OUT.font_named(typeface)
        return typeface


class StoreConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    url: str = "sqlite:///var/hall.sqlite"


class ServerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)
    queue_size: int = Field(default=1000, ge=10, description="events a client may fall behind")
    display_delay_seconds: float = Field(
        default=1.5, ge=0, le=30, description="panels show a ball this long after the call"
    )
    max_connections_per_credential: int = Field(
        default=8,
        ge=1,
        le=100_000,
        description="open connections one staff user or device may hold at once (a terminal "
        "holds one)",
    )


class MqttConfig(BaseModel):
    """The MQTT bridge (docs/mqtt.md); no url: no bridge. Each of the hub's connections logs
    in as the broker user named by its client id (bingo_hall/transport/mqtt_access.py), all
    with `password`."""

    model_config = ConfigDict(extra="forbid")
    url: str | None = Field(default=None, description='the broker, e.g. "mqtt://127.0.0.1:1883"')
    password: str | None = Field(default=None, description="the password of the hub's users")
    topic_prefix: str = Field(default="bingo", min_length=1, pattern=r"^[^/+#\x00]+$")
    username: str | None = Field(default=None, exclude=True, description="no longer read")

    @field_validator("username")
    @classmethod
    def _no_username(cls, username: str | None) -> None:
        if username is not None:
            raise ValueError(
                "no longer read: the broker binds client ids to users, and each of the hub's "
                "connections logs in as its own client id (bingo-hub-<hall>, one per table); "
                "remove it, and write the hub's broker users with `bingo-hall mqtt-access` "
                "(docs/mqtt.md, «Access control»)"
            )
        return None

    @field_validator("url")
    @classmethod
    def _broker_url(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url)
        if parts.scheme != "mqtt" or not parts.hostname:
            raise ValueError(f"{url!r} is not a broker URL like mqtt://127.0.0.1:1883")
        try:
            parts.port  # noqa: B018 (raises on a bad port)
        except ValueError:
            raise ValueError(f"{url!r} has a bad port") from None
        return url


class TableConfig(BaseModel):
    """A casino table linked to the hub (`[[tables]]`; docs/tables.md): its game, its rule
    profile (a file in `table_profiles_dir`) and the limits its authorisation gives."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=TABLE_ID_PATTERN, description="e.g. R1; its stream and topics")
    name: str = ""
    game: GameName
    profile: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="1977, 1979, basque …")
    limits: LimitChoice
    sector: str = Field(
        default="",
        max_length=60,
        description="the hall's sector it stands in: one head may direct several tables of a "
        "sector where the profile allows it (EUS L224)",
    )
    layouts: int = Field(
        default=1,
        ge=1,
        le=2,
        description="a roulette «a un paño» (1) or «a dos paños» (2): a two-layout 1979 French "
        "table has a deputy head beside its head (N79 L119)",
    )
    float_amount: Decimal | None = Field(
        default=None,
        gt=0,
        le=Decimal(10) ** 15,
        description="the float («anticipo») the cash desk hands it each session, as a string; "
        "at least what its profile asks (the Basque wheel of fortune: 15,000 times its minimum)",
    )


class HallConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hall_id: str = Field(min_length=1, max_length=64)
    name: str = ""
    profile: str
    category: Literal["special", "first", "second", "third"] = "first"  # sets the terminal cap
    profiles_dir: str = "profiles"
    store: StoreConfig = StoreConfig()
    machine: MachineConfig = MachineConfig()
    camera: CameraConfig = CameraConfig()
    server: ServerConfig = ServerConfig()
    mqtt: MqttConfig = MqttConfig()
    table_profiles_dir: str = "tables"
    tables: list[TableConfig] = []
    # The minimum stake the hall's authorisation sets for each table game: no table of it plays
    # below, and one plays at it while any does (N79 L216, EUS L308). A game left out takes the
    # lowest minimum its tables are configured with.
    table_minimums: dict[GameName, Decimal] = {}
    # A game whose authorisation «dispusiera otra cosa» (N79 L216, AST L270-273, EUS L308
    # «baimen zehatzean bestelakorik xedatzen ez bada»): the authorisation's reference, and no
    # table of it need play at the minimum. Its tables are still never below it.
    table_minimum_exemptions: dict[GameName, Reference] = {}
    # The casino's closing time, the hall's local wall-clock time of day ("04:00"; a session
    # runs across midnight), in `time_zone`: a Basque table closes for a while only with an
    # hour left before it (EUS L2931 d). None: not configured, and no table closes for a while.
    closing_time: time | None = None
    time_zone: str = "Europe/Madrid"  # an IANA name: Europe/Madrid, Atlantic/Canary …
    base_dir: Path = Path(".")

    @field_validator("hall_id")
    @classmethod
    def _one_word(cls, hall_id: str) -> str:
        # it names the hall's streams in the log (`<hall>/tables/<id>`) and its MQTT topics
        if re.search(r"[\s/+#\x00-\x1f\x7f]", hall_id):
            raise ValueError(
                f"{hall_id!r}: a hall id is one word, without spaces, '/', '+' or '#' (it names "
                "the hall's streams and MQTT topics)"
            )
        return hall_id

    @field_validator("closing_time", mode="before")
    @classmethod
    def _time_of_day(cls, closing_time: object) -> object:
        if closing_time is None or (isinstance(closing_time, time) and not closing_time.tzinfo):
            return closing_time  # a TOML local time (04:00:00) is one too
        if not isinstance(closing_time, str) or not re.fullmatch(
            r"([01][0-9]|2[0-3]):[0-5][0-9]", closing_time
        ):
            raise ValueError(
                f"{closing_time!r} is not a time of day: give the hour and minute as a string, "
                '"HH:MM" from "00:00" to "23:59" (e.g. "04:00")'
            )
        hour, minute = closing_time.split(":")
        return time(int(hour), int(minute))

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, time_zone: str) -> str:
        try:
            ZoneInfo(time_zone)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise ValueError(
                f"{time_zone!r} is not a time zone this machine knows: give an IANA name "
                "such as Europe/Madrid or Atlantic/Canary"
            ) from None
        return time_zone

    @field_validator("tables")
    @classmethod
    def _unique_tables(cls, tables: list[TableConfig]) -> list[TableConfig]:
        ids = [table.id for table in tables]
        twice = sorted({table_id for table_id in ids if ids.count(table_id) > 1})
        if twice:
            raise ValueError(f"table ids must be unique: {', '.join(twice)} given twice")
        return tables

    def closing(self) -> ClosingTime | None:
        """The casino's closing time of day in its zone; None when not configured."""
        if self.closing_time is None:
            return None
        return ClosingTime(self.closing_time, ZoneInfo(self.time_zone))

    def load_profile(self) -> RuleProfile:
        path = self.base_dir / self.profiles_dir / f"{self.profile}.toml"
        return load_profile(path)

    def store_url(self) -> str:
        """SQLite paths are relative to the directory above config/ (the hall's home)."""
        url = self.store.url
        prefix = "sqlite:///"
        if url.startswith(prefix) and not url.startswith(prefix + "/"):
            return prefix + str((self.base_dir.parent / url[len(prefix) :]).resolve())
        return url


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML file as a dict; a one-line RuleError naming the file if it cannot be read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RuleError(f"{what} file not found: {path}") from None
    except UnicodeDecodeError:
        raise RuleError(f"{what} {path} is not UTF-8 text") from None
    except OSError as error:
        raise RuleError(f"{what} {path} cannot be read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise RuleError(f"{what} {path} is not valid TOML: {error}") from None


def validate_file(model: type[M], data: dict[str, Any], path: Path, what: str) -> M:
    """Validate a file's data; a one-line RuleError naming the file and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RuleError(f"{what} {path}: {where}: {first['msg']}") from None


def load_profile(path: Path) -> RuleProfile:
    """Read one rule profile file."""
    return validate_file(RuleProfile, read_toml(path, "rule profile"), path, "rule profile")


def load_profiles(directory: Path) -> dict[str, RuleProfile]:
    """Every profile in a directory, by id."""
    profiles = {}
    for path in sorted(directory.glob("*.toml")):
        profile = load_profile(path)
        profiles[profile.id] = profile
    return profiles


def load_config(path: Path) -> HallConfig:
    """Read a hall configuration; a one-line error naming the file and field if it is wrong."""
    data = read_toml(path, "configuration")
    return validate_file(
        HallConfig, {**data, "base_dir": path.parent.resolve()}, path, "configuration"
    )
