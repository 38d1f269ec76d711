"""Finding the printed labels on the ball and flattening the most frontal ones.

A label is a white disc on the coloured ball: the pixels whose darkest channel is close to
their brightest (white, whatever the body colour), with the ink inside it filled in. Each
label seen is a spherical cap; its centroid and size in the ball's disc give the direction
of its centre on the sphere, and the sphere round that centre is resampled onto a flat
square image of the label (the inverse of the printing), so that a label seen at 60° from
the camera comes out as round as a frontal one, only blurrier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from bingo_hall.vision.ink import ink_mask
from bingo_hall.vision.locate import Circle
from bingo_hall.vision.strokes import print_points

CROP_RADIUS = 96  # the ball is resampled to this radius before anything else
MASK_RADIUS = 48  # ... and the label search runs at this one
PATCH = 64  # side of a flattened label, its white interior filling the square
MAX_TILT_DEG = 72.0  # labels seen more obliquely are not read
MIN_AREA = 0.02  # of the ball's disc, for a label to count
MIN_MAJOR = 0.3  # a label's half-width, in ball radii (a frontal one's is about 0.6)


@dataclass(frozen=True)
class Label:
    """A label found on the ball: how frontal it is, its flattened colour image, and whether
    part of its print is beyond the ball's edge (then a digit may be missing)."""

    tilt_deg: float
    patch: np.ndarray
    cut: bool = False
    # the label's centre on the sphere (crop axes: x right, y down, z towards the camera);
    # the patch's x and y axes are `tangents(normal)`
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    # half the window's side on the sphere's tangent plane, in ball radii
    span: float = 0.0


