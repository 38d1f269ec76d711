"""The training script: the calibration's own typefaces, and a small real run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bingo_hall.vision import label_data, train
from bingo_hall.vision.calibrate import OBSCURED_SHIFTS
from bingo_hall.vision.label_data import LabelSet, frame_labels, render_labels
from bingo_hall.vision.model import MODEL_PATH, load_model
from bingo_hall.vision.render import draw_scene, sample_scene
from bingo_hall.vision.styles import CALIBRATION, CHECK, HELD_OUT, TRAINING, Font
from bingo_hall.vision.train import main


def test_the_calibration_and_check_typefaces_are_neither_trained_on_nor_held_out() -> None:
    """The calibration must show how the networks err on typefaces they never saw, the check
    must be typefaces the thresholds were not chosen on, and neither may tune the reader on
    the benchmark's."""
    calibration, check = set(CALIBRATION.fonts), set(CHECK.fonts)
    assert len(calibration) >= 12 and len(check) >= 6
    for fonts in (calibration, check):
        assert not fonts & set(TRAINING.fonts) and not fonts & set(HELD_OUT.fonts)
    assert not calibration & check
    for styles in (CALIBRATION, CHECK):
        assert all(font.available() for font in styles.fonts)
        assert styles.colours == TRAINING.colours
        assert styles.conditions == TRAINING.conditions


@pytest.mark.parametrize("typefaces", [train.KEPT_OUT, train.OTHER_FAMILIES])
def test_the_calibration_typefaces_are_never_seen_by_the_networks(typefaces: str) -> None:
    fonts = np.arange(len(TRAINING.fonts)).repeat(3)
    n = len(fonts)
    labels = LabelSet(
        np.zeros((n, 64, 64), np.uint8),
        *(np.zeros(n),) * 2,
        fonts,
        *(np.zeros(n),) * 3,
        np.zeros((n, 3)),
        np.zeros(n, bool),
        np.zeros(n, np.float32),
    )
    seen = {TRAINING.fonts[i] for i in train.fitted_labels(labels, typefaces).font}
    calibration = set(train.calibration_styles(typefaces).fonts)
    assert calibration and seen and not seen & calibration
    if typefaces == train.KEPT_OUT:  # two thirds fitted, a third kept out
        assert seen | calibration == set(TRAINING.fonts)
    else:  # every training typeface fitted
        assert seen == set(TRAINING.fonts)


@pytest.mark.parametrize("typefaces", [train.KEPT_OUT, train.OTHER_FAMILIES, train.CHECK_FAMILIES])
def test_the_calibration_bursts_are_drawn_in_its_typefaces(typefaces: str) -> None:
    bursts = train.render_calibration(balls=6, burst=2, seed=5, workers=1, typefaces=typefaces)
    assert len(bursts) == 6 and all(len(frames) == 2 for _, _, frames in bursts)
    styles = train.calibration_styles(typefaces)
    assert {font for _, font, _ in bursts} <= set(range(len(styles.fonts)))


def test_a_small_training_run_writes_a_calibrated_model(tmp_path: Path, capsys) -> None:
    output = tmp_path / "labels.npz"
    code = main(
        [
            *("--frames", "150", "--calibration", "30", "--epochs", "1"),
            *("--damage-seeds", "2", "--output", str(output)),
        ]
    )
    assert code == 0
    model = load_model(output)
    thresholds = (model.threshold, model.threshold_two_found, model.threshold_two_labels)
    assert all(0.99 <= t < 1.0 for t in thresholds)
    assert model.temperature > 0
    assert 0 < model.fusion <= 1 and 0 < model.label_fusion <= 1
    assert output.stat().st_size < 2 * 2**20  # four reading networks in float16
    assert model.window is not None  # a full training fits the window network too
    printed = capsys.readouterr().out
    assert "threshold (one label)" in printed and str(output) in printed
    assert "damage seeds: 2" in printed


