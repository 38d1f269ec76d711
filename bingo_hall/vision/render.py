"""The synthetic camera picture of a drawn ball sitting in the exit cup of the machine.

A ball is a shaded sphere whose number is printed three times round its equator, 120° apart,
each print a white round label with a coloured ring, the number in dark ink as two digits
(7 is printed 07, so a print that lost a digit never passes for another ball) and a bar
under it (which tells 6 from 9 and gives the label's orientation). A picture is described by a
`Scene` (sampled from a `StyleSet`): font, colours, label layout, the ball's pose on the
sphere and in the image plane, the lights and glare, the camera's homography, blur, noise,
white balance and JPEG quality. `draw_scene` turns a scene into a BGR frame; the only
randomness it uses is the sensor noise drawn from the generator it is given.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from statistics import NormalDist

import cv2
import numpy as np

from bingo_hall.vision.digits import printed_digits
from bingo_hall.vision.glyphs import digit_masks, stroke_share
from bingo_hall.vision.styles import (
    BGR,
    HELD_OUT,
    TRAINING,
    BallColour,
    Conditions,
    Font,
    StyleSet,
)

__all__ = [
    "HELD_OUT",
    "TRAINING",
    "Scene",
    "draw_scene",
    "glare_on_print",
    "render_ball",
    "sample_scene",
    "settle",
]

TEX_R = 96  # label radius in texture pixels
TEX_SIZE = 2 * TEX_R + 8
PRINTS = 3  # prints round the equator


@dataclass(frozen=True)
class Glare:
    direction: tuple[float, float, float]
    strength: float
    shininess: float


@dataclass(frozen=True)
class Scene:
    """Everything that fixes one picture (but the sensor noise)."""

    number: int | None
    font: Font
    colour: BallColour
    ink: BGR
    backdrop: BGR
    # label layout, in units of the label radius (digits in units of the digit height)
    label_deg: float
    ring_inner: float
    digit_height: float
    digit_gap: float
    bar_length: float
    bar_thickness: float
    bar_gap: float
    ink_spread: float
    slant: float
    # pose: spin round the pole, tilt of the pole towards the camera, roll in the image
    spin: float
    tilt: float
    roll: float
    centre: tuple[float, float]  # of the frame width and height
    radius: float  # of the frame height
    # light
    light: tuple[float, float, float]
    ambient: float
    diffuse: float
    specular: float
    shininess: float
    glare: tuple[Glare, ...]
    # camera
    gain: float
    cast: tuple[float, float, float]
    gamma: float
    blur: float
    motion: float
    motion_angle: float
    noise: float
    jpeg: int
    corners: tuple[float, ...]  # 8 corner shifts of the homography, of width/height
    occluder: float
    texture_seed: int


def _unit(v: np.ndarray) -> tuple[float, float, float]:
    v = v / np.linalg.norm(v)
    return (float(v[0]), float(v[1]), float(v[2]))


def _direction(
    rng: np.random.Generator, azimuth: tuple[float, float], elevation: tuple[float, float]
):
    az = math.radians(rng.uniform(*azimuth))
    el = math.radians(rng.uniform(*elevation))
    return _unit(np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]))


def _glare_spot(
    direction: tuple[float, float, float], rng: np.random.Generator, c: Conditions
) -> Glare:
    """A glare spot lit from `direction`, its strength and sharpness drawn from the ranges."""
    return Glare(direction, c.glare.sample(rng), float(rng.uniform(60, 200)))


def sample_scene(
    number: int | None, rng: np.random.Generator, style_set: StyleSet = TRAINING
) -> Scene:
    """A random picture of ball `number` (None: the exit is empty) in the styles of the set."""
    c = style_set.conditions
    fonts = style_set.usable_fonts()
    low, high = c.glare_spots
    glare = tuple(
        _glare_spot(_direction(rng, (0, 360), (45, 80)), rng, c)
        for _ in range(int(rng.integers(low, high + 1)))
    )
    cast = tuple(float(rng.uniform(1 - c.cast, 1 + c.cast)) for _ in range(3))
    return Scene(
        number=number,
        font=fonts[int(rng.integers(len(fonts)))],
        colour=style_set.colours[int(rng.integers(len(style_set.colours)))],
        ink=style_set.inks[int(rng.integers(len(style_set.inks)))],
        backdrop=style_set.backdrops[int(rng.integers(len(style_set.backdrops)))],
        label_deg=c.label_deg.sample(rng),
        ring_inner=float(rng.uniform(0.80, 0.88)),
        digit_height=c.digit_height.sample(rng),
        digit_gap=float(rng.uniform(0.13, 0.2)),
        bar_length=float(rng.uniform(1.25, 1.45)),
        bar_thickness=float(rng.uniform(0.12, 0.16)),
        bar_gap=float(rng.uniform(0.25, 0.33)),
        ink_spread=c.ink_spread.sample(rng),
        slant=c.slant.sample(rng),
        spin=float(rng.uniform(0, 2 * math.pi)),
        tilt=math.radians(rng.uniform(-c.tilt_deg, c.tilt_deg)),
        roll=float(rng.uniform(0, 2 * math.pi)),
        centre=(0.5 + c.offset.sample(rng), 0.46 + 0.5 * c.offset.sample(rng)),
        radius=c.radius.sample(rng),
        light=_direction(rng, (200, 340), (30, 65)),
        ambient=c.ambient.sample(rng),
        diffuse=c.diffuse.sample(rng),
        specular=c.specular.sample(rng),
        shininess=float(rng.uniform(20, 80)),
        glare=glare,
        gain=c.gain.sample(rng),
        cast=cast,  # type: ignore[arg-type]
        gamma=c.gamma.sample(rng),
        blur=c.blur.sample(rng),
        motion=c.motion.sample(rng),
        motion_angle=float(rng.uniform(0, math.pi)),
        noise=c.noise.sample(rng),
        jpeg=round(c.jpeg.sample(rng)),
        corners=tuple(float(v) for v in rng.uniform(-c.perspective, c.perspective, 8)),
        occluder=c.occluder.sample(rng),
        texture_seed=int(rng.integers(2**31)),
    )


def settle(scene: Scene, rng: np.random.Generator) -> Scene:
    """The same ball a moment later: it rocks a little in its cup and the light flickers."""
    wobble = math.radians(2.5)
    return replace(
        scene,
        spin=scene.spin + float(rng.uniform(-wobble, wobble)),
        tilt=scene.tilt + float(rng.uniform(-wobble, wobble)),
        roll=scene.roll + float(rng.uniform(-wobble, wobble)),
        centre=(
            scene.centre[0] + float(rng.uniform(-0.002, 0.002)),
            scene.centre[1] + float(rng.uniform(-0.002, 0.002)),
        ),
        gain=scene.gain * float(rng.uniform(0.96, 1.04)),
        motion=max(0.0, scene.motion * float(rng.uniform(0.5, 1.2))),
        motion_angle=float(rng.uniform(0, math.pi)),
    )


def glare_on_print(
    scene: Scene, rng: np.random.Generator, conditions: Conditions = TRAINING.conditions
) -> Scene:
    """The same scene with its glare spots (at least one) moved onto the print nearest the
    camera, each on a random point of the digits or the bar: the highlight is rendered on the
    sphere as the camera would see it (its size, its fall-off, the ink washed out under it),
    where a painted blob on the flattened label only resembles it."""
    if scene.number is None:
        return scene
    rot = rotation(scene)
    centres, rights, downs = print_frames()
    nearest = int(np.argmax((centres @ rot.T)[:, 2]))
    reach = math.sin(math.radians(scene.label_deg))
    spots = scene.glare or (_glare_spot((0.0, 0.0, 1.0), rng, conditions),)
    moved = []
    for spot in spots:
        across, down = rng.uniform(-0.7, 0.7), rng.uniform(-0.6, 0.5)
        point = centres[nearest] + reach * (across * rights[nearest] + down * downs[nearest])
        normal = rot @ (point / np.linalg.norm(point))
        # the light whose mirror image in the surface at `normal` reaches the camera (+z)
        light = 2 * normal[2] * normal - np.array([0.0, 0.0, 1.0])
        moved.append(replace(spot, direction=_unit(light)))
    return replace(scene, glare=tuple(moved))


def render_ball(
    number: int | None,
    rng: np.random.Generator,
    style_set: StyleSet = TRAINING,
    width: int = 640,
    height: int = 480,
) -> np.ndarray:
    """A BGR uint8 frame of ball `number` (None: empty exit) at the exit of the machine."""
    if number is not None and not 1 <= number <= 90:
        raise ValueError(f"no ball {number}: balls are numbered 1 to 90")
    return draw_scene(sample_scene(number, rng, style_set), rng, width, height)


def draw_scene(scene: Scene, rng: np.random.Generator, width: int = 640, height: int = 480):
    """The frame of `scene`; `rng` draws the sensor noise only."""
    cx, cy = scene.centre[0] * width, scene.centre[1] * height
    radius = scene.radius * height
    image = _backdrop(scene, width, height, cx, cy, radius)
    # The camera sees the exit's plane obliquely; the ball, a sphere, stays round.
    homography = _homography(scene, width, height)
    image = cv2.warpPerspective(image, homography, (width, height), borderMode=cv2.BORDER_REFLECT)
    cx, cy = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float32), homography)[0, 0]
    cx, cy = float(cx), float(cy)
    if scene.number is not None:
        _shadow(image, scene, cx, cy, radius)
        _draw_ball(image, scene, cx, cy, radius)
        if scene.occluder > 0:
            _smear(image, scene, cx, cy, radius)
    _cup_lip(image, cx, cy, radius)
    return _camera(image, scene, rng)


# --- the label --------------------------------------------------------------------------


def label_texture(scene: Scene) -> np.ndarray:
    """The printed label as a BGRA float32 image (alpha: the label disc)."""
    assert scene.number is not None
    size, centre = TEX_SIZE, TEX_SIZE / 2
    shift = 4
    c = round(centre * (1 << shift))
    bgra = np.zeros((size, size, 4), np.uint8)
    cv2.circle(bgra, (c, c), TEX_R << shift, (*scene.colour.ring, 255), -1, cv2.LINE_AA, shift)
    paper = (236, 241, 243, 255)
    inner = round(scene.ring_inner * TEX_R * (1 << shift))
    cv2.circle(bgra, (c, c), inner, paper, -1, cv2.LINE_AA, shift)
    ink = _ink_mask(scene).astype(np.float32)[..., None] / 255.0
    out = bgra.astype(np.float32)
    out[..., :3] = out[..., :3] * (1 - ink) + np.array(scene.ink, np.float32) * ink
    return out


@functools.lru_cache(maxsize=4)  # asked for every label of a frame: one scene, one answer
def print_block(scene: Scene) -> tuple[float, float, float]:
    """The printed block's (digits and bar) enclosing circle on the label: its centre right
    and down of the label's centre and its radius, in label radii."""
    points = cv2.findNonZero(cv2.compare(_ink_mask(scene), 127, cv2.CMP_GT))
    (x, y), radius = cv2.minEnclosingCircle(points)
    middle = TEX_SIZE / 2  # texture pixel x shows the label's u = (x - middle) / TEX_R
    return (x - middle) / TEX_R, (y - middle) / TEX_R, radius / TEX_R


