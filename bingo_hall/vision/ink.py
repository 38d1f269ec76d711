"""Paper and ink on a flattened label: which pixels are the label's white paper, and which
are the dark print on it."""

from __future__ import annotations

import cv2
import numpy as np

_SMALL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_WINDOW = np.ones((25, 25), np.uint8)  # wider than any stroke of a flattened label
_STROKE_WINDOW = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))  # wider than a stroke
MIN_SPAN_SHARE = 0.4  # of the label's typical paper-to-ink span
MIN_SPAN = 8.0  # grey levels
INK_DEPTH = 0.75  # how far below the paper's lightness (1) the full ink is put


def paper_mask(patch: np.ndarray) -> np.ndarray:
    """The label's paper in a colour patch: white (darkest channel near the brightest) and
    not dark, with the holes the print makes in it filled. The ring round the label and the
    ball's body are coloured, so they are not paper."""
    b, g, r = cv2.split(patch)
    high = cv2.max(cv2.max(b, g), r)
    low = cv2.min(cv2.min(b, g), r)
    whiteness = cv2.divide(low, cv2.add(high, 1), scale=255)
    white = cv2.compare(whiteness, 0.62 * 255, cv2.CMP_GT)
    lit = cv2.compare(high, 0.3 * float(np.percentile(high, 95)), cv2.CMP_GT)
    paper = cv2.morphologyEx(cv2.bitwise_and(white, lit), cv2.MORPH_CLOSE, _SMALL)
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(paper, contours, -1, 255, -1)
    # off the blurred band along the ring, where paper and ring mix
    return cv2.erode(paper, _SMALL)


def ink_lightness(patch: np.ndarray) -> np.ndarray:
    """Each pixel's lightness against the paper and the ink round it, 0..255: about 255 on
    paper, about 64 on the full darkness of the ink nearby.

    The paper's brightness is the patch closed by a window wider than any stroke (which
    removes the ink, darker and narrower); the ink's is the patch eroded by a window wider
    than a stroke. Measuring a pixel's darkness against that local span rather than as a
    ratio to the paper keeps a stroke under a glare (a highlight adds light to paper and ink
    alike) as dark as the rest of the print. Where there is no ink nearby the span is held
    to a share of the label's typical span, so paper grain is not blown up into strokes."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    level = cv2.GaussianBlur(cv2.morphologyEx(grey, cv2.MORPH_CLOSE, _WINDOW), (0, 0), 3)
    floor = cv2.GaussianBlur(cv2.erode(grey, _STROKE_WINDOW), (0, 0), 3)
    span = level - floor
    span = np.maximum(span, max(MIN_SPAN_SHARE * float(np.percentile(span, 95)), MIN_SPAN))
    lightness = 1 - INK_DEPTH * (level - grey) / span
    return np.clip(lightness * 255, 0, 255).astype(np.uint8)


def ink_mask(patch: np.ndarray) -> np.ndarray:
    """Ink printed on the label's paper: pixels on the paper darker than it, split from the
    paper by Otsu's method (within bounds) on their lightness (`ink_lightness`); without
    the strokes that run along the paper's edge (the ring's blurred rim: the print stands
    clear of the ring, so a stroke most of whose pixels lie within a few pixels of where
    paper and ink end is not print)."""
    paper = paper_mask(patch)
    lightness = ink_lightness(patch)
    values = lightness[paper > 0]
    if values.size < 16:
        return np.zeros_like(paper)
    level, _ = cv2.threshold(values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = min(max(level, 0.55 * 255), 0.85 * 255)
    # hysteresis: faint stroke pixels count when they join a clearly dark one
    strong = cv2.bitwise_and(cv2.compare(lightness, level, cv2.CMP_LT), paper)
    faint = min(level + 0.1 * 255, 0.9 * 255)
    weak = cv2.bitwise_and(cv2.compare(lightness, faint, cv2.CMP_LT), paper)
    count, labels = cv2.connectedComponents(weak, connectivity=8)
    seeded = np.zeros(count, bool)
    seeded[labels[strong > 0]] = True
    seeded[0] = False
    ink = np.where(seeded[labels], 255, 0).astype(np.uint8)
    region = cv2.bitwise_or(paper, ink)
    region[[0, -1], :] = 255  # the patch's own edge is not the paper's
    region[:, [0, -1]] = 255
    # (with no edge at all in the patch, every distance is "infinite": keep them finite)
    depth = np.minimum(cv2.distanceTransform(region, cv2.DIST_L2, 3), ink.shape[0])
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = stats[:, cv2.CC_STAT_AREA]
    dropped = (areas < 3) | (_median_by_label(depth, labels, areas) <= 2.5)
    dropped[0] = False  # the background
    ink[dropped[labels]] = 0
    return ink


def _median_by_label(values: np.ndarray, labels: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """`np.median(values[labels == i])` for every label i at once (float32, as numpy takes
    the median of float32 values: the mean of the two middle ones in float32)."""
    order = np.lexsort((values.ravel(), labels.ravel()))  # by label, then value
    ranked = values.ravel()[order].astype(np.float32)
    starts = np.concatenate(([0], np.cumsum(areas)[:-1]))
    low = ranked[starts + (areas - 1) // 2]
    high = ranked[starts + areas // 2]
    return (low + high) / np.float32(2)
