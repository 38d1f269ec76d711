"""What the synthetic renderer may draw: fonts, ball colours, inks and condition ranges.

TRAINING is the only style set the networks are fitted on. CALIBRATION and CHECK draw the
training's balls in typefaces of other families: the thresholds are chosen on the first and
checked on the second. HELD_OUT (other fonts, other ball colours and inks, wider condition
ranges) is for the tests and the benchmark, so that the measured accuracy is that of balls the
reader has never seen. No two sets share a typeface.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

BGR = tuple[int, int, int]

REPORTLAB_FONTS = Path(__import__("reportlab").__file__).resolve().parent / "fonts"
DEJAVU_FONTS = Path("/usr/share/fonts/truetype/dejavu")
SYSTEM_FONTS = Path("/usr/share")
# Debian packages holding the training set's extra typefaces and the calibration's (needed to
# train, not to run).
TRAINING_FONT_PACKAGES = (
    "fonts-noto-core",
    "fonts-roboto-unhinted",
    "fonts-lato",
    "fonts-cantarell",
    "fonts-crosextra-carlito",
    "fonts-crosextra-caladea",
    "fonts-texgyre",
    "fonts-lmodern",
    "fonts-linuxlibertine",
    "fonts-go",
    "fonts-firacode",
    "fonts-inconsolata",
    # the calibration's (CALIBRATION_FONTS)
    "fonts-sil-andika",
    "fonts-b612",
    "fonts-cabin",
    "fonts-comfortaa",
    "fonts-dosis",
    "fonts-inter",
    "fonts-jetbrains-mono",
    "fonts-league-spartan",
    "fonts-manrope",
    "fonts-mononoki",
    "fonts-quicksand",
    "fonts-sil-charis",
    "fonts-sil-gentiumplus",
    # the check's (CHECK_FONTS)
    "fonts-3270",
    "fonts-anonymous-pro",
    "fonts-averia-gwf",
    "fonts-fantasque-sans",
    "fonts-hermit",
    "fonts-sora",
    "fonts-tuffy",
)

HERSHEY_SIMPLEX = 0
HERSHEY_PLAIN = 1
HERSHEY_DUPLEX = 2
HERSHEY_COMPLEX = 3
HERSHEY_TRIPLEX = 4
HERSHEY_COMPLEX_SMALL = 5
HERSHEY_ITALIC = 16


@dataclass(frozen=True)
class Span:
    """A closed range of a condition, sampled uniformly."""

    lo: float
    hi: float

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.lo, self.hi))


@dataclass(frozen=True)
class Font:
    """A typeface for the digits: an outline font file, or one of OpenCV's Hershey fonts."""

    name: str
    path: Path | None = None
    hershey: int | None = None
    stroke: float = 0.0  # Hershey stroke thickness, as a fraction of the glyph height

    def available(self) -> bool:
        return self.path is None or self.path.exists()


@dataclass(frozen=True)
class BallColour:
    name: str
    body: BGR
    ring: BGR  # the ring printed round each white label


@dataclass(frozen=True)
class Conditions:
    """Ranges of everything that varies from one picture to the next."""

    radius: Span = Span(0.20, 0.29)  # ball radius / frame height
    tilt_deg: float = 20.0  # the print band's tilt out of the image plane, ±
    label_deg: Span = Span(40.0, 50.0)  # angular radius of a label (ring included)
    digit_height: Span = Span(0.56, 0.64)  # of the label radius
    ink_spread: Span = Span(-0.25, 0.25)  # thinning/thickening on each side, of the stroke width
    slant: Span = Span(-0.08, 0.08)  # extra shear of the glyphs
    ambient: Span = Span(0.35, 0.55)
    diffuse: Span = Span(0.45, 0.75)
    specular: Span = Span(0.2, 0.7)
    glare_spots: tuple[int, int] = (0, 2)
    glare: Span = Span(0.3, 0.8)  # strength of each extra glare spot
    gain: Span = Span(0.8, 1.2)
    cast: float = 0.10  # largest per-channel white-balance error
    gamma: Span = Span(0.85, 1.15)
    blur: Span = Span(0.0, 1.4)  # Gaussian sigma in pixels (at 480 lines)
    motion: Span = Span(0.0, 4.0)  # motion-blur length in pixels (at 480 lines)
    noise: Span = Span(0.0, 6.0)  # grey levels
    jpeg: Span = Span(60.0, 95.0)  # JPEG quality of the camera stream
    perspective: float = 0.03  # largest corner shift of the camera's homography, of the size
    offset: Span = Span(-0.07, 0.07)  # ball centre offset from the exit, of the frame width
    occluder: Span = Span(0.0, 0.0)  # alpha of a smear over the ball ("obscured")