def _ink_mask(scene: Scene) -> np.ndarray:
    assert scene.number is not None
    glyphs = digit_masks(scene.font)
    height = scene.digit_height * TEX_R
    spread = int(abs(scene.ink_spread) * stroke_share(scene.font) * height)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * spread + 1, 2 * spread + 1))
    scaled = []
    for digit in printed_digits(scene.number):
        g = glyphs[int(digit)]
        w = max(1, round(g.shape[1] * height / g.shape[0]))
        g = cv2.resize(g, (w, round(height)), interpolation=cv2.INTER_AREA)
        if spread:  # ink spreading (or starving) on each digit: the gap between them stays
            g = cv2.copyMakeBorder(g, spread, spread, spread, spread, cv2.BORDER_CONSTANT, 0)
            g = (cv2.dilate if scene.ink_spread > 0 else cv2.erode)(g, kernel)
            cols = np.flatnonzero(g.max(axis=0) > 0)
            g = g[:, cols[0] : cols[-1] + 1] if len(cols) else g
        scaled.append(g)
    gap = round(scene.digit_gap * height)
    pad = round(0.3 * height) + spread
    total = sum(g.shape[1] for g in scaled) + gap * (len(scaled) - 1)
    number = np.zeros((scaled[0].shape[0] + 2 * pad, total + 2 * pad), np.uint8)
    x = pad
    for g in scaled:
        number[pad : pad + g.shape[0], x : x + g.shape[1]] = g
        x += g.shape[1] + gap
    squeeze = min(1.0, 1.0 * TEX_R / total)  # never wider than the label allows
    block = height * (1 + scene.bar_gap + scene.bar_thickness)
    top = TEX_SIZE / 2 - 0.02 * TEX_R - block / 2
    # number canvas → texture: squeeze, shear about its middle row, and centre it
    ncx, ncy = number.shape[1] / 2, number.shape[0] / 2
    tx, ty = TEX_SIZE / 2, top + height / 2
    m = np.array(
        [[squeeze, -scene.slant, tx - squeeze * ncx + scene.slant * ncy], [0, 1, ty - ncy]],
        np.float32,
    )
    mask = cv2.warpAffine(number, m, (TEX_SIZE, TEX_SIZE), flags=cv2.INTER_LINEAR)
    bar_y = top + height * (1 + scene.bar_gap + scene.bar_thickness / 2)
    # the bar underlines the whole number, and is never shorter than bar_length digits high
    width = min(total, TEX_R) + 2 * abs(scene.slant) * height
    half_l = max(scene.bar_length * height, 1.08 * width) / 2
    half_t = scene.bar_thickness * height / 2
    shift = 4
    pts = np.array(
        [
            [TEX_SIZE / 2 - half_l, bar_y - half_t],
            [TEX_SIZE / 2 + half_l, bar_y - half_t],
            [TEX_SIZE / 2 + half_l, bar_y + half_t],
            [TEX_SIZE / 2 - half_l, bar_y + half_t],
        ]
    )
    cv2.fillConvexPoly(mask, np.round(pts * (1 << shift)).astype(np.int32), 255, cv2.LINE_AA, shift)
    return mask


