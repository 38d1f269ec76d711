"""Train the label networks from rendered balls, calibrate them, choose the threshold.

    python -m bingo_hall.vision.train [--frames N] [--calibration N] [--workers N] [--seed S]
        [--epochs N] [--readers N] [--glare-on-print SHARE] [--letterforms SHARE] [--doubt D]
        [--obscured FROM,FULL]
        [--damage-seeds K] [--legible SHARE] [--one-threshold] [--window-epochs N]
        [--typefaces kept-out|other-families] [--reader-channels C,C,...] [--reader-hidden N]
        [--networks MODEL [--fit-window] [--fit-readers]] [--output PATH]

1. Render balls in the TRAINING styles only and run the reader's own pipeline on them (find
   the ball, find and flatten its labels); every label flattened is kept with the truth the
   renderer knows: the number, the direction in which the print's text runs in the patch and
   where the print is in it; each label is also flattened through a window moved off its
   print at random (`label_data.misframed`), for the window network.
   In a share of the frames (`--glare-on-print`, 0.35 by default) the glare spots are moved
   onto the print nearest the camera, where they wash out the ink as a real highlight does.
2. Fit the window network (`--window-epochs`; labels and misframed copies), the orientation
   network and the reading networks (an ensemble of `--readers`, the same fit from different
   seeds; PyTorch, a training-only dependency) on the labels of the typefaces `--typefaces`
   fits on: `other-families` (the default) fits on every training typeface and calibrates
   on the CALIBRATION typefaces, of families neither trained on nor held out; `kept-out`
   fits on two thirds of the training typefaces and keeps the fonts whose place in the list
   is a multiple of three for the calibration (sisters of fitted faces: thresholds so chosen
   let wrong readings of other families through). `--letterforms SHARE` (0 by default)
   slants, narrows or widens and bends that share of the upright prints afresh each epoch.
   `--doubt D` (0 by default) teaches a print the damage mostly destroyed as doubtful: its
   digit targets move towards every digit alike, up to D (`fit_nets.digit_target_doubt`).
   `--obscured FROM,FULL` gives the reading networks a 22nd output, "part of the print
   obscured", taught 0 for a print that lost up to FROM of a part of it to the renderer's
   highlights or to the damage, rising to 1 at FULL (`fit_nets.obscured_target`); the reader
   then reads an obscured print as saying little (`model.number_log_likelihoods`).
   `--reader-channels` and `--reader-hidden` set the reading networks' widths (the model
   file keeps them: the reader reads them off the weights).
3. Render the calibration set in the typefaces the networks were not fitted on (another
   seed), framed as the reader with that window network frames them: bursts of three frames
   of one ball as the simulated camera gives them, read as rendered and again damaged as
   the networks were taught, from `--damage-seeds` seeds (eight by default). Fit the softmax
   temperature and the label- and frame-fusion exponents to the log-loss of the readings of
   first frames and whole bursts (as rendered and damaged from the first seed), then choose
   three acceptance thresholds on all of them, one for each kind of evidence a reading rests
   on (one label; two labels found in one frame; two labels of one frame agreeing on the
   number): each above every wrong reading of its kind, with a margin of a factor of a
   hundred in the odds, and never below 0.99 (`bingo_hall.vision.calibrate`).
   `--one-threshold` chooses one for every reading. `--legible SHARE` (1 by default) leaves
   out the damaged bursts whose damage destroyed more than that share of a part of a print
   (`damage.destroyed_share`): a digit gone is no longer a print of its number.
4. Write `bingo_hall/vision/model/labels.npz` (float16 weights).

`--networks MODEL` skips steps 1 and 2 and calibrates the networks of a model file again;
with `--fit-window` it renders the training labels and fits a window network for them first,
with `--fit-readers` new reading networks beside its orientation and window networks.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from bingo_hall.vision.calibrate import calibrate
from bingo_hall.vision.label_data import Burst, LabelSet, render_bursts, render_labels
from bingo_hall.vision.labelnet import (
    OBSCURED_READ_OUTPUTS,
    READ_CHANNELS,
    READ_HIDDEN,
    READ_OUTPUTS,
    Weights,
    reading_architecture,
)
from bingo_hall.vision.model import MODEL_PATH, VIEWS, LabelModel, load_model
from bingo_hall.vision.styles import (
    CALIBRATION,
    CHECK,
    EXITS,
    TRAINING,
    TRAINING_FONT_PACKAGES,
    StyleSet,
    at_exit,
)

CHUNKS = 32  # the rendering is split into this many seeded chunks, whatever the workers
DEFAULT_SEED = 20261125  # the packaged model's training and calibration
FONT_GROUPS = 3  # kept-out: fonts whose index is a multiple of this are unseen by the networks
# the typefaces the calibration is drawn in (CHECK_FAMILIES: only to check thresholds)
KEPT_OUT, OTHER_FAMILIES, CHECK_FAMILIES = "kept-out", "other-families", "check-families"
CALIBRATION_DAMAGE_SEED = 1000  # added to --seed: the calibration's damage (readers use +1…)
DAMAGE_SEED_STEP = 100


def damage_seeds(seed: int, count: int, skip: int = 0) -> list[int]:
    """The calibration's damage seeds for a run with this seed (after the first `skip`)."""
    first = seed + CALIBRATION_DAMAGE_SEED
    return [first + DAMAGE_SEED_STEP * k for k in range(skip, skip + count)]


