"""`bingo-hall`: the hall's command line (demo, acta)."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import signal
import sys
from collections.abc import Callable, Sequence
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy

from bingo_hall.acta import AlteredLog, build_acta, render_text
from bingo_hall.config import HallConfig, load_config
from bingo_hall.domain.errors import RuleError
from bingo_hall.hub.auth import STAFF_ROLES, Role
from bingo_hall.hub.ball_check import BallCheck
from bingo_hall.hub.commissioning import SHOWINGS_PER_BALL
from bingo_hall.hub.service import HallService, utc_now
from bingo_hall.store import EventLog, StoreError, make_engine
from bingo_hall.store.eventlog import EventEnvelope
from bingo_hall.store.new_files import NewStoreFiles, sqlite_file
from bingo_hall.store.projections import PROJECTORS, create_projection_tables
from bingo_hall.tables.cli import add_tables_parser
from bingo_hall.threads import use_one_blas_thread
from bingo_hall.vision.cli import add_vision_parser
from card_generator.arguments import whole_number
from card_generator.files import CardFileError

if TYPE_CHECKING:
    from bingo_hall.domain.profiles import RuleProfile
    from bingo_hall.store.credentials import CredentialStore
    from bingo_hall.store.instance_lock import InstanceLock

REPO_CONFIG = Path(__file__).resolve().parent.parent / "config" / "hall.toml"
NEW_STORE_FILES = NewStoreFiles()  # removed again when the command is refused


class UserError(Exception):
    """A mistake in what the user asked; reported in one line, exit status 2."""


def _config(args: argparse.Namespace) -> HallConfig:
    path = Path(args.config) if args.config else Path("config/hall.toml")
    if not args.config and not path.exists():
        path = REPO_CONFIG
    return load_config(path)


class TamperedLog(Exception):
    """A command that appends refused a log it cannot trust (exit status 1): its hash chain does
    not verify, or the MQTT broker saw events past its head."""


def _open_log(
    config: HallConfig, url: str | None, *, existing: bool = False, verified: bool = False
) -> EventLog:
    """The hall's event log.

    `existing`: a command that only reads refuses a SQLite file that is not there (a mistyped
    --db would otherwise leave an empty store behind). `verified`: a command that appends
    refuses a log whose hash chain (the hall's or a table's) does not verify, rather than
    write on top of an alteration."""
    target = url or config.store_url()
    if existing:
        _require_sqlite_file(target)
    NEW_STORE_FILES.note(target)
    try:
        engine = make_engine(target)
        create_projection_tables(engine)
    except sqlalchemy.exc.SQLAlchemyError as error:
        raise UserError(f"cannot open the store {_shown(target)}: {_first_line(error)}") from None
    log = EventLog(engine, projectors=PROJECTORS)
    if verified:
        from bingo_hall.hub.streams import table_stream

        streams = [config.hall_id, *(table_stream(config.hall_id, t.id) for t in config.tables)]
        for stream in streams:
            report = log.verify_chain(stream)
            if not report.ok:
                raise TamperedLog(
                    f"the event log of {stream} does not verify ({report.problem}): nothing "
                    "written; `bingo-hall acta` prints the chain's verdict"
                )
    return log


def _hold_store(config: HallConfig, url: str | None, role: str, in_use: str) -> InstanceLock:
    """The store's single-instance lock for `serve` or the demo (store/instance_lock.py), taken
    before the log is opened; a UserError saying `in_use` if another hub (or demo) holds it."""
    from bingo_hall.store.instance_lock import StoreInUse, take_instance_lock

    target = url or config.store_url()
    NEW_STORE_FILES.note(target)
    engine = make_engine(target)
    try:
        return take_instance_lock(engine, role)
    except StoreInUse as error:
        raise UserError(f"{error}: {in_use}") from None
    except sqlalchemy.exc.SQLAlchemyError as error:
        raise UserError(f"cannot open the store {_shown(target)}: {_first_line(error)}") from None
    finally:
        engine.dispose()


def _actor(text: str) -> str:
    """Who gives a command at the console, as the hash-chained log records it: one line."""
    if not re.fullmatch(r"[^\x00-\x20\x7f]([^\x00-\x1f\x7f]{0,62}[^\x00-\x20\x7f])?", text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a name: 1 to 64 characters on one line, not starting or ending "
            "with a space"
        )
    return text


def _shown(url: str) -> str:
    """A database URL as it may be printed: without its password."""
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return repr(url)


def _first_line(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__


def _require_sqlite_file(url: str) -> None:
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise UserError(f"no store at {path}: check --db (or store.url in the configuration)")


def _demo_camera(config: HallConfig, log: EventLog) -> BallCheck:
    """The demo's ball exit: the simulated camera (frames kept in the store), whatever the
    hall's configured camera, since the simulated staff decide which ball comes out. Without a
    configured seed, its set is printed from the hash of the first ball set registered in the
    log: a demo killed and started again shows the camera the very set it commissioned."""
    from bingo_hall.store.frames import FrameStore
    from bingo_hall.vision.camera import simulated_exit
    from bingo_hall.vision.recognise import BallReader

    seed = config.camera.seed
    if seed is None:
        registered = _first_ball_set(log, config.hall_id)
        seed = int(registered.hash[:16], 16) if registered is not None else None
    camera = simulated_exit(seed, config.camera.typeface)
    return BallCheck(camera, BallReader(), FrameStore(log.engine), config.camera.frames_per_ball)


def _first_ball_set(log: EventLog, hall_id: str) -> EventEnvelope | None:
    return next((e for e in log.iter_all(hall_id) if e.type == "ball_set_registered"), None)


def run_demo(args: argparse.Namespace) -> int:
    config = _config(args)
    profile = config.load_profile()
    store_lock = _hold_store(
        config,
        args.db,
        "demo",
        "the demo would write its session among the hub's commands; stop that hub first, or "
        "give the demo a store of its own (--db)",
    )
    try:
        return _run_demo(args, config, profile)
    finally:
        store_lock.release()


def _run_demo(args: argparse.Namespace, config: HallConfig, profile: RuleProfile) -> int:
    from bingo_hall.demo import Demo, SimulatedClock, print_trace
    from bingo_hall.store.cards import CardStore

    log = _open_log(config, args.db, verified=True)
    seq, _ = log.head(config.hall_id)
    start = utc_now()
    if seq:
        last = log.read(config.hall_id, after_seq=seq - 1)[0].time
        start = max(start, last + timedelta(seconds=1))
    clock = SimulatedClock(start)
    service = HallService(log, config.hall_id, clock)
    demo = Demo(
        service,
        CardStore(log.engine),
        profile,
        config.machine.id,
        config.machine.kind,
        clock,
        trace=print_trace if args.trace else (lambda line: None),
        call_witness_floor=config.camera.call_witness_floor,
        machine_homologation=config.machine.homologation,
    )
    if not args.no_camera:
        if config.camera.seed is None and _first_ball_set(log, config.hall_id) is None:
            demo.step()  # the demo registers its ball set: the set's print follows from it
        demo.ball_check = _demo_camera(config, log)
    session_id = demo.run()
    acta = build_acta(
        config.hall_id,
        log.iter_all(config.hall_id),
        log.verify_chain(config.hall_id),
        session_id=session_id,
    )
    print(json.dumps(acta, ensure_ascii=False, indent=2) if args.json else render_text(acta))
    return 0 if acta["chain"]["ok"] else 1


def run_acta(args: argparse.Namespace) -> int:
    from bingo_hall.acta.frames_export import make_frames_directory, unmake

    config = _config(args)
    made = [] if args.frames is None else make_frames_directory(args.frames)
    try:
        log = _open_log(config, args.db, existing=True)
        chain = log.verify_chain(config.hall_id)
        acta = build_acta(
            config.hall_id,
            log.iter_all(config.hall_id),
            chain,
            session_id=args.session,
            game_id=args.game,
        )
    except LookupError as error:
        unmake(made)  # a refusal leaves no directory behind
        raise UserError(str(error.args[0])) from None
    except AlteredLog as altered:
        unmake(made)
        print(altered)
        return 1
    except BaseException:
        unmake(made)
        raise
    print(json.dumps(acta, ensure_ascii=False, indent=2) if args.json else render_text(acta))
    exported = args.frames is None or _export_frames(acta, log, args.frames)
    return 0 if chain.ok and exported else 1


def run_export_log(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from bingo_hall.store.export import VERIFIER, ExportError, export_log
    from bingo_hall.store.frames import FrameStore

    config = _config(args)
    log = _open_log(config, args.db, existing=True)
    fetch = FrameStore(log.engine).get if args.frames else None
    try:
        export = export_log(log, config.hall_id, args.out, datetime.now(UTC), fetch)
    except ExportError as error:
        raise UserError(str(error)) from None
    for stream in export.streams:
        verdict = "verifies" if stream.verifies else f"DOES NOT VERIFY: {stream.problem}"
        print(
            f"{stream.stream}: {stream.events} events, last seq {stream.last_seq}, hash "
            f"{stream.last_hash}: {verdict}"
        )
    if export.frames is not None:
        print(f"frames: {export.frames['written']} of the {export.frames['cited']} cited")
        for problem in export.frames["problems"]:
            print(problem)
    print(f"exported to {args.out}; check it with: python3 {args.out / VERIFIER} {args.out}")
    return 0 if export.whole else 1


def run_table_record(args: argparse.Namespace) -> int:
    from bingo_hall.acta.table_build import build_table_record
    from bingo_hall.acta.table_render import render_table_record
    from bingo_hall.hub.streams import table_stream

    config = _config(args)
    log = _open_log(config, args.db, existing=True)
    stream = table_stream(config.hall_id, args.table)
    chain = log.verify_chain(stream)
    try:
        record = build_table_record(
            config.hall_id, args.table, log.iter_all(stream), chain, session_id=args.session
        )
    except LookupError as error:
        configured = ", ".join(t.id for t in config.tables) or "none"
        raise UserError(f"{error.args[0]} (the hall's tables: {configured})") from None
    except AlteredLog as altered:
        print(altered)
        return 1
    print(
        json.dumps(record, ensure_ascii=False, indent=2)
        if args.json
        else render_table_record(record)
    )
    return 0 if chain.ok else 1


def _export_frames(acta: dict, log: EventLog, directory: Path) -> bool:
    """The frames the acta cites, written to `directory`; False if any is missing or altered."""
    from bingo_hall.acta.frames_export import SUMS_FILE, cited_frames, export_frames
    from bingo_hall.store.frames import FrameStore

    cited = cited_frames(acta)
    problems = export_frames(cited, FrameStore(log.engine).get, directory)
    for problem in problems:
        print(f"bingo-hall: error: {problem}", file=sys.stderr)
    written = len(cited) - len(problems)
    print(
        f"bingo-hall: {written} camera frames written to {directory}, "
        f"their SHA-256 in {directory / SUMS_FILE}",
        file=sys.stderr,
    )
    return not problems


# The algorithms a card file may have been made by (card_generator.series): plain cards, cards
# dealt in strips, or a series made elsewhere and imported.
KNOWN_ALGORITHMS = ("2", "2+strips1", "imported")


def _series_manifest(path: Path) -> dict[str, Any]:
    """What `bingo-cards generate` recorded beside the card file (FILE.seed.json): its
    algorithm, seed and commitment; {} when the hall keeps it elsewhere."""
    manifest = path.with_name(path.name + ".seed.json")
    if not manifest.exists():
        return {}
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"{manifest}: not a readable manifest ({error})") from None
    if not isinstance(data, dict):
        raise UserError(f"{manifest}: a manifest is a JSON object")
    return data


def _published_commitment(
    path: Path, header: tuple[str, str, int], manifest: dict[str, Any], published: str | None
) -> str:
    """The series' commitment, checked against the one published for it (`--commitment`, or
    the manifest's): the cards stored are then the very cards published, in their order. With
    neither, the file's own commitment (algorithm "imported" unless the manifest names one)."""
    if published is not None and not published.strip():
        raise UserError("--commitment is empty: give the commitment published for the series")
    recorded = manifest.get("commitment")
    if recorded is not None and not isinstance(recorded, str):
        raise UserError(f"{path}: its manifest's commitment is not text: {recorded!r}")
    if published is not None and recorded is not None:  # both must name this series
        given, kept = published.strip().lower(), recorded.strip().lower()
        if given != kept:
            raise UserError(
                f"--commitment {given} is not the commitment {kept} of {path}'s manifest: "
                "which was published? (nothing imported)"
            )
    expected = (published or recorded or "").strip().lower() or None
    named = manifest.get("algorithm")
    if expected is None:
        return _series_commitment(path, header, named if isinstance(named, str) else "imported")
    for algorithm in [named] if isinstance(named, str) else KNOWN_ALGORITHMS:
        if _series_commitment(path, header, algorithm) == expected:
            return expected
    raise UserError(
        f"{path} is not the series published under commitment {expected}: a card, its order, "
        "the series id, value or size differs (nothing imported)"
    )


