"""The CCTV check of every call (spec §4): the camera on the ball exit reads the ball, and the
call is announced only if the reading agrees; otherwise the game holds for the Jefe de Mesa.

The frames are read and fused by the vision package; the last frame is kept in the store (as
JPEG, under its SHA-256) before the event that names it is appended. On a set whose
commissioning passed, the frames it kept are the set's own prints, against which the camera
also reads (`vision.set_references`); they are made into references once per set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import cv2
import numpy as np

from bingo_hall.config import CameraConfig
from bingo_hall.domain.commands import DrawBall, HoldBall
from bingo_hall.domain.events import BallShowing, CameraCheck, CrossReading
from bingo_hall.domain.state import HallState, KeptFrames
from bingo_hall.store.frames import FrameStore

if TYPE_CHECKING:
    from bingo_hall.vision.camera import Camera
    from bingo_hall.vision.reading import Reading
    from bingo_hall.vision.recognise import BallReader
    from bingo_hall.vision.set_references import SetReferences

JPEG_QUALITY = 85


def encode_jpeg(frame: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("the camera frame could not be encoded as JPEG")
    return data.tobytes()


def camera_check(reading: Reading, frame: str | None, pictured: bool = True) -> CameraCheck:
    """The reading as the hub records it with the call: `frame`, the kept frame's hash;
    `pictured`, whether the camera gave any frame at all."""
    return CameraCheck(
        reading=reading.number,
        guess=reading.guess,
        confidence=round(reading.confidence, 6),
        reason=reading.reason if pictured else "no_picture",
        frame=frame,
        set_margin=None if reading.set_margin is None else round(reading.set_margin, 6),
        set_ball=reading.set_ball,
        set_nearest=reading.set_nearest,
    )


class BallCheck:
    """Takes frames of the ball at the exit, reads them, keeps the frame."""

    def __init__(
        self,
        camera: Camera,
        reader: BallReader,
        frames: FrameStore,
        frames_per_ball: int = 3,
        stage: Callable[[int], None] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.camera = camera
        self.reader = reader
        self.frames = frames
        self.frames_per_ball = frames_per_ball
        self.stage = stage  # a simulated exit: shows the called ball to the simulated camera
        self.clock = clock
        self._references: dict[KeptFrames, SetReferences] = {}
        self._references_lock = threading.Lock()
        self._prints: dict[str, np.ndarray | None] = {}  # features of the last set's kept frames

    def check(self, called: int, remaining: Collection[int], kept: KeptFrames = ()) -> CameraCheck:
        """Read the ball at the exit; `remaining` are the balls still in the machine, `kept` the
        frames of the set's passed commissioning (none: the networks alone decide)."""
        references = self.references(kept) if kept else None
        if self.stage is not None:
            self.stage(called)
        shots = self.camera.frames(self.frames_per_ball)
        reading = self.reader.read_frames(shots, candidates=remaining, references=references)
        digest = None
        usable = [shot for shot in shots if shot is not None and shot.size]
        if usable:
            digest = self.frames.put(encode_jpeg(usable[-1]), self.clock())
        return camera_check(reading, digest, pictured=bool(shots))

    def references(self, kept: KeptFrames) -> SetReferences:
        """The set's references, from the frames its commissioning kept; made once, and kept
        for the set last asked for (a hall plays one set at a time)."""
        from bingo_hall.vision.set_references import set_references

        with self._references_lock:
            references = self._references.get(kept)
            if references is None:
                prints = self._print_features(digest for _, digest in kept)
                references = set_references((ball, prints[digest]) for ball, digest in kept)
                self._references = {kept: references}
        return references

    def cross_readings(self, showings: Sequence[BallShowing]) -> tuple[CrossReading | None, ...]:
        """Each showing's kept frame read against the other showings' frames, as a call is
        read against the set's references, its own frame left out (None: no print found, or
        without it some ball has none)."""
        from bingo_hall.vision.set_references import corroborates, cross_matches

        with self._references_lock:
            prints = self._print_features(s.camera.frame for s in showings)
        matches = cross_matches([(s.number, prints.get(s.camera.frame or "")) for s in showings])
        return tuple(
            None
            if match is None
            else CrossReading(
                ball=match.ball,
                margin=round(match.margin, 6),
                confirms=showing.camera.guess == showing.number
                and corroborates(showing.number, showing.camera.confidence, match),
            )
            for showing, match in zip(showings, matches, strict=True)
        )

    def _print_features(self, digests: Iterable[str | None]) -> dict[str, np.ndarray | None]:
        """The features of each kept frame's most frontal print; those of the frames last
        asked for are kept, so that a set's references after its commissioning cost nothing."""
        prints = {
            digest: self._prints[digest]
            if digest in self._prints
            else self.reader.front_features(self._kept_frame(digest))
            for digest in digests
            if digest is not None
        }
        self._prints = prints
        return prints

    def _kept_frame(self, digest: str) -> np.ndarray | None:
        jpeg = self.frames.get(digest)
        if jpeg is None:
            return None
        return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def call_command(
    called: int, source: str, check: CameraCheck | None, state: HallState
) -> DrawBall | HoldBall:
    """Announce the call when the camera confirms it on a commissioned ball set (or the hall
    has no camera); else hold it for the Jefe de Mesa."""
    if check is None or state.camera_verdict(check, called) is not None:
        return DrawBall(number=called, source=source, camera=check)
    return HoldBall(called=called, source=source, camera=check)


def ball_check_from_config(config: CameraConfig, frames: FrameStore) -> BallCheck | None:
    """The hall's camera check as configured; None for `source = "none"` (no camera)."""
    if config.source == "none":
        return None
    from bingo_hall.vision.camera import VideoCaptureCamera, simulated_exit
    from bingo_hall.vision.recognise import BallReader

    reader = BallReader()
    if config.source == "simulated":
        camera = simulated_exit(config.seed, config.typeface)
        return BallCheck(camera, reader, frames, config.frames_per_ball, stage=camera.present)
    return BallCheck(VideoCaptureCamera(config.source), reader, frames, config.frames_per_ball)