# --- the ball ---------------------------------------------------------------------------


def rotation(scene: Scene) -> np.ndarray:
    """Camera ← ball rotation (camera: x right, y down, z towards the viewer)."""
    cs, ss = math.cos(scene.spin), math.sin(scene.spin)
    ct, st = math.cos(scene.tilt), math.sin(scene.tilt)
    cr, sr = math.cos(scene.roll), math.sin(scene.roll)
    spin = np.array([[cs, 0, ss], [0, 1, 0], [-ss, 0, cs]])
    tilt = np.array([[1, 0, 0], [0, ct, -st], [0, st, ct]])
    roll = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return roll @ tilt @ spin


def print_frames() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres, text-right and text-down directions of the prints, in ball coordinates."""
    theta = 2 * np.pi * np.arange(PRINTS) / PRINTS
    centres = np.stack([np.sin(theta), np.zeros(PRINTS), np.cos(theta)], axis=1)
    rights = np.stack([np.cos(theta), np.zeros(PRINTS), -np.sin(theta)], axis=1)
    downs = np.tile([0.0, 1.0, 0.0], (PRINTS, 1))
    return centres, rights, downs


def _draw_ball(image: np.ndarray, scene: Scene, cx: float, cy: float, radius: float) -> None:
    h, w = image.shape[:2]
    n = math.ceil(radius) + 2
    x0, y0 = max(0, math.floor(cx) - n), max(0, math.floor(cy) - n)
    x1, y1 = min(w, math.floor(cx) + n + 1), min(h, math.floor(cy) + n + 1)
    if x1 <= x0 or y1 <= y0:
        return
    xs = (np.arange(x0, x1, dtype=np.float32) - cx) / radius
    ys = (np.arange(y0, y1, dtype=np.float32) - cy) / radius
    xn, yn = np.meshgrid(xs, ys)
    rr = np.sqrt(xn * xn + yn * yn)
    alpha = np.clip((1 - rr) * radius + 0.5, 0, 1)
    zn = np.sqrt(np.clip(1 - rr * rr, 0, 1))
    normals = np.stack([xn, yn, zn], axis=-1)
    rot = rotation(scene).astype(np.float32)
    q = normals @ rot  # ball coordinates of each visible surface point
    centres, rights, downs = print_frames()
    dots = q @ centres.T.astype(np.float32)
    best = np.argmax(dots, axis=-1)
    sin_r = math.sin(math.radians(scene.label_deg))
    u = np.take_along_axis(q @ rights.T.astype(np.float32), best[..., None], -1)[..., 0] / sin_r
    v = (q @ downs.T.astype(np.float32))[..., 0] / sin_r
    facing = np.take_along_axis(dots, best[..., None], -1)[..., 0] > 0
    map_x = np.where(facing, TEX_SIZE / 2 + u * TEX_R, -100).astype(np.float32)
    map_y = np.where(facing, TEX_SIZE / 2 + v * TEX_R, -100).astype(np.float32)
    tex = cv2.remap(label_texture(scene), map_x, map_y, cv2.INTER_LINEAR, cv2.BORDER_CONSTANT, 0)
    cover = tex[..., 3:4] / 255.0
    albedo = tex[..., :3] * cover + np.array(scene.colour.body, np.float32) * (1 - cover)
    light = np.array(scene.light, np.float32)
    lambert = np.clip(normals @ light, 0, 1)
    shade = scene.ambient + scene.diffuse * lambert
    spec = scene.specular * _highlight(normals, light, scene.shininess)
    for g in scene.glare:
        spec += g.strength * _highlight(normals, np.array(g.direction, np.float32), g.shininess)
    colour = albedo * shade[..., None] + 255.0 * spec[..., None]
    a = alpha[..., None]
    patch = image[y0:y1, x0:x1]
    patch[:] = patch * (1 - a) + colour * a


def _highlight(normals: np.ndarray, light: np.ndarray, shininess: float) -> np.ndarray:
    half = light + np.array([0, 0, 1], np.float32)
    half /= np.linalg.norm(half)
    cos = normals @ half
    out = np.zeros_like(cos)
    lit = cos > math.exp(math.log(1e-3) / shininess)  # below it the highlight is < 0.001
    out[lit] = cos[lit] ** shininess
    return out


# --- the exit scene ---------------------------------------------------------------------


@lru_cache(maxsize=8)
def _vignette(w: int, h: int) -> np.ndarray:
    yy, xx = np.ogrid[:h, :w]
    return (1 - 0.7 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2)).astype(np.float32)


def _tinted(grey: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """`grey[..., None] * colour`, channel by channel: the same numbers, ten times faster than
    numpy's broadcast into three interleaved channels."""
    return cv2.merge([grey * channel for channel in colour])


