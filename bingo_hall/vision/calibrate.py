"""Calibrating the label reader on rendered bursts, and choosing the acceptance threshold.

The readings are what `BallReader.decide` computes (without candidates) for the first frame
of each ball and for its whole burst, on the bursts as rendered and on the same bursts
damaged as the networks were taught (`bingo_hall.vision.damage`; one damage per burst, a
highlight stays where it is while the ball settles): the conditions of the calibration
renders are the training ones, and a threshold set on them alone lies below the confident
mistakes of a harsher camera. The softmax temperature and the label- and frame-fusion
exponents are chosen by the log-loss of the readings as rendered and damaged from the first
damage seed. For reading networks that say when a print is obscured, those settings are
fitted with the obscured odds set aside, and then the shift of those odds is chosen with the
thresholds: the one under which most right readings are accepted (`choose_obscured_shift`).

The threshold is chosen on the readings as rendered and damaged from every damage seed
(one by default: then it rests on one damaged reading). It lies above every wrong reading,
with a margin of a factor of a hundred in the odds, and never below 0.99. By evidence, there
are three thresholds, each so chosen on the readings of its kind
(`bingo_hall.vision.model.Evidence`): those that rest on a single label, those of a frame
where two labels were found, and those two labels of one frame agree on. A damaged print
that shows another number (an 8 that lost its left half is a 3) is read with the
confidence of a clear print; a second print on the ball contradicts it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np

from bingo_hall.vision.damage import damage, destroyed_share
from bingo_hall.vision.label_data import Burst
from bingo_hall.vision.labelnet import OBSCURED
from bingo_hall.vision.model import (
    EVIDENCE_NAMES,
    Evidence,
    LabelModel,
    agreeing,
    evidence_of,
    log_normalise,
    number_log_likelihoods,
)
from bingo_hall.vision.recognise import LABELS_PER_FRAME

MIN_THRESHOLD = 0.99
MAX_THRESHOLD = 1 - 1e-9  # confidences are computed in float64
MARGIN = math.log(100.0)  # in log-odds above the most confident wrong reading

# truth, confidence, best guess (None: no reading), the strongest evidence of one frame
ReadingRow = tuple[int, float, int | None, Evidence]


class Calibration:
    """The calibration bursts' network outputs, computed once, and the readings they give
    under any setting."""

    def __init__(self, model: LabelModel, bursts: list[Burst]) -> None:
        self.truth = np.array([t for t, _, _ in bursts])
        patches: list[np.ndarray] = []
        label_frame: list[int] = []
        ball_of: list[int] = []
        for b, (_, _, frames) in enumerate(bursts):
            for labels in frames:
                for patch in labels[:LABELS_PER_FRAME]:
                    patches.append(patch)
                    label_frame.append(len(ball_of))
                ball_of.append(b)
        self.outputs = np.concatenate(
            [model.outputs(patches[i : i + 512]) for i in range(0, len(patches), 512)]
        )
        self.label_frame = np.array(label_frame)
        self.ball_of = np.array(ball_of)
        self.frames = len(ball_of)
        self.labels_in = np.bincount(self.label_frame, minlength=self.frames)
        starts = np.r_[True, self.ball_of[1:] != self.ball_of[:-1]]
        self.first = np.flatnonzero(starts)

    def readings(self, model: LabelModel) -> list[ReadingRow]:
        label_scores = number_log_likelihoods(self.outputs, model.temperature, model.obscured_shift)
        label_lp = log_normalise(label_scores)
        label_ball = self.ball_of[self.label_frame]
        scores = np.zeros((self.frames, 90))
        np.add.at(scores, self.label_frame, label_scores)
        has = self.labels_in > 0
        scores[has] /= (self.labels_in[has] ** model.label_fusion)[:, None]
        lp = log_normalise(scores)
        lp[~has] = 0.0
        out: list[ReadingRow] = []
        for picked in (self.first, np.arange(self.frames)):
            use = picked[has[picked]]
            sums = np.zeros((len(self.truth), 90))
            counts = np.bincount(self.ball_of[use], minlength=len(self.truth))
            np.add.at(sums, self.ball_of[use], lp[use])
            fused = sums / (np.maximum(counts, 1) ** model.fusion)[:, None]
            post = np.exp(log_normalise(fused))
            guess, confidence = post.argmax(axis=1) + 1, post.max(axis=1)
            in_use = np.isin(self.label_frame, use)
            agree = in_use & agreeing(label_lp, guess[label_ball] - 1)
            per_frame = np.bincount(self.label_frame, weights=agree, minlength=self.frames)
            found = np.zeros_like(self.labels_in)
            found[use] = self.labels_in[use]
            most = np.zeros(len(self.truth), int)
            np.maximum.at(most, self.ball_of, evidence_of(found, per_frame))
            for b, truth in enumerate(self.truth):
                found = counts[b] > 0
                out.append(
                    (
                        int(truth),
                        float(confidence[b]) if found else 0.0,
                        int(guess[b]) if found else None,
                        Evidence(int(most[b]) if found else 0),
                    )
                )
        return out


def log_loss(readings: list[ReadingRow]) -> float:
    total = 0.0
    for truth, confidence, guess, _ in readings:
        if guess is None:
            continue
        p = confidence if guess == truth else (1 - confidence) / 89
        total -= math.log(max(p, 1e-12))
    return total / max(1, len(readings))


def threshold_above(
    readings: list[ReadingRow], margin: float = MARGIN
) -> tuple[float, list[float]]:
    """Above the most confident wrong reading, with a margin (in log-odds), and never below
    MIN_THRESHOLD."""
    wrong = sorted((c for t, c, g, _ in readings if g is not None and g != t), reverse=True)
    worst = wrong[0] if wrong else 0.0
    odds = math.log(max(worst, 1e-9) / max(1 - worst, 1e-12)) + margin
    return min(max(MIN_THRESHOLD, 1 / (1 + math.exp(-odds))), MAX_THRESHOLD), wrong


def thresholds_by_evidence(
    readings: list[ReadingRow], margin: float = MARGIN
) -> dict[Evidence, float]:
    """A threshold for each kind of evidence, above the wrong readings of its kind."""
    return {kind: threshold_above(of_kind(readings, kind), margin)[0] for kind in Evidence}


def of_kind(readings: list[ReadingRow], kind: Evidence) -> list[ReadingRow]:
    return [r for r in readings if r[3] == kind]


def accepted(readings: list[ReadingRow], model: LabelModel) -> int:
    """The readings right and accepted at the model's thresholds."""
    return sum(1 for t, c, g, k in readings if g == t and c >= model.threshold_for(k))