@dataclass(frozen=True)
class StyleSet:
    name: str
    fonts: tuple[Font, ...]
    colours: tuple[BallColour, ...]
    inks: tuple[BGR, ...]
    backdrops: tuple[BGR, ...]
    conditions: Conditions = field(default_factory=Conditions)

    def usable_fonts(self) -> tuple[Font, ...]:
        return tuple(font for font in self.fonts if font.available())

    def font_named(self, name: str) -> Font:
        """The usable typeface `name`; a ValueError naming the ones there are."""
        fonts = self.usable_fonts()
        for font in fonts:
            if font.name == name:
                return font
        raise ValueError(f"no typeface {name!r}: one of {', '.join(f.name for f in fonts)}")


def _rl(name: str, file: str) -> Font:
    return Font(name, path=REPORTLAB_FONTS / file)


def _dejavu(name: str, file: str) -> Font:
    return Font(name, path=DEJAVU_FONTS / file)


def _system(file: str) -> Font:
    path = SYSTEM_FONTS / file
    return Font(path.stem.lower(), path=path)


_TRUETYPE, _OPENTYPE = "fonts/truetype", "fonts/opentype"
_TEX = "texmf/fonts/opentype/public"
# Typefaces of other designs than every held-out one (no clone of Arial, Times or Courier in
# the weights held out, nothing derived from Vera or DejaVu).
SYSTEM_TRAINING_FONTS = tuple(
    _system(file)
    for file in (
        "fonts/fonts-go/Go-Regular.ttf",
        "fonts/fonts-go/Go-Bold.ttf",
        "fonts/fonts-go/Go-Mono.ttf",
        f"{_OPENTYPE}/cantarell/Cantarell-Regular.otf",
        f"{_OPENTYPE}/cantarell/Cantarell-ExtraBold.otf",
        f"{_OPENTYPE}/linux-libertine/LinBiolinum_RB.otf",
        f"{_OPENTYPE}/linux-libertine/LinLibertine_R.otf",
        f"{_TRUETYPE}/crosextra/Caladea-Bold.ttf",
        f"{_TRUETYPE}/crosextra/Carlito-Regular.ttf",
        f"{_TRUETYPE}/crosextra/Carlito-Bold.ttf",
        f"{_TRUETYPE}/firacode/FiraCode-Regular.ttf",
        f"{_TRUETYPE}/inconsolata/Inconsolata.otf",
        f"{_TRUETYPE}/lato/Lato-Regular.ttf",
        f"{_TRUETYPE}/lato/Lato-Black.ttf",
        f"{_TRUETYPE}/noto/NotoSans-Regular.ttf",
        f"{_TRUETYPE}/noto/NotoSans-Bold.ttf",
        f"{_TRUETYPE}/noto/NotoSerif-Regular.ttf",
        f"{_TRUETYPE}/noto/NotoSerif-Bold.ttf",
        f"{_TRUETYPE}/roboto/unhinted/RobotoCondensed-Regular.ttf",
        f"{_TRUETYPE}/roboto/unhinted/RobotoTTF/Roboto-Regular.ttf",
        f"{_TRUETYPE}/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
        f"{_TEX}/lm/lmroman10-regular.otf",
        f"{_TEX}/lm/lmsans10-bold.otf",
        f"{_TEX}/tex-gyre/texgyreadventor-regular.otf",
        f"{_TEX}/tex-gyre/texgyreadventor-bold.otf",
        f"{_TEX}/tex-gyre/texgyrebonum-regular.otf",
        f"{_TEX}/tex-gyre/texgyrebonum-bold.otf",
        f"{_TEX}/tex-gyre/texgyrepagella-regular.otf",
        f"{_TEX}/tex-gyre/texgyrepagella-bold.otf",
        f"{_TEX}/tex-gyre/texgyreschola-regular.otf",
        f"{_TEX}/tex-gyre/texgyreschola-bold.otf",
    )
)