def _manifest_seed(path: Path, manifest: dict[str, Any]) -> bytes | None:
    """The series seed the manifest records, to check every card's security code with."""
    seed = manifest.get("seed")
    if seed is None:
        return None
    try:
        return bytes.fromhex(seed)
    except (TypeError, ValueError):
        raise UserError(f"{path}.seed.json: the seed is not hexadecimal") from None


def _series_commitment(path: Path, header: tuple[str, str, int], algorithm: str) -> str:
    """The commitment of a verified card file made by `algorithm`."""
    from card_generator.files import read_cards
    from card_generator.series import card_encoding, commitment_header

    series_id, face_value, size = header
    digest = hashlib.sha256(commitment_header(series_id, Decimal(face_value), size, algorithm))
    for expected, (_, record) in enumerate(read_cards(path), start=1):
        # verified: every card well formed, numbered 1..N in order (verify_records)
        assert isinstance(record, dict) and record["number"] == expected
        cells = bytes(cell for row in record["grid"] for cell in row)
        digest.update(card_encoding(expected, cells))
    return digest.hexdigest()


def run_import_series(args: argparse.Namespace) -> int:
    from bingo_hall.domain import decide
    from bingo_hall.domain.commands import RegisterSeries
    from bingo_hall.store.cards import CardStore
    from card_generator.files import read_cards
    from card_generator.verify import problems_said, verify_records

    path = Path(args.file)
    manifest = _series_manifest(path)
    seed = _manifest_seed(path, manifest)
    problems = [str(problem) for problem in verify_records(read_cards(path), seed)]
    if problems:
        print("\n".join(problems))
        raise UserError(f"{path} has {problems_said(len(problems))}: nothing imported")
    _, first = next(iter(read_cards(path)))
    assert isinstance(first, dict)
    header = (first["series"], first["face_value"], first["series_size"])
    commitment = _published_commitment(path, header, manifest, args.commitment)
    if not (args.commitment or manifest.get("commitment")):
        print(
            f"bingo-hall: warning: {path}: no published commitment to check the cards against "
            "(--commitment, or the manifest beside the file): the file's own is registered",
            file=sys.stderr,
        )
    config = _config(args)
    log = _open_log(config, args.db, verified=True)
    service = HallService(log, config.hall_id)
    command = RegisterSeries(
        series_id=header[0], face_value=Decimal(header[1]), size=header[2], commitment=commitment
    )
    decide(service.state, command, utc_now())  # refused now (phase, duplicate) → nothing stored
    records = (record for _, record in read_cards(path) if isinstance(record, dict))
    CardStore(log.engine).import_records(header[0], header[1], header[2], commitment, records)
    envelope = service.execute(command, actor=args.actor)[-1]
    print(
        f"series {header[0]}: {header[2]} master cards imported; registered as event {envelope.seq}"
    )
    print(f"commitment {commitment}")
    return 0