def ball_crop(frame: np.ndarray, ball: Circle) -> np.ndarray:
    """The ball's bounding square resampled so the ball has radius CROP_RADIUS, centred."""
    size = 2 * CROP_RADIUS
    scale = CROP_RADIUS / ball.r
    if scale < 0.7:  # shrinking a lot: average first, or thin strokes alias away
        x0, y0 = math.floor(ball.x - ball.r - 2), math.floor(ball.y - ball.r - 2)
        side = math.ceil(2 * ball.r + 5)
        roi = _padded(frame, x0, y0, side)
        factor = max(1, int(1 / scale))
        if factor > 1:
            roi = cv2.resize(roi, (side // factor, side // factor), interpolation=cv2.INTER_AREA)
            step = side / (side // factor)
        else:
            step = 1.0
        # frame x = x0 + (u + 0.5) * step - 0.5 for roi pixel u
        cx, cy = (ball.x - x0 + 0.5) / step - 0.5, (ball.y - y0 + 0.5) / step - 0.5
        return _affine_crop(roi, cx, cy, ball.r / step, size)
    return _affine_crop(frame, ball.x, ball.y, ball.r, size)


def _padded(frame: np.ndarray, x0: int, y0: int, side: int) -> np.ndarray:
    h, w = frame.shape[:2]
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = max(0, y0 + side - h), max(0, x0 + side - w)
    roi = frame[max(0, y0) : min(h, y0 + side), max(0, x0) : min(w, x0 + side)]
    if top or left or bottom or right:
        roi = cv2.copyMakeBorder(roi, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return roi


def _affine_crop(image: np.ndarray, cx: float, cy: float, r: float, size: int) -> np.ndarray:
    s = r / CROP_RADIUS
    c = (size - 1) / 2
    m = np.array([[s, 0, cx - s * c], [0, s, cy - s * c]], np.float32)
    return cv2.warpAffine(
        image,
        m,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


@dataclass(frozen=True)
class _Blob:
    x: float  # centroid, in ball radii from the ball's centre
    y: float
    major: float  # semi-axis, in ball radii


def _disc(radius: int) -> np.ndarray:
    size = 2 * radius
    yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
    return (np.hypot(xx, yy) <= radius - 1).astype(np.uint8) * 255


_MASK_DISC = _disc(MASK_RADIUS)
# the limb is dark and its colour unreliable: the label search stops short of it
_SEARCH_DISC = cv2.erode(_MASK_DISC, np.ones((7, 7), np.uint8))


def find_labels(crop: np.ndarray, limit: int = 2) -> list[Label]:
    """The `limit` most frontal labels of a ball crop (from `ball_crop`), most frontal first."""
    small = cv2.resize(crop, (2 * MASK_RADIUS, 2 * MASK_RADIUS), interpolation=cv2.INTER_AREA)
    b, g, r = cv2.split(small)
    high = cv2.max(cv2.max(b, g), r)
    low = cv2.min(cv2.min(b, g), r)
    whiteness = cv2.divide(low, cv2.add(high, 1), scale=255)
    level, white = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if level < 110:  # no white-enough mode: Otsu split the body's colours
        _, white = cv2.threshold(whiteness, 170, 255, cv2.THRESH_BINARY)
    bright = cv2.compare(high, 0.35 * float(np.percentile(high[_MASK_DISC > 0], 95)), cv2.CMP_GT)
    white = cv2.bitwise_and(cv2.bitwise_and(white, bright), _SEARCH_DISC)
    white = cv2.morphologyEx(white, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = MIN_AREA * math.pi * MASK_RADIUS**2
    blobs = [_blob(c) for c in contours if cv2.contourArea(c) >= min_area]
    labels = []
    for blob in sorted(blobs, key=lambda b: math.hypot(b.x, b.y)):
        if blob.major < MIN_MAJOR:
            continue  # a glare, or a sliver of a label at the edge
        flattened = _flatten(crop, blob)
        if flattened is not None:
            labels.append(flattened)
        if len(labels) == limit:
            break
    return labels


def _blob(contour: np.ndarray) -> _Blob:
    c = MASK_RADIUS - 0.5
    m = cv2.moments(contour)
    x, y = m["m10"] / m["m00"], m["m01"] / m["m00"]
    mu20, mu02, mu11 = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    spread = math.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11**2))
    major = 2 * math.sqrt(max(0.0, (mu20 + mu02) / 2 + spread))
    return _Blob((x - c) / MASK_RADIUS, (y - c) / MASK_RADIUS, major / MASK_RADIUS)


def _flatten(crop: np.ndarray, blob: _Blob) -> Label | None:
    """Flatten the sphere round the blob's centre, then again round the printed block (digits
    and bar) found in it, sized to it, until the block sits centred and filling the patch:
    the block, not the white label, is what needs to be centred and upright."""
    sin_r = min(0.95, blob.major)
    cos_r = math.sqrt(1 - sin_r * sin_r)
    d = math.hypot(blob.x, blob.y)
    sin_a = min(0.98, d / max(cos_r, 1e-3))
    ux, uy = (blob.x / d, blob.y / d) if d > 1e-6 else (1.0, 0.0)
    centre = np.array([ux * sin_a, uy * sin_a, math.sqrt(1 - sin_a * sin_a)])
    span = 1.35 * sin_r
    half, middle = PATCH / 2, (PATCH - 1) / 2
    patch, hidden = _resample(crop, centre, span)
    for attempt in range(4):
        block = _printed_block(ink_mask(patch))
        if block is None:
            return None
        (bx, by), radius, touches = block
        fill = radius / half
        settled = math.hypot(bx - middle, by - middle) / half < SETTLED_OFFSET
        if attempt and settled and abs(fill / BLOCK_FILL - 1) < SETTLED_SIZE and not touches:
            break
        # from patch pixels back to the sphere: the block's centre becomes the patch's
        centre = _moved(centre, (bx - middle) / half * span, (by - middle) / half * span)
        span *= fill / BLOCK_FILL * (1.3 if touches else 1.0)
        span = min(0.95, max(MIN_SPAN * sin_r, span))
        patch, hidden = _resample(crop, centre, span)
    return _label(centre, span, patch, hidden)


def reframe(crop: np.ndarray, label: Label, x: float, y: float, log_size: float) -> Label | None:
    """The label flattened again round the point (x, y) of its patch (in half patch sides
    from its centre), the window scaled so that a print of relative size e**log_size comes
    to fill it as the rules intend (`labelnet.window_corrections` says where and how large
    the print is); None when the new window is too oblique to read."""
    centre = _moved(np.asarray(label.normal), x * label.span, y * label.span)
    span = min(0.95, max(0.1, label.span * math.exp(log_size)))
    patch, hidden = _resample(crop, centre, span)
    return _label(centre, span, patch, hidden)


def _moved(centre: np.ndarray, u: float, v: float) -> np.ndarray:
    """The point of the sphere seen at (u, v) on the tangent plane at `centre` (ball radii)."""
    e1, e2 = tangents(centre)
    moved = math.sqrt(max(0.0, 1 - u * u - v * v)) * centre + u * e1 + v * e2
    return moved / np.linalg.norm(moved)


def _label(centre: np.ndarray, span: float, patch: np.ndarray, hidden: np.ndarray) -> Label | None:
    tilt = math.degrees(math.acos(min(1.0, max(-1.0, float(centre[2])))))
    if tilt > MAX_TILT_DEG:
        return None
    normal = (float(centre[0]), float(centre[1]), float(centre[2]))
    return Label(tilt, patch, bool(np.any(hidden & _NEAR_PRINT)), normal, span)


# The print is a fixed share of its label: a block much smaller than that is a piece of it
# (one digit, a stroke by a glare) and the window stays wide enough for the whole print.
MIN_SPAN = 0.85  # of the label's half-width (blob.major); the print's own is about 1.05
BLOCK_FILL = 0.7  # the printed block's enclosing circle, as a share of the patch's half side
# a window is placed when the block's centre is this close to the patch's (in half sides) and
# its size this close to BLOCK_FILL's (relative)
SETTLED_OFFSET = 0.08
SETTLED_SIZE = 0.12
# the ball's edge this close to the print (the patch's inscribed disc) may have hidden some
_NEAR_PRINT = np.hypot(*(np.mgrid[:PATCH, :PATCH] - (PATCH - 1) / 2)) <= PATCH / 2


def tangents(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    e1 = np.array([1.0, 0.0, 0.0]) - normal[0] * normal
    e1 /= np.linalg.norm(e1)
    (n0, n1, n2), (a0, a1, a2) = normal.tolist(), e1.tolist()
    # normal × e1, as np.cross computes it, without its overhead on one pair of 3-vectors
    return e1, np.array([n1 * a2 - n2 * a1, n2 * a0 - n0 * a2, n0 * a1 - n1 * a0])


# the tangent plane's coordinates under each patch pixel, for a span of 1 (columns, rows)
_PLANE_U, _PLANE_V = np.meshgrid(
    *[(np.arange(PATCH, dtype=np.float64) - (PATCH - 1) / 2) / (PATCH / 2)] * 2
)


def _resample(crop: np.ndarray, normal: np.ndarray, span: float) -> tuple[np.ndarray, np.ndarray]:
    """The sphere round `normal` as a flat PATCH×PATCH colour image, ±span in the tangent
    plane, and where it is hidden (beyond the ball's edge: black there)."""
    e1, e2 = tangents(normal)
    u, v = _PLANE_U * span, _PLANE_V * span
    depth = np.sqrt(np.clip(1 - u * u - v * v, 0, 1))
    # the sphere's point under each patch pixel, one coordinate at a time (no PATCH×PATCH×3
    # temporaries)
    x, y, z = (depth * normal[k] + u * e1[k] + v * e2[k] for k in range(3))
    c = CROP_RADIUS - 0.5
    map_x = (c + CROP_RADIUS * x).astype(np.float32)
    map_y = (c + CROP_RADIUS * y).astype(np.float32)
    patch = cv2.remap(crop, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    hidden = (z < 0.05) | (u * u + v * v >= 1)
    patch[hidden] = 0
    return patch, hidden


def _printed_block(ink: np.ndarray) -> tuple[tuple[float, float], float, bool] | None:
    """Centre and radius (patch pixels) of the print's enclosing circle (the bar and the
    digits over it), and whether it touches the patch's edge (then some is likely outside)."""
    points = print_points(ink)
    if points is None or len(points) < 5:
        return None
    (x, y), radius = cv2.minEnclosingCircle(points)
    if radius < 5:
        return None
    edge = ink.shape[0] - 3
    xs, ys = points[:, 0], points[:, 1]
    touches = bool(xs.min() < 2 or ys.min() < 2 or xs.max() > edge or ys.max() > edge)
    return (x, y), radius, touches
