"""The training script: leave-fonts-out networks, calibration, and a small real run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bingo_hall.vision import train
from bingo_hall.vision.model import load_model
from bingo_hall.vision.styles import TRAINING, Font
from bingo_hall.vision.train import main, rows_seen


def test_every_training_font_is_unseen_by_exactly_one_network() -> None:
    fonts = np.arange(len(TRAINING.fonts)).repeat(5)
    seen = rows_seen(fonts, 3)
    for font in range(len(TRAINING.fonts)):
        rows = fonts == font
        blind = [m for m, mask in enumerate(seen) if not mask[rows].any()]
        assert len(blind) == 1
        assert all(mask[rows].all() for m, mask in enumerate(seen) if m not in blind)


def test_a_small_training_run_writes_a_calibrated_model(tmp_path: Path, capsys) -> None:
    output = tmp_path / "digits.npz"
    code = main(
        ["--frames", "150", "--calibration", "30", "--epochs", "1", "--output", str(output)]
    )
    assert code == 0
    model = load_model(output)
    assert len(model.members) == 3
    assert 0.99 <= model.threshold < 1.0
    assert model.temperature > 0
    printed = capsys.readouterr().out
    assert "threshold" in printed and str(output) in printed


def test_training_refuses_to_run_without_its_fonts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    gone = Font("gone-sans", path=tmp_path / "GoneSans.ttf")
    monkeypatch.setattr(train, "TRAINING", replace(TRAINING, fonts=(*TRAINING.fonts, gone)))
    output = tmp_path / "digits.npz"
    assert main(["--frames", "10", "--output", str(output)]) == 2
    error = capsys.readouterr().err
    assert "gone-sans" in error and "fonts-noto-core" in error
    assert not output.exists()