def run_commission_ball_set(args: argparse.Namespace) -> int:
    from bingo_hall.domain.commands import CommissionBallSet
    from bingo_hall.domain.commissioning import require_commissionable, verdict_summary
    from bingo_hall.hub.ball_check import ball_check_from_config
    from bingo_hall.hub.commissioning import (
        commission,
        keyed_numbers,
        show_balls,
        simulated_commissioning,
    )
    from bingo_hall.store.frames import FrameStore

    config = _config(args)
    log = _open_log(config, args.db, verified=True)
    service = HallService(log, config.hall_id)
    state = service.state
    if state.phase not in CommissionBallSet.legal_in:
        raise UserError(f"a ball set is commissioned between games, not while {state.phase.value}")
    require_commissionable(state, args.ball_set)  # refused before a ball is shown
    if state.showings is not None and state.showings.ball_set_id == args.ball_set:
        raise UserError(
            f"{len(state.showings.showings)} showings of {args.ball_set} are kept from the "
            "control page: judge them or discard them there first"
        )
    from bingo_hall.vision.camera import CameraError

    try:
        check = ball_check_from_config(config.camera, FrameStore(log.engine))
    except CameraError as error:
        raise UserError(str(error)) from None
    if check is None:
        raise UserError('the hall has no camera (camera.source = "none"): nothing to commission')
    if check.stage is not None:
        command = simulated_commissioning(check, args.ball_set, args.showings_per_ball)
    else:
        prompt = sys.stderr if sys.stdin.isatty() else None
        numbers = keyed_numbers(sys.stdin, prompt)
        command = commission(check, args.ball_set, tuple(show_balls(check, numbers)))
    envelope = service.execute(command, actor=args.actor)[-1]
    verdict = {**verdict_summary(envelope.payload), "event": envelope.seq}
    print(json.dumps(verdict, ensure_ascii=False))
    return 0 if verdict["fit"] else 1


