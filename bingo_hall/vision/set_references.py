"""A ball set's own prints, as the hall's camera showed them when the set was commissioned.

A hall plays one set at a time, printed in one typeface, under one camera, and every ball of
it was shown to that camera before the camera may confirm a call on it (`commissioning`).
The reading networks' features of the most frontal print of each frame kept then
(`LabelModel.features`) are that ball's references. A frame of play lies nearest the
references of its own ball: the set's prints are told apart by how this set prints them,
where the networks, fitted on other typefaces, may doubt a letterform (docs/vision.md, "A
reader that knows the hall's set").

A reading the networks' own threshold does not accept is accepted on the set's references
only when the networks' best guess and the nearest references name the same ball, by a
margin over the next ball's that is the wider the less sure the networks are (`STEPS`): two
readers that err differently agree, and the one that doubts more is outweighed by the
other. A reading the networks are sure of is still not accepted when the references lie
nearer another ball (`contradicts`, `VETO_MARGIN`). A frame that lies near no print of the set
(`SIMILARITY_FLOOR`: a smeared dome, a print washed out) is one the references do not
recognise: they may still refuse a reading, but confirm none and name no ball.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bingo_hall.vision.reading import Reading

# (the networks' confidence, the references' margin): a doubted guess is accepted at any
# step it reaches. Each margin is twice the largest at which the guess and the references
# agreed on a wrong number, at a confidence down to the step's with its odds divided by ten,
# in 165,600 frames of sets of the calibration and check typefaces (print runs 0 to 4 and
# printed anew, at both exits); checked on sets of the held-out ones (bench/vision_set_rule.py;
# docs/vision.md, "Print run 4: the top step split").
STEPS = ((0.9999, 0.052), (0.999, 0.078), (0.995, 0.116), (0.0, 0.150))
MARGIN_FLOOR = min(margin for _, margin in STEPS)
# The references refuse a reading, however sure the networks, when they lie nearer another
# ball at all (`contradicts`): the networks' wrong acceptances they named the ball shown
# against led by 0.036 to 0.076, and holding every reading they name another ball for holds
# well under 0.1 % of the right ones (a hold costs the Jefe de Mesa a look; a wrong number
# costs the game).
VETO_MARGIN = 0.0
# The references recognise a frame only when it lies at least this near some print of the set
# (the cosine of its nearest reference). A frame through a smeared dome lies nearest whatever
# print its smear resembles, by margins up to 0.28: of 10,200 such frames, with no floor, the
# references confirmed two wrong guesses and named a ball for 309 (304 not the one shown).
# Chosen 0.01 or more above the nearest such frame of the calibration and check typefaces
# (0.865). On the held-out ones and at an exit built to the specification it leaves none; of
# 9,662 clear frames accepted it gives up two (bench/vision_set_floor.py; docs/vision.md,
# "Frames the set's prints do not recognise").
SIMILARITY_FLOOR = 0.88


@dataclass(frozen=True)
class ReferenceMatch:
    """The ball whose references the frames lie nearest, its lead over the next ball, and how
    near it lies (the mean of its best cosine over the frames)."""

    ball: int
    margin: float
    similarity: float

    def recognised(self, floor: float = SIMILARITY_FLOOR) -> bool:
        """The frame lies near enough a print of the set for the references to speak of it
        (`floor`: the hub's; another only to measure against it)."""
        return self.similarity >= floor


@dataclass(frozen=True)
class SetReferences:
    """One row of features per print kept at commissioning, and the ball each shows."""

    features: np.ndarray  # (n, d), unit rows
    balls: np.ndarray  # (n,), 1-90

    def __post_init__(self) -> None:
        if len(self.features) != len(self.balls):
            raise ValueError("one ball is needed for each reference")

    @property
    def complete(self) -> bool:
        """Every ball of the set has a reference."""
        return len(np.unique(self.balls)) == 90

    def match(self, frame_features: Sequence[np.ndarray]) -> ReferenceMatch | None:
        """Each ball's nearest reference to each frame (cosine), averaged over the frames;
        None when no frame showed a print, or some ball has no reference (a frame of that
        ball could only lie nearest another one)."""
        if not frame_features or not self.complete:
            return None
        similarity = np.stack(frame_features) @ self.features.T  # (frames, references)
        best = np.full((len(frame_features), 91), -np.inf)
        for row, frame_similarity in zip(best, similarity, strict=True):
            np.maximum.at(row, self.balls, frame_similarity)
        mean = best.mean(axis=0)
        second, first = np.argsort(mean)[-2:]
        return ReferenceMatch(int(first), float(mean[first] - mean[second]), float(mean[first]))


Staircase = Sequence[tuple[float, float]]


def corroborates(
    guess: int,
    confidence: float,
    match: ReferenceMatch | None,
    steps: Staircase = STEPS,
    floor: float = SIMILARITY_FLOOR,
) -> bool:
    """The rule by which a set's references accept a reading the networks doubt (`steps`:
    the hub's; another staircase only to measure against it), on a frame they recognise."""
    return (
        match is not None
        and match.recognised(floor)
        and match.ball == guess
        and any(confidence >= least and match.margin >= margin for least, margin in steps)
    )


def contradicts(guess: int, match: ReferenceMatch | None, veto: float = VETO_MARGIN) -> bool:
    """The set's references name another ball than the networks' guess, by more than `veto`:
    the reading is not accepted, however sure the networks are. The other ball may be one no
    longer in the machine (the ball before, still in view)."""
    return match is not None and match.ball != guess and match.margin > veto


Verdict = Literal["networks", "set", "set_disagrees", "unsure"]


def judge(
    guess: int,
    confidence: float,
    networks_accept: bool,
    match: ReferenceMatch | None,
    steps: Staircase = STEPS,
    floor: float = SIMILARITY_FLOOR,
) -> Verdict:
    """How the hub takes the networks' best guess, in order: the set's references refuse it
    when they lie nearer another ball (`contradicts`), and are the reason given
    ("set_disagrees") when they recognise the frame and overrule the networks' acceptance or
    lead by a margin that would confirm a ball (`MARGIN_FLOOR`); else the networks' own
    threshold accepts it (`networks_accept`); else the references may (`corroborates`).
    Without references (`match` None) the networks decide alone."""
    if match is not None and contradicts(guess, match):
        if match.recognised(floor) and (networks_accept or match.margin >= MARGIN_FLOOR):
            return "set_disagrees"
        return "unsure"  # references that lean elsewhere faintly, or on a frame unlike any print
    if networks_accept:
        return "networks"
    if corroborates(guess, confidence, match, steps, floor):
        return "set"
    return "unsure"


def judged_reading(
    guess: int,
    confidence: float,
    networks_accept: bool,
    match: ReferenceMatch | None,
    steps: Staircase = STEPS,
    in_machine: bool = True,
) -> Reading:
    """The reading of the networks' best guess, as `judge` takes it against the set's
    references (`match`), with the ball those lie nearest when they recognise the frame. A
    guess no longer in the machine (`in_machine` false: the ball before, still in view) is
    never given as the number."""
    nearest = match.ball if match is not None and match.recognised() else None
    verdict = judge(guess, confidence, networks_accept, match, steps)
    if not in_machine and verdict in ("networks", "set"):
        verdict = "unsure"
    if verdict == "networks":
        return Reading(guess, confidence, guess, None, set_nearest=nearest)
    if verdict == "unsure":
        return Reading(None, confidence, guess, "unsure", set_nearest=nearest)
    assert match is not None  # the references decided
    if verdict == "set":
        return Reading(guess, confidence, guess, None, match.margin, set_nearest=nearest)
    return Reading(None, confidence, guess, verdict, match.margin, match.ball, nearest)


def cross_matches(prints: Sequence[tuple[int, np.ndarray | None]]) -> list[ReferenceMatch | None]:
    """Each print matched against the set's other prints (itself left out), in order: how
    play would read that frame if it had not been kept. None where the print was not found,
    or where, without it, some ball has no reference."""
    references = set_references(prints)
    rows = iter(range(len(references.balls)))
    matches: list[ReferenceMatch | None] = []
    for _, features in prints:
        if features is None:
            matches.append(None)
            continue
        row = next(rows)
        others = np.arange(len(references.balls)) != row
        matches.append(
            SetReferences(references.features[others], references.balls[others]).match([features])
        )
    return matches


def set_references(prints: Iterable[tuple[int, np.ndarray | None]]) -> SetReferences:
    """The references from (ball, features of the frame's most frontal print) pairs; frames in
    which no print was found (None) give none."""
    kept = [(ball, features) for ball, features in prints if features is not None]
    for ball, _ in kept:
        if not 1 <= ball <= 90:
            raise ValueError(f"no ball {ball}: balls are numbered 1 to 90")
    if not kept:
        return SetReferences(np.zeros((0, 0), np.float32), np.zeros(0, np.int64))
    return SetReferences(
        np.stack([features for _, features in kept]), np.array([ball for ball, _ in kept])
    )