def damaged(bursts: list[Burst], seed: int, highlights: bool = True) -> list[Burst]:
    """The bursts with their labels damaged as the networks were taught (without highlights,
    as at an exit lit by a diffuse light box), the same damage on every frame of a burst."""
    seeds = np.random.SeedSequence(seed).generate_state(len(bursts))
    return [
        (number, font, [_damaged_labels(labels, int(s), highlights) for labels in frames])
        for (number, font, frames), s in zip(bursts, seeds, strict=True)
    ]


def destroyed(rendered: list[Burst], hurt: list[Burst]) -> np.ndarray:
    """For each burst, the most its damage destroyed of a part of any of its labels' prints
    (`damage.destroyed_share`)."""
    shares = np.zeros(len(rendered), np.float32)
    for b, ((_, _, before), (_, _, after)) in enumerate(zip(rendered, hurt, strict=True)):
        pairs = [
            (x, y)
            for labels_before, labels_after in zip(before, after, strict=True)
            for x, y in zip(labels_before, labels_after, strict=True)
        ]
        if pairs:
            olds, news = zip(*pairs, strict=True)
            shares[b] = destroyed_share(np.stack(olds), np.stack(news)).max()
    return shares


def legibly_damaged(
    bursts: list[Burst], seed: int, legible: float = 1.0, highlights: bool = True
) -> list[Burst]:
    """The bursts damaged from `seed`, less those whose damage destroyed more than `legible`
    of a part of a print (1.0 keeps them all). A print whose digit is gone is no longer a
    print of its number: read as another number, it says nothing of how the reader errs on
    a print it can see."""
    hurt = damaged(bursts, seed, highlights)
    if legible >= 1.0:
        return hurt
    kept = destroyed(bursts, hurt) <= legible
    return [burst for burst, keep in zip(hurt, kept, strict=True) if keep]


def _damaged_labels(labels: list[np.ndarray], seed: int, highlights: bool) -> list[np.ndarray]:
    """Each label damaged by a generator started afresh from the burst's seed: the same
    damage wherever the label appears in the burst."""
    return [damage(label[None], np.random.default_rng(seed), highlights)[0] for label in labels]