class _StoppedStarting(BaseException):
    """SIGTERM while the hub starts, before its event loop takes the signal over."""


def _stop_starting(signum: int, frame: object) -> None:
    raise _StoppedStarting


def run_serve(args: argparse.Namespace) -> int:
    """The hub; a SIGTERM or SIGINT while it starts (reading its log, its camera, its broker)
    stops it there, as cleanly as once it serves: nothing has been written yet."""
    previous = signal.signal(signal.SIGTERM, _stop_starting)
    try:
        return _serve(args)
    except (_StoppedStarting, KeyboardInterrupt):
        print("bingo-hall serve: stopped while starting", file=sys.stderr, flush=True)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    from bingo_hall.serve import ListenError, serve
    from bingo_hall.transport.mqtt_witness import LogBehindBroker
    from bingo_hall.vision.camera import CameraError

    config = _config(args)
    store_lock = _hold_store(
        config,
        args.db,
        "serve",
        "one hub per store; stop that hub first, or give this one another store (--db)",
    )
    try:
        asyncio.run(serve(config, _open_log(config, args.db, verified=True), args.port, store_lock))
    except CameraError as error:
        raise UserError(f"{error}: check camera.source in the hall configuration") from None
    except ListenError as error:
        raise UserError(f"{error}: check --port (or server.host and server.port)") from None
    except LogBehindBroker as error:
        raise TamperedLog(str(error)) from None
    finally:
        store_lock.release()
    return 0


