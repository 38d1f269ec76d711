"""Digit glyphs of a font as anti-aliased masks, rendered once per font and cached.

Bingo balls are printed heavy so that the camera and the hall can read them: a typeface
whose strokes are thinner than MIN_STROKE of the digits' height is printed thickened to it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np

from bingo_hall.vision.styles import Font

GLYPH_HEIGHT = 120  # pixel height the glyphs are rendered at
MIN_STROKE = 0.12  # the thinnest stroke printed, of the digits' height


@cache  # one entry per typeface, a fixed few
def digit_masks(font: Font) -> tuple[np.ndarray, ...]:
    """The ten digits of `font` as uint8 masks (255 = ink), cropped tight left and right and to
    the common top and bottom of all ten, so that digits placed side by side share a baseline."""
    canvases = [_draw_digit(font, str(digit)) for digit in range(10)]
    rows = np.flatnonzero(np.any(np.stack(canvases) > 0, axis=(0, 2)))
    top, bottom = int(rows[0]), int(rows[-1]) + 1
    grow = round((MIN_STROKE * (bottom - top) - _stroke_width(canvases)) / 2)
    if grow > 0:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        canvases = [cv2.dilate(c, kernel) for c in canvases]
        top, bottom = max(0, top - grow), bottom + grow
    masks = []
    for canvas in canvases:
        band = canvas[top:bottom]
        cols = np.flatnonzero(band.max(axis=0) > 0)
        glyph = np.ascontiguousarray(band[:, cols[0] : cols[-1] + 1])
        glyph.setflags(write=False)
        masks.append(glyph)
    return tuple(masks)


@cache  # one entry per typeface, a fixed few
def stroke_share(font: Font) -> float:
    """The printed digits' typical stroke width, of their height."""
    masks = digit_masks(font)
    return _stroke_width(list(masks)) / masks[0].shape[0]


def _stroke_width(canvases: list[np.ndarray]) -> float:
    """The typical stroke width of the glyphs: twice their area over their outline's length."""
    area = perimeter = 0.0
    for canvas in canvases:
        ink = (canvas > 127).astype(np.uint8)
        contours, _ = cv2.findContours(ink, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        area += float(ink.sum())
        perimeter += sum(cv2.arcLength(c, True) for c in contours)
    return 2 * area / max(perimeter, 1.0)


def _draw_digit(font: Font, text: str) -> np.ndarray:
    size = GLYPH_HEIGHT
    canvas = np.zeros((2 * size, 2 * size), np.uint8)
    if font.path is not None:
        from PIL import Image, ImageDraw

        image = Image.fromarray(canvas)
        ImageDraw.Draw(image).text(
            (size // 4, int(1.5 * size)),
            text,
            font=_pil_font(str(font.path)),
            fill=255,
            anchor="ls",
        )
        return np.asarray(image).copy()
    assert font.hershey is not None
    scale = cv2.getFontScaleFromHeight(font.hershey, size, 1)
    thickness = max(1, round(font.stroke * size))
    cv2.putText(
        canvas,
        text,
        (size // 4, int(1.5 * size)),
        font.hershey,
        scale,
        255,
        thickness,
        cv2.LINE_AA,
    )
    return canvas


@cache  # one entry per typeface, a fixed few
def _pil_font(path: str) -> Any:  # a PIL FreeType font
    from PIL import ImageFont

    return ImageFont.truetype(path, GLYPH_HEIGHT)
