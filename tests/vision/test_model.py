"""From the reading networks' outputs to the 90 numbers, and the model file."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bingo_hall.vision.labelnet import (
    OBSCURED_READ_OUTPUTS,
    ORIENTATION,
    READ_OUTPUTS,
    READING,
    WINDOW,
    reading_architecture,
)
from bingo_hall.vision.model import (
    Evidence,
    LabelModel,
    load_model,
    mixture,
    number_log_likelihoods,
)

scores = arrays(np.float64, 10, elements=st.floats(-8.0, 8.0))


def posterior(log_likelihood: np.ndarray) -> np.ndarray:
    p = np.exp(log_likelihood - log_likelihood.max())
    return p / p.sum()


def softmax(z: np.ndarray) -> np.ndarray:
    p = np.exp(z - z.max())
    return p / p.sum()


@given(tens=scores, units=scores, temperature=st.floats(0.5, 4.0))
def test_an_upright_label_reads_tens_and_units_as_printed(
    tens: np.ndarray, units: np.ndarray, temperature: float
) -> None:
    outputs = np.concatenate([tens, units, [-40.0]])[None]
    got = posterior(number_log_likelihoods(outputs, temperature)[0])
    t, u = softmax(tens / temperature), softmax(units / temperature)
    printed = [(n // 10, n % 10) for n in range(1, 91)]  # 01 … 09, 10 … 90
    expected = np.array([t[a] * u[b] for a, b in printed])
    assert np.allclose(got, expected / expected.sum(), atol=1e-9)


@given(tens=scores, units=scores, upside=st.floats(-8.0, 8.0))
def test_a_label_seen_upside_down_says_less(
    tens: np.ndarray, units: np.ndarray, upside: float
) -> None:
    """The more the network believes the label upside down, the flatter its reading: a
    68 read upside down must not become a confident 89."""
    sure = posterior(number_log_likelihoods(np.concatenate([tens, units, [upside]])[None], 1)[0])
    doubt = posterior(
        number_log_likelihoods(np.concatenate([tens, units, [upside + 2]])[None], 1)[0]
    )
    assert doubt.max() <= sure.max() + 1e-12
    flipped = posterior(number_log_likelihoods(np.concatenate([tens, units, [30.0]])[None], 1)[0])
    assert np.allclose(flipped, 1 / 90, atol=1e-9)


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@given(tens=scores, units=scores, upside=st.floats(-12.0, 12.0), obscured=st.floats(-12.0, 12.0))
def test_an_obscured_print_says_as_much_less_as_it_is_believed_obscured(
    tens: np.ndarray, units: np.ndarray, upside: float, obscured: float
) -> None:
    """With the 22nd output, a number's likelihood is the chance of reading the print
    (upright and whole) times its digits', plus an even share of the rest: a print whose
    highlight made an 8 a 3 must not become a confident 23."""
    outputs = np.concatenate([tens, units, [upside, obscured]])[None]
    got = posterior(number_log_likelihoods(outputs, 1.0)[0])
    t, u = softmax(tens), softmax(units)
    digits = np.array([t[n // 10] * u[n % 10] for n in range(1, 91)])
    read = (1 - sigmoid(upside)) * (1 - sigmoid(obscured))
    likelihood = read * digits + (1 - read) / 90
    assert np.allclose(got, likelihood / likelihood.sum(), atol=1e-9)
    whole = number_log_likelihoods(np.concatenate([tens, units, [upside, -60.0]])[None], 1.0)
    as_before = number_log_likelihoods(np.concatenate([tens, units, [upside]])[None], 1.0)
    assert np.allclose(posterior(whole[0]), posterior(as_before[0]), atol=1e-12)
    shifted = number_log_likelihoods(outputs, 1.0, obscured_shift=-3.0)
    moved = number_log_likelihoods(outputs + np.r_[np.zeros(21), -3.0], 1.0)
    assert np.array_equal(shifted, moved)  # the shift moves the odds of "obscured" alone
    assert np.array_equal(
        number_log_likelihoods(outputs[:, :21], 1.0, obscured_shift=-3.0),
        number_log_likelihoods(outputs[:, :21], 1.0),
    )  # networks without the output: nothing to shift


@given(digit=st.integers(0, 9))
def test_a_clear_print_reads_as_its_ball(digit: int) -> None:
    for tens in range(10):
        number = 10 * tens + digit
        if not 1 <= number <= 90:
            continue
        outputs = np.full((1, 21), -10.0)
        outputs[0, tens] = outputs[0, 10 + digit] = 10.0
        assert int(np.argmax(number_log_likelihoods(outputs, 1.0))) + 1 == number


def test_the_model_file_round_trips(tmp_path: Path) -> None:
    model = LabelModel(*_random_networks(readers=2), 1.7, 0.75, 0.5, 0.9993, 0.9991, 0.9992)
    model = replace(model, obscured_shift=-7.0)
    path = tmp_path / "labels.npz"
    model.save(path)
    loaded = load_model(path)
    settings = (loaded.temperature, loaded.label_fusion, loaded.fusion, loaded.threshold)
    assert settings == (1.7, 0.75, 0.5, 0.9993)
    assert loaded.obscured_shift == -7.0 and load_model().obscured_shift == 0.0
    assert (loaded.threshold_two_labels, loaded.threshold_two_found) == (0.9991, 0.9992)
    assert len(loaded.readers) == 2
    for reader, read_back in zip(model.readers, loaded.readers, strict=True):
        for name, value in reader.items():  # float16 in the file
            assert np.allclose(read_back[name], value, rtol=1e-3, atol=1e-3)


def test_the_window_network_round_trips_and_older_files_have_none(tmp_path: Path) -> None:
    orientation, readers = _random_networks()
    rng = np.random.default_rng(2)
    window = {k: rng.normal(size=s).astype(np.float32) for k, s in WINDOW.shapes().items()}
    path = tmp_path / "framed.npz"
    LabelModel(orientation, readers, window=window).save(path)
    loaded = load_model(path)
    assert loaded.window is not None and loaded.window_kernels is not None
    for name, value in window.items():
        assert np.allclose(loaded.window[name], value, rtol=1e-3, atol=1e-3)
    LabelModel(orientation, readers).save(path)  # as models before the window network
    assert load_model(path).window is None and load_model(path).window_kernels is None


def test_a_model_file_with_one_threshold_uses_it_for_every_reading(tmp_path: Path) -> None:
    """Model files written before the thresholds by evidence still load."""
    path = tmp_path / "labels.npz"
    LabelModel(
        *_random_networks(), threshold=0.9995, threshold_two_labels=0.5, threshold_two_found=0.6
    ).save(path)
    with np.load(path) as data:
        kept = {k: data[k] for k in data.files if not k.startswith("threshold_two")}
    np.savez_compressed(path, **kept)
    loaded = load_model(path)
    assert {loaded.threshold_for(kind) for kind in Evidence} == {0.9995}


def test_the_model_calibrated_is_the_model_the_file_gives(tmp_path: Path) -> None:
    """Training calibrates the networks rounded as the file keeps them, not the fitted ones."""
    model = LabelModel(*_random_networks(readers=2))
    path = tmp_path / "labels.npz"
    model.save(path)
    loaded, rounded = load_model(path), model.as_saved()
    for ours, theirs in zip(
        (rounded.orientation, *rounded.readers), (loaded.orientation, *loaded.readers), strict=True
    ):
        assert all(np.array_equal(ours[name], theirs[name]) for name in ours)
    assert not np.array_equal(
        model.readers[0]["hidden.weight"], rounded.readers[0]["hidden.weight"]
    )


def _random_networks(readers: int = 1, reading=READING) -> tuple[dict, tuple[dict, ...]]:
    rng = np.random.default_rng(6)

    def weights(arch):
        return {k: rng.normal(size=s).astype(np.float32) for k, s in arch.shapes().items()}

    return weights(ORIENTATION), tuple(weights(reading) for _ in range(readers))


@pytest.mark.parametrize("outputs", [READ_OUTPUTS, OBSCURED_READ_OUTPUTS])
def test_reading_networks_of_other_widths_are_read_off_the_file(
    tmp_path: Path, outputs: int
) -> None:
    """The file holds no widths of its own: the reader takes them (and whether the networks
    say a print is obscured) from the weights, and the model it loads reads labels as the
    one saved."""
    wider = reading_architecture((8, 16, 24), 40, outputs)
    model = LabelModel(*_random_networks(readers=2, reading=wider)).as_saved()
    path = tmp_path / "labels.npz"
    model.save(path)
    loaded = load_model(path)
    assert loaded.reading_architecture == wider
    assert model.reading_architecture == wider != load_model().reading_architecture
    patches = [np.random.default_rng(i).integers(0, 256, (64, 64), np.uint8) for i in range(3)]
    assert loaded.outputs(patches).shape == (3, outputs)
    assert np.allclose(loaded.outputs(patches), model.outputs(patches), atol=1e-4)


outputs_row = arrays(np.float64, st.sampled_from([21, 22]), elements=st.floats(-12.0, 12.0))


@given(row=outputs_row, temperature=st.floats(0.5, 4.0))
def test_one_reading_network_is_its_own_mixture(row: np.ndarray, temperature: float) -> None:
    alone = number_log_likelihoods(row[None], temperature)
    mixed = number_log_likelihoods(mixture([row[None]]), temperature)
    assert np.allclose(posterior(alone[0]), posterior(mixed[0]), atol=1e-9)


@given(
    pair=st.sampled_from([21, 22]).flatmap(
        lambda n: st.tuples(*[arrays(np.float64, n, elements=st.floats(-12.0, 12.0))] * 2)
    )
)
def test_the_mixture_averages_the_networks_probabilities(
    pair: tuple[np.ndarray, np.ndarray],
) -> None:
    first, second = pair
    mixed = mixture([first[None], second[None]])[0]
    assert mixed.shape == first.shape
    for head in (slice(0, 10), slice(10, 20)):
        expected = (softmax(first[head]) + softmax(second[head])) / 2
        assert np.allclose(softmax(mixed[head]), expected, atol=1e-9)
    for column in range(20, len(first)):  # upside down, obscured
        chances = [sigmoid(first[column]), sigmoid(second[column])]
        assert np.isclose(sigmoid(mixed[column]), np.mean(chances), atol=1e-9)


def test_networks_that_disagree_make_a_doubtful_reading() -> None:
    """Each network sure of its own number, one of 43 and the other of 48: the mixture is
    sure of neither."""
    sure_of = {}
    for number in (43, 48):
        row = np.full(21, -10.0)
        row[number // 10] = row[10 + number % 10] = 10.0
        sure_of[number] = row[None]
    for number, row in sure_of.items():
        assert posterior(number_log_likelihoods(row, 1.0)[0])[number - 1] > 0.9999
    mixed = posterior(number_log_likelihoods(mixture(list(sure_of.values())), 1.0)[0])
    assert np.allclose(mixed[[43 - 1, 48 - 1]], 0.5, atol=1e-3)