def run_mqtt_access(args: argparse.Namespace) -> int:
    """The broker's ACL and the hub's broker users, from the hall's configuration."""
    from bingo_hall.transport.mqtt_access import (
        HallAccess,
        password_file_text,
        read_text,
        write_files,
    )

    acl, passwd = args.acl, args.passwd
    if acl is None and passwd is None:
        raise UserError("give --acl FILE, --passwd FILE or both: nothing to write")
    if acl is not None and passwd is not None and acl.resolve() == passwd.resolve():
        raise UserError(f"--acl and --passwd both name {acl}")
    config = _config(args)
    tables = tuple(table.id for table in config.tables)
    access = HallAccess(config.hall_id, config.mqtt.topic_prefix, tables)
    files: dict[Path, tuple[str, int]] = {}
    said = []
    if acl is not None:
        text = access.acl_text()
        if read_text(acl, "ACL file") != text:
            files[acl] = (text, 0o644)
        said.append(
            f"ACL {acl} {'written' if acl in files else 'unchanged'}: hall {config.hall_id}, "
            f"tables {', '.join(tables) or 'none'}, {len(access.users)} hub users"
        )
    if passwd is not None:
        if not config.mqtt.password:
            raise UserError(
                "mqtt.password is not set in the hall configuration: the hub's broker users "
                "get the password the hub logs in with"
            )
        old = read_text(passwd, "password file")
        text, change = password_file_text(old, passwd, access, config.mqtt.password)
        if text != old:
            files[passwd] = (text, 0o600)
        parts = [
            f"{what} {', '.join(users)}"
            for what, users in (
                ("added", change.added),
                ("password set again for", change.updated),
                ("removed (no such table now)", change.removed),
            )
            if users
        ]
        kept = len(change.unchanged), len(change.others)
        parts.append(
            f"kept as they were: {kept[0]} of the hub's users and {kept[1]} other "
            f"user{'' if kept[1] == 1 else 's'} (monitors, terminals)"
        )
        said.append(f"password file {passwd}: {'; '.join(parts)}")
    created = passwd is not None and passwd in files and not passwd.exists()
    write_files(files)
    for line in said:
        print(line)
    if created:
        print(
            f"the new {passwd} is readable by its owner only: give it to the broker's user "
            f"(chown mosquitto: {passwd}) before the broker reads it"
        )
    if files:
        print("now reload the broker (systemctl reload mosquitto, or kill -HUP its pid)")
    return 0


def _credentials(
    args: argparse.Namespace, existing: bool = True
) -> tuple[HallConfig, CredentialStore]:
    """The hall's credentials; `existing`: in a store that is there already (all but the
    commands that add a user or a device)."""
    from bingo_hall.store.credentials import CredentialStore

    config = _config(args)
    return config, CredentialStore(_open_log(config, args.db, existing=existing).engine)


def _read_password(args: argparse.Namespace) -> str:
    import getpass

    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    return getpass.getpass(f"password for {args.name}: ")