def calibrate(
    model: LabelModel,
    bursts: list[Burst],
    seeds: list[int],
    by_evidence: bool = False,
    legible: float = 1.0,
    highlights: bool = True,
) -> tuple[LabelModel, dict[str, object]]:
    """The setting with the best log-loss on the readings of the bursts as rendered and as
    damaged from the first of `seeds`, and its threshold (or thresholds by evidence) on the
    bursts as rendered and as damaged from every seed; damaged bursts whose damage destroyed
    more than `legible` of a part of a print are left out (`legibly_damaged`); without
    `highlights`, the damage leaves out the highlights (an exit built to a specification)."""
    clean = len(bursts)
    rendered = bursts
    hurt = legibly_damaged(bursts, seeds[0], legible, highlights)
    left_out = clean - len(hurt)
    bursts = bursts + hurt
    data = Calibration(model, bursts)
    obscurable = model.reading_architecture.outputs > OBSCURED
    if obscurable:  # the digits' settings fitted on the digits: the obscured odds set aside
        model = replace(model, obscured_shift=min(OBSCURED_SHIFTS))
    tried = []
    settings = itertools.product(
        np.exp(np.linspace(math.log(0.25), math.log(4.0), 25)),  # temperature
        (0.5, 0.75, 1.0),  # label fusion
        (0.5, 0.75, 1.0),  # frame fusion
    )
    for temperature, label_fusion, fusion in settings:
        candidate = replace(
            model, temperature=float(temperature), label_fusion=label_fusion, fusion=fusion
        )
        tried.append((log_loss(data.readings(candidate)), candidate))
    loss, model = min(tried, key=lambda t: t[0])
    sets = [data]
    for seed in seeds[1:]:
        hurt = legibly_damaged(rendered, seed, legible, highlights)
        left_out += clean - len(hurt)
        sets.append(Calibration(model, hurt))
    by_shift: dict[float, int] = {}
    if obscurable:
        model, by_shift = choose_obscured_shift(model, sets, by_evidence)
    readings = readings_of(sets, model)
    model = with_thresholds(model, readings, by_evidence)
    chosen = {kind: model.threshold_for(kind) for kind in Evidence}
    wrong = [r for r in readings if r[2] is not None and r[2] != r[0]]
    first = readings[:clean]  # first frames as rendered
    stats: dict[str, object] = {
        "temperature": round(model.temperature, 4),
        "label fusion": model.label_fusion,
        "frame fusion": model.fusion,
        "log loss": round(loss, 5),
        "damage seeds": len(seeds),
        f"damaged bursts left out (a part of a print destroyed beyond {legible:g})": left_out,
        "readings (single frames and bursts)": len(readings),
        "wrong guesses": len(wrong),
        **{
            f"most confident wrong, {EVIDENCE_NAMES[k]}": worst_of(of_kind(wrong, k))
            for k in Evidence
        },
        **{f"threshold ({EVIDENCE_NAMES[k]})": chosen[k] for k in Evidence},
        **{f"readings on {EVIDENCE_NAMES[k]}": len(of_kind(readings, k)) for k in Evidence},
        "single frames as rendered: best guess right": sum(1 for r in first if r[2] == r[0])
        / clean,
        "single frames as rendered accepted": accepted(first, model) / clean,
        "correct and accepted": accepted(readings, model),
    }
    if by_shift:
        stats["obscured shift"] = model.obscured_shift
        stats["correct and accepted by obscured shift"] = by_shift
    return model, stats


def readings_of(sets: list[Calibration], model: LabelModel) -> list[ReadingRow]:
    """The readings of every calibration set under the model's settings."""
    return [r for part in sets for r in part.readings(model)]


def with_thresholds(model: LabelModel, readings: list[ReadingRow], by_evidence: bool) -> LabelModel:
    """The model with its thresholds chosen on these readings (made under its settings)."""
    if by_evidence:
        chosen = thresholds_by_evidence(readings)
    else:
        chosen = dict.fromkeys(Evidence, threshold_above(readings)[0])
    return replace(
        model,
        threshold=chosen[Evidence.ONE_LABEL],
        threshold_two_found=chosen[Evidence.TWO_FOUND],
        threshold_two_labels=chosen[Evidence.TWO_AGREEING],
    )


# the shifts of the "obscured" odds tried: its networks are sure of a whole print only so far
OBSCURED_SHIFTS = tuple(float(-k) for k in range(25))  # from as fitted to set aside


def choose_obscured_shift(
    model: LabelModel, sets: list[Calibration], by_evidence: bool
) -> tuple[LabelModel, dict[float, int]]:
    """The shift of the "obscured" odds under which, with thresholds chosen anew above every
    wrong reading, most right readings are accepted (of those, the nearest 0); and that count
    for every shift tried. The networks' odds are those of the training damage: they doubt
    every print a little, and a doubt of 1e-4 alone keeps a reading below a threshold of
    0.99999."""
    counts: dict[float, int] = {}
    for shift in OBSCURED_SHIFTS:
        shifted = replace(model, obscured_shift=shift)
        readings = readings_of(sets, shifted)
        shifted = with_thresholds(shifted, readings, by_evidence)
        counts[shift] = accepted(readings, shifted)
    best = max(OBSCURED_SHIFTS, key=lambda shift: (counts[shift], shift))
    return replace(model, obscured_shift=best), counts


def worst_of(wrong: list[ReadingRow]) -> list[float]:
    return [round(r[1], 6) for r in sorted(wrong, key=lambda r: -r[1])[:5]]