def test_reading_networks_that_say_a_print_is_obscured_are_fitted(tmp_path: Path, capsys) -> None:
    """--obscured fits reading networks with the 22nd output, and the model file keeps it."""
    output = tmp_path / "obscured.npz"
    code = main(
        [
            *("--networks", str(MODEL_PATH), "--fit-readers", "--frames", "40"),
            *("--readers", "1", "--obscured", "0.3,0.6", "--epochs", "1"),
            *("--calibration", "10", "--damage-seeds", "1", "--output", str(output)),
        ]
    )
    assert code == 0
    model = load_model(output)
    assert model.reading_architecture.outputs == 22
    assert load_model(MODEL_PATH).reading_architecture.outputs == 21
    printed = capsys.readouterr().out
    assert "reading epoch 1/1" in printed
    assert model.obscured_shift in OBSCURED_SHIFTS
    assert f"obscured shift: {model.obscured_shift}" in printed


def test_networks_are_calibrated_again_without_fitting(tmp_path: Path, capsys) -> None:
    """--networks keeps a model's weights and chooses its settings and thresholds afresh."""
    output = tmp_path / "again.npz"
    code = main(
        [
            *("--networks", str(MODEL_PATH), "--calibration", "12"),
            *("--damage-seeds", "2", "--one-threshold", "--output", str(output)),
        ]
    )
    assert code == 0
    packaged, again = load_model(MODEL_PATH), load_model(output)
    for kept, read_back in zip(packaged.readers, again.readers, strict=True):
        assert all(np.array_equal(kept[name], read_back[name]) for name in kept)
    assert 0.99 <= again.threshold == again.threshold_two_labels < 1.0  # one threshold
    assert again.threshold_two_found == again.threshold
    assert "fitted" not in capsys.readouterr().out


def test_networks_are_calibrated_for_an_exit_built_to_a_specification(
    tmp_path: Path, capsys
) -> None:
    """--exit specified: the calibration's balls drawn as at a specified exit, damaged
    without highlights; the packaged model is never overwritten by it."""
    packaged = MODEL_PATH.read_bytes()
    with pytest.raises(SystemExit) as stop:
        main(["--networks", str(MODEL_PATH), "--exit", "specified"])
    assert stop.value.code == 2
    assert "--exit specified: give --output" in capsys.readouterr().err
    assert MODEL_PATH.read_bytes() == packaged
    output = tmp_path / "specified.npz"
    code = main(
        [
            *("--networks", str(MODEL_PATH), "--calibration", "12", "--damage-seeds", "1"),
            *("--exit", "specified", "--output", str(output)),
        ]
    )
    assert code == 0
    specified = load_model(output)
    for kept, read_back in zip(load_model(MODEL_PATH).readers, specified.readers, strict=True):
        assert all(np.array_equal(kept[name], read_back[name]) for name in kept)
    assert 0.99 <= specified.threshold < 1.0


def test_a_window_network_is_fitted_for_a_models_networks(tmp_path: Path, capsys) -> None:
    """--networks with --fit-window keeps the model's orientation and reading networks and
    adds a window network fitted on freshly rendered labels, then calibrates the whole."""
    output = tmp_path / "framed.npz"
    code = main(
        [
            *("--networks", str(MODEL_PATH), "--fit-window", "--frames", "60"),
            *("--window-epochs", "1", "--calibration", "12", "--damage-seeds", "1"),
            *("--output", str(output)),
        ]
    )
    assert code == 0
    packaged, framed = load_model(MODEL_PATH), load_model(output)
    assert framed.window is not None
    for kept, read_back in zip(
        (packaged.orientation, *packaged.readers),
        (framed.orientation, *framed.readers),
        strict=True,
    ):
        assert all(np.array_equal(kept[name], read_back[name]) for name in kept)
    printed = capsys.readouterr().out
    assert "window epoch 1/1" in printed and "misframed copies" in printed