def run_user_add(args: argparse.Namespace) -> int:
    config, credentials = _credentials(args, existing=False)
    credentials.add_user(args.name, args.role, _read_password(args))
    print(f"staff user {args.name} ({args.role}) added to hall {config.hall_id}")
    return 0


def run_user_password(args: argparse.Namespace) -> int:
    _, credentials = _credentials(args)
    credentials.set_password(args.name, _read_password(args))
    print(f"staff user {args.name}: password changed; the hub closes the user's connections")
    return 0


def _credential_change(change: str, done: str) -> Callable[[argparse.Namespace], int]:
    """A command that changes one user's or device's standing: `change` is the store's
    method, `done` what is printed ({name} is the user or device)."""

    def run(args: argparse.Namespace) -> int:
        _, credentials = _credentials(args)
        name = args.name if hasattr(args, "name") else args.id
        getattr(credentials, change)(name)
        print(done.format(name=name))
        return 0

    return run


run_user_disable = _credential_change(
    "deactivate_user", "staff user {name} disabled; the hub closes the user's connections"
)
run_user_enable = _credential_change("activate_user", "staff user {name} enabled")
run_device_revoke = _credential_change(
    "revoke_device",
    "device {name} revoked; the hub closes its connections, and its id is not reused",
)


def run_users(args: argparse.Namespace) -> int:
    _, credentials = _credentials(args)
    for user in credentials.users():
        state = "active" if user.active else "disabled"
        print(f"{user.username}\t{user.role.value}\t{state}\t{user.created_at}")
    return 0


def run_devices(args: argparse.Namespace) -> int:
    _, credentials = _credentials(args)
    for device in credentials.devices():
        state = "active" if device.active else "revoked"
        table = device.table or "-"
        print(f"{device.device_id}\t{device.kind.value}\t{table}\t{state}\t{device.created_at}")
    return 0


def run_device_add(args: argparse.Namespace) -> int:
    config, credentials = _credentials(args, existing=False)
    if args.kind == "terminal":
        profile = config.load_profile()
        cap = profile.terminals_per_hall_category.get(config.category, 0)
        active = sum(1 for d in credentials.devices() if d.kind == "terminal" and d.active)
        if active >= cap:
            raise UserError(
                f"a {config.category}-category hall under profile {profile.id} may have "
                f"{cap} auxiliary terminals; {active} are registered"
            )
    if args.kind == "table":
        tables = [table.id for table in config.tables]
        if args.table is None:
            raise UserError("a table device needs --table: the id of its table")
        if args.table not in tables:
            raise UserError(
                f"hall {config.hall_id} has no table {args.table!r} in its configuration "
                f"(tables: {', '.join(tables) or 'none'})"
            )
    elif args.table is not None:
        raise UserError(f"--table is for a table device, not a {args.kind}")
    token = credentials.add_device(args.id, args.kind, args.table)
    bound = f" for table {args.table}" if args.table else ""
    print(f"{args.kind} {args.id}{bound} added; its token (shown only now): {token}")
    return 0


STAFF_ROLE_NAMES = tuple(role.value for role in Role if role in STAFF_ROLES)


CREDENTIAL_COMMANDS = (  # name, positional argument, run, help, description
    (
        "user-disable",
        "name",
        run_user_disable,
        "disable a staff user",
        "Disables a staff user: the password no longer logs in, and a running hub closes the "
        "user's connections within seconds. The user is kept (user-enable).",
    ),
    (
        "user-enable",
        "name",
        run_user_enable,
        "enable a disabled staff user",
        "Lets a disabled staff user log in again with their password.",
    ),
    (
        "users",
        None,
        run_users,
        "list the staff users",
        "Lists the staff users, one a line: name, role, active or disabled, and when they "
        "were added (tab-separated). Never a password or its hash.",
    ),
    (
        "device-revoke",
        "id",
        run_device_revoke,
        "revoke a device (lost, stolen or replaced)",
        "Revokes a device for good: its token no longer authenticates, a running hub closes "
        "its connections within seconds, and a revoked terminal no longer counts against the "
        "hall's terminal limit. Its id is not given again: register the replacement under a "
        "new id.",
    ),
    (
        "devices",
        None,
        run_devices,
        "list the devices",
        "Lists the devices, one a line: id, kind, table (or -), active or revoked, and when "
        "they were registered (tab-separated). Never a token or its hash.",
    ),
)