def _backdrop(scene: Scene, w: int, h: int, cx: float, cy: float, r: float) -> np.ndarray:
    rng = np.random.default_rng(scene.texture_seed)
    base = np.array(scene.backdrop, np.float32) * rng.uniform(0.8, 1.2)
    rows = np.linspace(rng.uniform(0.8, 1.2), rng.uniform(0.8, 1.2), h, dtype=np.float32)
    shading = rows[:, None] * _vignette(w, h)
    image = _tinted(shading, base)
    # brushed-metal tray under the exit
    tray_top = int(min(h - 4, cy + r * rng.uniform(1.05, 1.3)))
    tray = np.array([70, 72, 75], np.float32) * rng.uniform(0.7, 1.2)
    streaks = cv2.GaussianBlur(rng.normal(1.0, 0.06, (1, w)).astype(np.float32), (0, 0), 2)
    image[tray_top:] = _tinted(shading[tray_top:] * streaks, tray)
    cv2.line(image, (0, tray_top), (w, tray_top), (130, 132, 135), 2, cv2.LINE_AA)
    # rails leading to the cup, a plate with screws, and the machine's name
    for side in (-1, 1):
        start = (int(cx + side * r * 3.2), h)
        end = (int(cx + side * r * 1.05), int(cy + 0.8 * r))
        cv2.line(image, start, end, (150, 150, 150), max(2, int(r * 0.06)), cv2.LINE_AA)
    px, py = int(rng.uniform(0.03, 0.1) * w), int(rng.uniform(0.04, 0.12) * h)
    for sx, sy in ((px, py), (w - px, py)):
        cv2.circle(image, (sx, sy), max(2, int(0.012 * h)), (110, 110, 115), -1, cv2.LINE_AA)
    _label_text(image, "SALIDA", rng.uniform(0.05, 0.6) * w, rng.uniform(0.9, 0.97) * h)
    # the cup's mouth behind the ball
    axes = (int(1.1 * r), int(0.32 * r))
    mouth = (int(cx), int(cy + 0.8 * r))
    cv2.ellipse(image, mouth, axes, 0, 0, 360, (12, 12, 12), -1, cv2.LINE_AA)
    cv2.ellipse(image, mouth, axes, 0, 180, 360, (120, 122, 125), 3, cv2.LINE_AA)
    return image