# The calibration's typefaces: families neither trained on nor held out, none a clone of a
# held-out face, with lining figures. The networks never see them while fitting, so the
# calibration measures how they err on a typeface they have not seen, as in a hall.
CALIBRATION_FONTS = (
    *(
        _system(file)
        for file in (
            f"{_OPENTYPE}/cabin/Cabin-Regular.otf",
            f"{_OPENTYPE}/inter/Inter-Bold.otf",
            f"{_TRUETYPE}/charis/CharisSIL-Regular.ttf",
            f"{_TRUETYPE}/charis/CharisSIL-BoldItalic.ttf",
            f"{_TRUETYPE}/andika/Andika-Regular.ttf",
            f"{_TRUETYPE}/jetbrains-mono/JetBrainsMono-Bold.ttf",
            f"{_TRUETYPE}/quicksand/Quicksand-Bold.ttf",
            f"{_TRUETYPE}/comfortaa/Comfortaa-Bold.ttf",
            f"{_OPENTYPE}/league-spartan/LeagueSpartan-Bold.otf",
            f"{_OPENTYPE}/b612/B612-Regular.otf",
            f"{_TRUETYPE}/manrope/Manrope-ExtraBold.ttf",
            f"{_TRUETYPE}/gentiumplus/GentiumPlus-Italic.ttf",
            f"{_OPENTYPE}/dosis/Dosis-Medium.otf",
            f"{_TRUETYPE}/mononoki/mononoki-Bold.ttf",
        )
    ),
    Font("hershey-complex-italic", hershey=HERSHEY_COMPLEX | HERSHEY_ITALIC, stroke=0.08),
)


TRAINING = StyleSet(
    name="training",
    fonts=(
        _rl("vera", "Vera.ttf"),
        _rl("vera-bold", "VeraBd.ttf"),
        _rl("vera-oblique", "VeraIt.ttf"),
        _rl("arial", "_a______.pfb"),
        _rl("times", "_er_____.pfb"),
        _rl("times-italic", "_ei_____.pfb"),
        _rl("courier-bold", "cob_____.pfb"),
        Font("hershey-simplex", hershey=HERSHEY_SIMPLEX, stroke=0.09),
        Font("hershey-duplex", hershey=HERSHEY_DUPLEX, stroke=0.12),
        Font("hershey-complex", hershey=HERSHEY_COMPLEX, stroke=0.08),
        Font("hershey-triplex", hershey=HERSHEY_TRIPLEX, stroke=0.11),
        Font("hershey-simplex-italic", hershey=HERSHEY_SIMPLEX | HERSHEY_ITALIC, stroke=0.13),
        # Debian's typefaces (TRAINING_FONT_PACKAGES): needed to train, used when present.
        *SYSTEM_TRAINING_FONTS,
    ),
    colours=(
        BallColour("red", (40, 40, 205), (25, 25, 130)),
        BallColour("blue", (190, 95, 30), (120, 55, 15)),
        BallColour("green", (60, 165, 40), (35, 100, 20)),
        BallColour("yellow", (35, 205, 235), (20, 110, 150)),
        BallColour("purple", (150, 50, 125), (90, 25, 70)),
    ),
    inks=((20, 20, 20), (70, 25, 10)),
    backdrops=((28, 28, 30), (40, 32, 26), (22, 26, 34)),
)

# Typefaces of yet other families, for checking thresholds chosen on either calibration
# (`bench/vision_tail.py --typefaces check-families`): never fitted on, never calibrated on.
CHECK_FONTS = (
    *(
        _system(file)
        for file in (
            f"{_OPENTYPE}/sora/Sora-Regular.otf",
            f"{_TRUETYPE}/tuffy/Tuffy_Bold.ttf",
            f"{_OPENTYPE}/fantasque-sans/Normal/OTF/FantasqueSansMono-Regular.otf",
            f"{_TRUETYPE}/hermit/Hermit-medium.otf",
            f"{_TRUETYPE}/anonymous-pro/Anonymous Pro B.ttf",
            f"{_TRUETYPE}/3270/3270-Regular.ttf",
            f"{_TRUETYPE}/averia-gwf/AveriaGWF-Bold.ttf",
        )
    ),
    Font("hershey-triplex-italic", hershey=HERSHEY_TRIPLEX | HERSHEY_ITALIC, stroke=0.11),
)

# The training's balls, inks and conditions in the calibration's typefaces, and in the check's.
CALIBRATION = replace(TRAINING, name="calibration", fonts=CALIBRATION_FONTS)
CHECK = replace(TRAINING, name="check", fonts=CHECK_FONTS)