def _add_credential_parsers(commands: Any, common: argparse.ArgumentParser) -> None:
    """The staff users' and devices' administration commands."""
    user = commands.add_parser(
        "user-add",
        parents=[common],
        help="add a staff user (password hashed)",
        description="Adds a staff user with a role; the password is asked for (or read from "
        "standard input with --password-stdin) and stored only as a scrypt hash.",
    )
    user.add_argument("name")
    user.add_argument("--role", required=True, choices=STAFF_ROLE_NAMES)
    user.add_argument("--password-stdin", action="store_true")
    user.set_defaults(run=run_user_add)

    password = commands.add_parser(
        "user-password",
        parents=[common],
        help="change a staff user's password",
        description="Sets a new password for a staff user (asked for, or read from standard "
        "input with --password-stdin). A running hub closes the user's connections within "
        "seconds: they log in again with the new password.",
    )
    password.add_argument("name")
    password.add_argument("--password-stdin", action="store_true")
    password.set_defaults(run=run_user_password)

    device = commands.add_parser(
        "device-add",
        parents=[common],
        help="add a hall monitor, auxiliary terminal or casino table device",
        description="Registers a device and prints its token once; only its hash is stored. "
        "A table device is bound to one table of the configuration (--table) and acts on it only.",
    )
    device.add_argument("id")
    device.add_argument("--kind", required=True, choices=["monitor", "terminal", "table"])
    device.add_argument("--table", help="a table device's table (an id of [[tables]])")
    device.set_defaults(run=run_device_add)
    for name, positional, run, summary, description in CREDENTIAL_COMMANDS:
        command = commands.add_parser(name, parents=[common], help=summary, description=description)
        if positional:
            command.add_argument(positional)
        command.set_defaults(run=run)