def _label_text(image: np.ndarray, text: str, x: float, y: float) -> None:
    h, w = image.shape[:2]
    scale, thickness = 0.0015 * h, max(1, h // 240)
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    x0, y0 = int(max(0, min(x, w - tw - 1))), int(max(th + 1, min(y, h - base - 1)))
    mask = np.zeros((th + base + 2, tw + 2), np.uint8)
    cv2.putText(
        mask, text, (1, th + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thickness, cv2.LINE_AA
    )
    roi = image[y0 - th - 1 : y0 - th - 1 + mask.shape[0], x0 : x0 + mask.shape[1]]
    ink = mask[: roi.shape[0], : roi.shape[1], None].astype(np.float32) / 255.0
    roi[:] = roi * (1 - ink) + 160.0 * ink


def _roi(image: np.ndarray, cx: float, cy: float, half_w: float, half_h: float):
    h, w = image.shape[:2]
    x0, x1 = max(0, int(cx - half_w)), min(w, int(cx + half_w) + 1)
    y0, y1 = max(0, int(cy - half_h)), min(h, int(cy + half_h) + 1)
    return x0, y0, image[y0:y1, x0:x1]


def _shadow(image: np.ndarray, scene: Scene, cx: float, cy: float, r: float) -> None:
    dx, dy = -scene.light[0] * 0.25 * r, -scene.light[1] * 0.25 * r
    sx, sy = cx + dx, cy + 0.85 * r + dy
    x0, y0, roi = _roi(image, sx, sy, 1.6 * r, 1.0 * r)
    if roi.size == 0:
        return
    mask = np.zeros(roi.shape[:2], np.float32)
    axes = (int(r), int(0.35 * r))
    cv2.ellipse(mask, (int(sx - x0), int(sy - y0)), axes, 0, 0, 360, 1, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.15 * r)
    roi *= (1 - 0.6 * mask)[..., None]


def _cup_lip(image: np.ndarray, cx: float, cy: float, r: float) -> None:
    axes = (int(1.1 * r), int(0.32 * r))
    centre = (int(cx), int(cy + 0.8 * r))
    thickness = max(3, int(0.05 * r))
    cv2.ellipse(image, centre, axes, 0, 20, 160, (140, 142, 146), thickness, cv2.LINE_AA)


def _smear(image: np.ndarray, scene: Scene, cx: float, cy: float, r: float) -> None:
    """A greasy smear on the camera dome over most of the ball ("obscured")."""
    rng = np.random.default_rng(scene.texture_seed + 1)
    x0, y0, roi = _roi(image, cx, cy, 1.6 * r, 1.6 * r)
    mask = np.zeros(roi.shape[:2], np.float32)
    for _ in range(3):
        centre = (
            int(cx - x0 + rng.uniform(-0.4, 0.4) * r),
            int(cy - y0 + rng.uniform(-0.4, 0.4) * r),
        )
        axes = (int(rng.uniform(0.6, 0.9) * r), int(rng.uniform(0.4, 0.7) * r))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.2 * r) * scene.occluder
    grime = np.array([95, 110, 120], np.float32)
    roi[:] = roi * (1 - mask[..., None]) + grime * mask[..., None]


# --- the camera -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _gaussian_quantiles() -> np.ndarray:
    """256 equally likely values of a standard normal: sensor noise from random bytes."""
    normal = NormalDist()
    return np.array([normal.inv_cdf((i + 0.5) / 256) for i in range(256)], np.float32)


def _homography(scene: Scene, w: int, h: int) -> np.ndarray:
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    shift = np.array(scene.corners, np.float32).reshape(4, 2) * np.array([w, h], np.float32)
    return cv2.getPerspectiveTransform(src, src + shift)


def _camera(image: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    scale = image.shape[0] / 480
    frame = np.clip(image, 0, 255).astype(np.uint8)
    levels = np.arange(256, dtype=np.float32)[:, None] / 255.0
    gains = np.array(scene.cast, np.float32) * scene.gain
    lut = 255.0 * np.clip(levels * gains, 0, 1) ** scene.gamma
    frame = cv2.LUT(frame, np.round(lut).astype(np.uint8).reshape(1, 256, 3))
    if scene.blur * scale > 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), scene.blur * scale)
    length = scene.motion * scale
    if length >= 1.5:
        k = math.ceil(length) | 1
        kernel = np.zeros((k, k), np.float32)
        c = k // 2
        dx = math.cos(scene.motion_angle) * length / 2
        dy = math.sin(scene.motion_angle) * length / 2
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
        frame = cv2.filter2D(frame, -1, kernel / kernel.sum())
    if scene.noise > 0:
        table = np.clip(np.round(128 + _gaussian_quantiles() * scene.noise), 0, 255)
        raw = np.frombuffer(rng.bytes(frame.size), np.uint8).reshape(frame.shape)
        noise = cv2.LUT(raw, table.astype(np.uint8))
        frame = cv2.addWeighted(frame, 1.0, noise, 1.0, -128.0)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