def test_reading_networks_of_other_widths_are_fitted_for_a_models_networks(
    tmp_path: Path, capsys
) -> None:
    """--networks with --fit-readers keeps the model's orientation and window networks and
    fits new reading networks of the widths asked for, then calibrates the whole."""
    output = tmp_path / "wider.npz"
    code = main(
        [
            *("--networks", str(MODEL_PATH), "--fit-readers", "--frames", "40"),
            *("--readers", "2", "--reader-channels", "8,16,24", "--reader-hidden", "40"),
            *("--epochs", "1", "--calibration", "10", "--damage-seeds", "1"),
            *("--output", str(output)),
        ]
    )
    assert code == 0
    packaged, wider = load_model(MODEL_PATH), load_model(output)
    assert wider.reading_architecture.channels == (8, 16, 24)
    assert wider.reading_architecture.hidden == 40 and len(wider.readers) == 2
    for kept, read_back in (
        (packaged.orientation, wider.orientation),
        (packaged.window, wider.window),
    ):
        assert all(np.array_equal(kept[name], read_back[name]) for name in kept)
    printed = capsys.readouterr().out
    assert "reading epoch 1/1" in printed and "window epoch" not in printed


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--fit-readers"], "--fit-readers: with --networks"),
        (["--reader-channels", "16,x"], "'16,x': widths separated by commas"),
        (["--reader-channels", "8,8,8,8,8"], "'8,8,8,8,8': one to four positive widths"),
        (["--reader-channels", "16,0"], "'16,0': one to four positive widths"),
        (["--reader-hidden", "0"], "--reader-hidden 0: at least one"),
        (["--damage-seeds", "0"], "--damage-seeds 0: at least one"),
        (["--letterforms", "-0.1"], "--letterforms -0.1: a share from 0 to 1"),
        (["--networks", "nowhere.npz"], "--networks nowhere.npz: no such model file"),
        (["--fit-window"], "--fit-window: with --networks"),
        (["--obscured", "0.6,0.3"], "'0.6,0.3': 0 <= FROM < FULL <= 1"),
        (["--obscured", "0.3"], "'0.3': two shares, FROM,FULL"),
        (["--obscured", "0.3,1.2"], "'0.3,1.2': 0 <= FROM < FULL <= 1"),
    ],
)
def test_bad_calibration_options_are_refused(
    tmp_path: Path, capsys, option: list[str], message: str
) -> None:
    output = tmp_path / "labels.npz"
    with pytest.raises(SystemExit) as stop:
        main([*option, "--output", str(output)])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not output.exists()


def test_the_damage_seeds_follow_the_run_seed() -> None:
    seeds = train.damage_seeds(5, 3)
    assert seeds == [1005, 1105, 1205]
    assert train.damage_seeds(5, 2, skip=3) == [1305, 1405]


def test_training_refuses_to_run_without_its_fonts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    gone = Font("gone-sans", path=tmp_path / "GoneSans.ttf")
    monkeypatch.setattr(train, "TRAINING", replace(TRAINING, fonts=(*TRAINING.fonts, gone)))
    output = tmp_path / "labels.npz"
    assert main(["--frames", "10", "--output", str(output)]) == 2
    error = capsys.readouterr().err
    assert "gone-sans" in error and "fonts-noto-core" in error
    assert not output.exists()


def test_glare_on_print_moves_the_glare_of_its_share_of_the_frames_alone() -> None:
    """With no share, the training labels are the scenes as sampled; with a share of one,
    every frame's glare is moved."""
    rendered = render_labels((7, 12, TRAINING, 0.0))
    plain = rendered.subset(np.flatnonzero(~rendered.misframed))
    rng = np.random.default_rng(7)
    expected = []
    for _ in range(12):
        truth = int(rng.integers(1, 91))
        scene = sample_scene(truth, rng, TRAINING)
        expected += [patch for patch, *_ in frame_labels(scene, draw_scene(scene, rng))]
    assert len(plain) == len(expected)
    assert all(np.array_equal(a, b) for a, b in zip(plain.grey, expected, strict=True))
    moved = render_labels((7, 12, TRAINING, 1.0))
    assert not np.array_equal(moved.grey[0], plain.grey[0])