# TRAINING's balls and conditions in the typefaces the networks are not fitted on
CALIBRATION_STYLES: dict[str, StyleSet] = {
    KEPT_OUT: replace(TRAINING, fonts=TRAINING.fonts[::FONT_GROUPS]),
    OTHER_FAMILIES: CALIBRATION,
    CHECK_FAMILIES: CHECK,
}


def calibration_styles(typefaces: str = OTHER_FAMILIES) -> StyleSet:
    """The styles the calibration (or the check) is drawn in."""
    return CALIBRATION_STYLES[typefaces]


def fitted_labels(labels: LabelSet, typefaces: str = OTHER_FAMILIES) -> LabelSet:
    """The labels the networks are fitted on: only the kept-out split keeps training
    typefaces out of the fit."""
    if typefaces != KEPT_OUT:
        return labels
    return labels.subset(np.flatnonzero(labels.font % FONT_GROUPS != 0))


def _pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes started afresh: a forked copy of a process that runs threads (OpenCV's
    pool, a test runner's) can deadlock on a lock one of them held."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _jobs(seed: int, total: int, parts: int) -> list[tuple[int, int]]:
    """(seed, count) per chunk."""
    seeds = np.random.SeedSequence(seed).generate_state(parts)
    size = -(-total // parts)
    return [(int(s), min(size, total - i * size)) for i, s in enumerate(seeds) if total > i * size]


def render_training(frames: int, seed: int, workers: int, glare_share: float = 0.0) -> LabelSet:
    """The training labels of a run with this seed (and each one's `misframed` copy)."""
    seeds = np.random.SeedSequence(seed).generate_state(2)
    with _pool(workers) as pool:
        jobs = [(s, c, TRAINING, glare_share) for s, c in _jobs(int(seeds[0]), frames, CHUNKS)]
        return LabelSet.concatenate(list(pool.map(render_labels, jobs)))


def render_calibration(
    balls: int,
    burst: int,
    seed: int,
    workers: int,
    window: Weights | None = None,
    typefaces: str = OTHER_FAMILIES,
    exit_name: str = EXITS[0],
) -> list[Burst]:
    """The calibration bursts of a training run with this seed, in the typefaces the
    networks are not fitted on, at the exit named (`styles.at_exit`), framed as the reader
    with the window network `window` frames them."""
    seeds = np.random.SeedSequence(seed).generate_state(2)
    styles = at_exit(calibration_styles(typefaces), exit_name)
    with _pool(workers) as pool:
        jobs = [(s, c, burst, styles, window) for s, c in _jobs(int(seeds[1]), balls, CHUNKS)]
        return [b for part in pool.map(render_bursts, jobs) for b in part]


def _widths(text: str) -> tuple[int, ...]:
    """'16,32,64,96' → (16, 32, 64, 96): one positive width per convolution."""
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: widths separated by commas") from None
    if not 1 <= len(widths) <= 4 or min(widths) < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r}: one to four positive widths (48 pixels halved four times)"
        )
    return widths