def _port(text: str) -> int:
    try:
        port = whole_number(text)
    except argparse.ArgumentTypeError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bingo-hall", description="Control system of a Spanish bingo hall."
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", help="hall configuration (default: config/hall.toml)")
    common.add_argument("--db", help="database URL, overriding the configuration's store.url")
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo",
        parents=[common],
        help="play a whole simulated session and print its acta",
        description="Plays a whole session of four games with simulated staff and players on "
        "the configured store (by default SQLite under var/), then prints the session's acta. "
        "If a session is left open in the store, the demo carries it on to the end.",
    )
    demo.add_argument("--json", action="store_true", help="print the acta as JSON")
    demo.add_argument("--trace", action="store_true", help="print each committed event")
    demo.add_argument(
        "--no-camera",
        action="store_true",
        help="call the balls without the simulated CCTV camera check",
    )
    demo.set_defaults(run=run_demo)

    acta = commands.add_parser(
        "acta",
        parents=[common],
        help="print the acta of a game or a session",
        description="Prints the minutes (Spanish text, or --json) of one game or one session, "
        "built from the event log, with the verdict of the log's hash chain. With --frames, "
        "also writes the camera frames it cites, with a SHA256SUMS file that sha256sum -c "
        "checks. Exit status 1 if the chain does not verify or a cited frame is missing or "
        "altered.",
    )
    acta.add_argument("--json", action="store_true", help="print the acta as JSON")
    scope = acta.add_mutually_exclusive_group(required=True)
    scope.add_argument("--game", type=whole_number, help="game id")
    scope.add_argument("--session", type=whole_number, help="session id")
    acta.add_argument(
        "--frames",
        type=Path,
        metavar="DIR",
        help="write the camera frames the acta cites into DIR (new or empty)",
    )
    acta.set_defaults(run=run_acta)

    record = commands.add_parser(
        "table-record",
        parents=[common],
        help="print the record of a casino table's session",
        description="Prints the record (Spanish text, or --json) of one session of a linked "
        "table, built from the table's stream of the event log: its game, limits and float, "
        "the staff, every coup with its spins, voids, bets, settlement and payments, the "
        "changes of limits (refused ones included), closures for a while, colour chips, the "
        "closing and its seal, with the verdict of the stream's hash chain. Exit status 1 if "
        "the chain does not verify.",
    )
    record.add_argument("--table", required=True, help="the table's id, e.g. R1")
    record.add_argument(
        "--session", type=whole_number, help="the table's session (default: its latest)"
    )
    record.add_argument("--json", action="store_true", help="print the record as JSON")
    record.set_defaults(run=run_table_record)

    export = commands.add_parser(
        "export-log",
        parents=[common],
        help="export the hall's whole log for the regulator",
        description="Writes the hall's event log (its own stream and each casino table's) into "
        "a new directory: a JSON Lines file per stream with every event as stored and hashed, "
        "MANIFEST.json with each stream's head and verdict, verify_export.py (the hash chain's "
        "recipe and checker, for any Python 3.11 without this system), SHA256SUMS, and with "
        "--frames the camera frames the log cites. A stream whose chain does not verify is "
        "exported all the same; exit status 1 then, and for a cited frame missing or altered.",
    )
    export.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the new directory to write"
    )
    export.add_argument(
        "--frames",
        action="store_true",
        help="also write the camera frames the log cites (frames/<sha256>.jpg)",
    )
    export.set_defaults(run=run_export_log)

    imports = commands.add_parser(
        "import-series",
        parents=[common],
        help="import a card file as a series of the hall",
        description="Verifies a card file (bingo-cards verify), stores its master cards in the "
        "hall's store and registers the series with its commitment. Only between games.",
    )
    imports.add_argument("file", help="JSONL or CSV card file from bingo-cards generate")
    imports.add_argument(
        "--actor", type=_actor, default="jefe-de-sala", help="who registers the series"
    )
    imports.add_argument(
        "--commitment",
        help="the commitment published for the series (bingo-cards generate prints it): the "
        "file must be that series; the manifest's is checked as well when it lies beside the file",
    )
    imports.set_defaults(run=run_import_series)

    commission = commands.add_parser(
        "commission-ball-set",
        parents=[common],
        help="show every ball of a set to the hall's camera before it confirms calls",
        description="Shows every ball of a registered set to the hall's camera at the ball "
        "exit and records the verdict: whether the camera may confirm the set's calls (until "
        "then every call is held for the Jefe de Mesa). With a real camera, key the number of "
        "each ball as you place it at the exit, one per line, and 'fin' to finish; the "
        "simulated camera is shown every ball by the hub. Between games, with the hub stopped. "
        "Prints the verdict as JSON; exit status 1 if the set was refused.",
    )
    commission.add_argument("--ball-set", required=True, help="the registered ball set's id")
    commission.add_argument(
        "--actor", type=_actor, default="jefe-de-mesa", help="who commissions the set"
    )
    commission.add_argument(
        "--showings-per-ball",
        type=whole_number,
        default=SHOWINGS_PER_BALL,
        help="simulated camera only: how many times each ball is shown (default %(default)s)",
    )
    commission.set_defaults(run=run_commission_ball_set)

    server = commands.add_parser(
        "serve",
        parents=[common],
        help="run the hub (websocket protocol at /ws)",
        description="Runs the hall's hub: the rules engine in front of its event log, with the "
        "websocket protocol at /ws (docs/protocol.md) and /health, until SIGINT or SIGTERM.",
    )
    server.add_argument(
        "--port", type=_port, help="port, 0 to 65535 (default: server.port of the config)"
    )
    server.set_defaults(run=run_serve)

    access = commands.add_parser(
        "mqtt-access",
        help="write the MQTT broker's ACL and the hub's broker users for the hall",
        description="Writes, from the hall's configuration (its id, topic prefix and tables), "
        "the Mosquitto broker's ACL file (--acl) and the hub's users in the broker's password "
        "file (--passwd): one user per connection of the hub, named by its client id (the "
        "hall's bridge, each table's, and their witness checks), with the password of [mqtt] "
        "password. The password file's other users (monitors, terminals: mosquitto_passwd) "
        "are kept; the hub's users of a table no longer configured are removed. Run it again "
        "after adding or removing a table, then reload the broker. Never prints a password "
        "(docs/mqtt.md, «Access control»).",
    )
    access.add_argument("--config", help="hall configuration (default: config/hall.toml)")
    access.add_argument("--acl", type=Path, metavar="FILE", help="the broker's acl_file")
    access.add_argument("--passwd", type=Path, metavar="FILE", help="the broker's password_file")
    access.set_defaults(run=run_mqtt_access)

    _add_credential_parsers(commands, common)
    add_tables_parser(commands)
    add_vision_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_one_blas_thread()
    try:
        status = _run(args)
        if status != 0:
            NEW_STORE_FILES.remove_unused()
        return status
    finally:
        NEW_STORE_FILES.forget()


def _run(args: argparse.Namespace) -> int:
    """The command, its refusals said in one line."""
    try:
        return args.run(args)
    except (RuleError, StoreError, UserError, CardFileError, ValueError) as error:
        print(f"bingo-hall: error: {error}", file=sys.stderr)
        return 2
    except TamperedLog as error:
        print(f"bingo-hall: error: {error}", file=sys.stderr)
        return 1
    except sqlalchemy.exc.SQLAlchemyError as error:  # the store failed while a command ran
        print(f"bingo-hall: error: the store failed: {_first_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