def test_the_highlights_moved_onto_the_print_are_measured_against_the_ball_without_them() -> None:
    """A frame whose glare was moved onto the print is rendered again without it: its labels
    carry how much of the print the highlights washed out. The frames are those rendered
    without the measure, and the other frames and the misframed copies carry nothing."""
    lit = render_labels((13, 30, TRAINING, 1.0))
    plain = render_labels((13, 30, TRAINING, 0.0))
    framed = lit.obscured[~lit.misframed]
    assert np.all((framed >= 0) & (framed <= 1))
    assert (framed > 0.02).mean() > 0.2  # a highlight on the print washes some of it out
    assert np.all(lit.obscured[lit.misframed] == 0)
    assert np.all(plain.obscured == 0)


def test_a_label_flattened_again_from_the_same_ball_is_not_obscured() -> None:
    """The measure flattens the label again through its own window: from the very crop it was
    flattened from, the patch is the same and nothing is washed out; a label washed out
    white has lost all of its print."""
    rng = np.random.default_rng(21)
    scene = sample_scene(88, rng, TRAINING)
    crop, labels, _ = label_data._found(draw_scene(scene, rng), None)
    assert labels
    for label in labels:
        assert label_data.obscured(crop, label) == 0.0
        assert label_data.obscured(None, label) == 0.0
    washed = label_data.reframe(np.full_like(crop, 255), labels[0], 0.0, 0.0, 0.0)
    assert washed is not None  # the frontal label through its own window, washed out white
    assert label_data.obscured(crop, washed) == 1.0


def test_each_training_label_has_a_misframed_copy_for_the_window_network() -> None:
    """The rules' windows are nearly all on the print; the copies flattened through a window
    moved off it at random teach the window network where the print is."""
    labels = render_labels((11, 20, TRAINING, 0.0))
    framed, moved = labels.window[~labels.misframed], labels.window[labels.misframed]
    assert len(moved) >= 0.9 * len(framed) > 0
    off_centre = np.hypot(moved[:, 0], moved[:, 1])
    assert np.median(np.hypot(framed[:, 0], framed[:, 1])) < 0.06
    assert np.median(off_centre) > 2 * np.median(np.hypot(framed[:, 0], framed[:, 1]))
    assert np.abs(moved[:, 2]).max() > 0.2 > np.median(np.abs(framed[:, 2]))
    # a copy keeps its label's truth
    assert set(labels.number[labels.misframed]) <= set(labels.number[~labels.misframed])


@pytest.mark.parametrize("option", ["--glare-on-print", "--letterforms", "--doubt", "--legible"])
def test_a_share_outside_0_to_1_is_refused(option: str, tmp_path: Path, capsys) -> None:
    output = tmp_path / "labels.npz"
    with pytest.raises(SystemExit) as stop:
        main([option, "1.5", "--output", str(output)])
    assert stop.value.code == 2
    assert f"{option} 1.5: a share from 0 to 1" in capsys.readouterr().err
    assert not output.exists()


def test_an_obscured_output_and_its_truth_go_together() -> None:
    from bingo_hall.vision.fit_nets import fit_reading
    from bingo_hall.vision.labelnet import READING, reading_architecture

    nothing = render_labels((1, 0, TRAINING, 0.0))
    with_output = reading_architecture(READING.channels, READING.hidden, 22)
    with pytest.raises(ValueError, match="obscured output needs its truth"):
        fit_reading(nothing, 1, 1, arch=READING, obscured=(0.3, 0.6))
    with pytest.raises(ValueError, match="obscured output needs its truth"):
        fit_reading(nothing, 1, 1, arch=with_output)