def _ramp(text: str) -> tuple[float, float]:
    """'0.3,0.6' → (0.3, 0.6): where the ramp starts and where it is full, 0 ≤ from < full ≤ 1."""
    try:
        start, full = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: two shares, FROM,FULL") from None
    if not 0.0 <= start < full <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: 0 <= FROM < FULL <= 1")
    return start, full


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=60000, help="training frames")
    parser.add_argument("--calibration", type=int, default=3000, help="calibration balls")
    parser.add_argument("--burst", type=int, default=3, help="frames per calibration burst")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--readers", type=int, default=4, help="reading networks (ensemble)")
    parser.add_argument(
        "--glare-on-print",
        type=float,
        default=0.35,
        help="share of training frames whose glare spots are moved onto the print (0 to 1)",
    )
    parser.add_argument(
        "--letterforms",
        type=float,
        default=0.0,
        help="share of training prints slanted, narrowed or widened and bent (0 to 1)",
    )
    parser.add_argument(
        "--doubt",
        type=float,
        default=0.0,
        help="how far the digit targets of a destroyed print move towards every digit (0 to 1)",
    )
    parser.add_argument(
        "--obscured",
        type=_ramp,
        help="teach the reading networks to say a print is obscured: not below FROM of a "
        "part of it lost, surely from FULL on (FROM,FULL)",
    )
    parser.add_argument(
        "--damage-seeds", type=int, default=8, help="damage seeds of the calibration bursts"
    )
    parser.add_argument(
        "--legible",
        type=float,
        default=1.0,
        help="leave out of the calibration damaged bursts whose damage destroyed more than "
        "this share of a part of a print (0 to 1; 1 keeps them all)",
    )
    parser.add_argument(
        "--one-threshold",
        action="store_true",
        help="one threshold for every reading, not one for each kind of evidence",
    )
    parser.add_argument(
        "--networks", type=Path, help="calibrate the networks of this model file again"
    )
    parser.add_argument(
        "--fit-window",
        action="store_true",
        help="with --networks: render training labels and fit a window network for that model",
    )
    parser.add_argument(
        "--views",
        type=int,
        default=1,
        help=f"views each reading network reads a label through (1-{len(VIEWS)})",
    )
    parser.add_argument(
        "--fit-readers",
        action="store_true",
        help="with --networks: render training labels and fit new reading networks for it",
    )
    parser.add_argument(
        "--reader-channels",
        type=_widths,
        default=READ_CHANNELS,
        help="the reading networks' convolution widths, comma-separated "
        f"(default {','.join(map(str, READ_CHANNELS))})",
    )
    parser.add_argument(
        "--reader-hidden", type=int, default=READ_HIDDEN, help="the reading networks' hidden layer"
    )
    parser.add_argument("--window-epochs", type=int, default=12)
    parser.add_argument(
        "--typefaces",
        choices=(KEPT_OUT, OTHER_FAMILIES),
        default=OTHER_FAMILIES,
        help="fit on two thirds of the training typefaces and calibrate on the rest, or fit "
        "on all of them and calibrate on other families",
    )
    parser.add_argument(
        "--exit",
        choices=EXITS,
        default=EXITS[0],
        help="calibrate for the training's conditions and damage, or for an exit built to a "
        "lighting and camera specification (styles.as_specified; the damage without "
        "highlights): a measurement, not the packaged model's calibration",
    )
    parser.add_argument("--output", type=Path, default=MODEL_PATH, help="where to write the model")
    parser.add_argument("--cache", help="keep the rendered data in this file (development)")
    args = parser.parse_args(argv)
    for option, share in (
        ("--glare-on-print", args.glare_on_print),
        ("--letterforms", args.letterforms),
        ("--doubt", args.doubt),
        ("--legible", args.legible),
    ):
        if not 0.0 <= share <= 1.0:
            parser.error(f"{option} {share}: a share from 0 to 1")
    if not 1 <= args.views <= len(VIEWS):
        parser.error(f"--views {args.views}: 1 to {len(VIEWS)}")
    if args.damage_seeds < 1:
        parser.error(f"--damage-seeds {args.damage_seeds}: at least one")
    if args.networks is not None and not args.networks.is_file():
        parser.error(f"--networks {args.networks}: no such model file")
    missing = [font.name for font in TRAINING.fonts + CALIBRATION.fonts if not font.available()]
    if missing:
        print(
            f"missing training or calibration fonts: {', '.join(missing)}; install the "
            f"Debian packages {' '.join(TRAINING_FONT_PACKAGES)}",
            file=sys.stderr,
        )
        return 2
    if args.fit_window and args.networks is None:
        parser.error("--fit-window: with --networks (a full training fits the window network)")
    if args.fit_readers and args.networks is None:
        parser.error("--fit-readers: with --networks (a full training fits the readers)")
    if args.exit == "specified" and args.output.resolve() == MODEL_PATH.resolve():
        parser.error("--exit specified: give --output; the packaged model is calibrated as drawn")
    if args.reader_hidden < 1:
        parser.error(f"--reader-hidden {args.reader_hidden}: at least one")
    started = time.perf_counter()
    if args.networks is not None and not (args.fit_window or args.fit_readers):
        return finish(load_model(args.networks), args, started)
    from bingo_hall.vision.fit_nets import fit_orientation, fit_reading, fit_window, set_threads

    if args.cache and Path(args.cache).exists():  # a development shortcut
        with open(args.cache, "rb") as file:
            labels = pickle.load(file)
    else:
        labels = render_training(args.frames, args.seed, args.workers, args.glare_on_print)
        if args.cache:
            with open(args.cache, "wb") as file:
                pickle.dump(labels, file, protocol=5)
    seen = fitted_labels(labels, args.typefaces)
    framed = seen.subset(np.flatnonzero(~seen.misframed))
    print(
        f"{len(framed)} training labels and {len(seen) - len(framed)} misframed copies "
        f"({len(labels)} flattened from {args.frames} frames; "
        f"{time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    set_threads(args.workers)
    outputs = READ_OUTPUTS if args.obscured is None else OBSCURED_READ_OUTPUTS
    reading = reading_architecture(args.reader_channels, args.reader_hidden, outputs)

    def readers() -> tuple[Weights, ...]:
        return tuple(
            fit_reading(
                framed,
                args.seed + 1 + i,
                args.epochs,
                args.letterforms,
                args.doubt,
                reading,
                args.obscured,
            )
            for i in range(args.readers)
        )

    if args.networks is not None:
        networks = load_model(args.networks)
        if args.fit_window:
            networks = replace(networks, window=fit_window(seen, args.seed, args.window_epochs))
        if args.fit_readers:
            networks = replace(networks, readers=readers())
    else:
        window = fit_window(seen, args.seed, args.window_epochs)
        orientation = fit_orientation(framed, args.seed, args.epochs)
        networks = LabelModel(orientation, readers(), window=window)
    print(f"fitted ({time.perf_counter() - started:.0f} s)", flush=True)
    return finish(networks.as_saved(), args, started)


def finish(networks: LabelModel, args: argparse.Namespace, started: float) -> int:
    """Render the calibration bursts as the networks frame them, calibrate the networks,
    write the model, say what was chosen."""
    networks = replace(networks, views=args.views)
    bursts = render_calibration(
        args.calibration,
        args.burst,
        args.seed,
        args.workers,
        networks.window,
        args.typefaces,
        args.exit,
    )
    print(f"{len(bursts)} calibration balls ({time.perf_counter() - started:.0f} s)", flush=True)
    seeds = damage_seeds(args.seed, args.damage_seeds)
    model, stats = calibrate(
        networks,
        bursts,
        seeds,
        not args.one_threshold,
        args.legible,
        highlights=args.exit != "specified",
    )
    for key, value in stats.items():
        print(f"  {key}: {value}")
    model.save(args.output)
    size = args.output.stat().st_size
    print(f"wrote {args.output} ({size / 1024:.0f} KiB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