HELD_OUT = StyleSet(
    name="held_out",
    fonts=(
        _rl("arial-bold", "_ab_____.pfb"),
        _rl("arial-bold-italic", "_abi____.pfb"),
        _rl("times-bold", "_eb_____.pfb"),
        _rl("courier", "com_____.pfb"),
        _rl("vera-bold-oblique", "VeraBI.ttf"),
        Font("hershey-plain", hershey=HERSHEY_PLAIN, stroke=0.10),
        Font("hershey-complex-small", hershey=HERSHEY_COMPLEX_SMALL, stroke=0.10),
        Font("hershey-duplex-heavy", hershey=HERSHEY_DUPLEX, stroke=0.16),
        # Debian's DejaVu: used when present, never required. Not DejaVu Sans: its digits
        # are Vera's, which the training draws.
        _dejavu("dejavu-serif", "DejaVuSerif.ttf"),
        _dejavu("dejavu-sans-condensed", "DejaVuSansCondensed.ttf"),
        _dejavu("dejavu-serif-bold", "DejaVuSerif-Bold.ttf"),
    ),
    colours=(
        BallColour("orange", (30, 125, 240), (15, 70, 150)),
        BallColour("teal", (165, 155, 20), (95, 90, 10)),
        BallColour("magenta", (165, 60, 215), (95, 30, 130)),
        BallColour("lime", (40, 210, 150), (20, 120, 80)),
        BallColour("navy", (135, 50, 25), (70, 20, 10)),
    ),
    inks=((10, 10, 10), (20, 35, 70), (45, 45, 25)),
    backdrops=((24, 24, 24), (34, 30, 36), (20, 32, 28)),
    conditions=Conditions(
        radius=Span(0.19, 0.31),
        tilt_deg=25.0,
        label_deg=Span(38.0, 52.0),
        digit_height=Span(0.54, 0.66),
        ink_spread=Span(-0.32, 0.32),
        slant=Span(-0.10, 0.10),
        ambient=Span(0.32, 0.58),
        diffuse=Span(0.40, 0.80),
        specular=Span(0.15, 0.8),
        glare_spots=(0, 3),
        glare=Span(0.3, 0.9),
        gain=Span(0.75, 1.25),
        cast=0.13,
        gamma=Span(0.8, 1.2),
        blur=Span(0.0, 1.6),
        motion=Span(0.0, 5.0),
        noise=Span(0.0, 7.0),
        jpeg=Span(50.0, 95.0),
        perspective=0.04,
        offset=Span(-0.08, 0.08),
    ),
)


def obscured(style_set: StyleSet) -> StyleSet:
    """The same balls seen through a smeared, out-of-focus dome: no one can read them.

    The blur is about twice a digit's stroke: at half that (σ 4-5 px) and a lighter smear,
    the packaged reader still read one such ball in six (rightly), and the hold path it is
    for was not shown."""
    return replace(
        style_set,
        name=f"{style_set.name}+obscured",
        conditions=replace(
            style_set.conditions, blur=Span(8.0, 10.0), occluder=Span(0.7, 0.85), noise=Span(4, 8)
        ),
    )


def as_specified(style_set: StyleSet) -> StyleSet:
    """The same balls at an exit built to a lighting and camera specification: a diffuse
    light box (no point light reflected in the ball, the key light's highlight weak), the
    camera focused on the cup and shooting the ball at rest, a clean stream.

    Everything the hall does not control stays as drawn: typefaces, ball colours, inks, the
    print's ink spread, the ball's pose and place, white balance, gain, the camera's view.
    A measurement of what such an exit would read, not the benchmark's conditions."""
    return replace(
        style_set,
        name=f"{style_set.name}+specified",
        conditions=replace(
            style_set.conditions,
            specular=Span(0.05, 0.25),
            glare_spots=(0, 0),
            blur=Span(0.0, 1.0),
            motion=Span(0.0, 1.5),
            noise=Span(0.0, 5.0),
            jpeg=Span(75.0, 95.0),
        ),
    )


EXITS = ("as-drawn", "specified")  # the exits a measurement may draw the balls at


def at_exit(style_set: StyleSet, exit_name: str) -> StyleSet:
    """The style set as drawn, or at an exit built to the specification (`as_specified`)."""
    if exit_name not in EXITS:
        raise ValueError(f"unknown exit {exit_name!r}: one of {', '.join(EXITS)}")
    return as_specified(style_set) if exit_name == "specified" else style_set
