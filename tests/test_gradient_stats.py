"""The per-step gradient statistics against NumPy on the same values: the stacked form
(one set of ops for the small variables), the per-variable form of larger variables
(read whole, or a sampled histogram above SAMPLE values; NaN/Inf counted only when a
norm is not finite) and the XLA form (one set per variable, inside ``jit_compile=True``)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tfnb_debug.collect.grad_stats as grad_stats_module
from tfnb_debug.collect.grad_stats import gradient_stats
from tfnb_debug.records.gradients import (
    HIST_BINS,
    HIST_EDGES,
    HIST_LOG2_LO,
    HIST_LOG2_WIDTH,
    STAT_COLUMNS,
)

SHAPES = [(3, 3, 1, 4), (4,), (10, 7), (7,), (1,), (5, 2), (300, 256)]
FORMS = ["eager", "graph", "graph in groups", "graph in place", "xla"]


def set_form(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if form == "graph in groups":  # flattened in groups of at most 70 values
        monkeypatch.setattr(grad_stats_module, "STACK_ELEMENTS", 70)
    if form == "graph in place":  # above 8 values each reduced in place, read whole
        monkeypatch.setattr(grad_stats_module, "STACKED", 8)


def floor_log2(a: np.ndarray) -> np.ndarray:
    """floor(log2|a|) of finite non-zero float32 values, exactly (subnormals included)."""
    _, exponent = np.frexp(np.abs(a.astype(np.float64)))  # |a| = m * 2**e, m in [0.5, 1)
    return exponent - 1


def reference_hist(g: np.ndarray) -> np.ndarray:
    """The histogram NumPy computes for the values the statistics read (the same sample)."""
    flat = g.ravel()
    sample = flat
    n = flat.size
    scale = 1.0
    if n > grad_stats_module.SAMPLE:
        stride = -(-n // grad_stats_module.SAMPLE)
        stride += 1 - stride % 2
        sample = flat[::stride]
        scale = n / sample.size
    counted = sample[np.isfinite(sample) & (sample != 0)]
    index = (floor_log2(counted) - HIST_LOG2_LO) // HIST_LOG2_WIDTH
    index = np.clip(index, 0, HIST_BINS - 1)
    return np.bincount(index.astype(int), minlength=HIST_BINS) * scale


def reference(g: np.ndarray, w0: np.ndarray, w1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    hist = reference_hist(g)
    g, w0, w1 = (a.astype(np.float64).ravel() for a in (g, w0, w1))
    a = np.abs(g)
    with np.errstate(invalid="ignore", over="ignore"):
        row = [
            np.sqrt(np.sum(g * g)),
            np.sum(a) / g.size,
            np.nan if np.isnan(g).any() else np.max(a),
            np.isnan(g).sum(),
            np.isinf(g).sum(),
            np.mean(g == 0),
            np.sqrt(np.sum(w0 * w0)),
            np.sqrt(np.sum((w1 - w0) ** 2)),
        ]
    return np.array(row), hist


def gradients(seed: int, *, special: bool = True) -> list[np.ndarray]:
    """Values over 30 decades, both signs, with zeros, subnormals, NaN and Inf."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in SHAPES:
        g = (rng.normal(size=shape) * 10.0 ** rng.uniform(-14, 5, size=shape)).astype(np.float32)
        if special:
            mask = rng.random(shape) < 0.1
            choices = [np.nan, np.inf, -np.inf, 0.0, 1e-40, -3e-45, 2.0**-126, 2.0**14]
            g[mask] = np.array(choices, np.float32)[rng.integers(0, len(choices), int(mask.sum()))]
        out.append(g)
    out[2][:] = 0.0  # a layer with no gradient signal
    out[4][:] = np.nan  # one with nothing but NaN
    return out


def run(form: str, gs: list[np.ndarray], w0: list[np.ndarray] | None, w1: list[np.ndarray] | None):
    def stats() -> tuple[tf.Tensor, tf.Tensor]:
        return gradient_stats(
            [tf.constant(g) for g in gs],
            None if w0 is None else [tf.constant(w) for w in w0],
            None if w1 is None else [tf.constant(w) for w in w1],
        )

    if form != "eager":
        stats = tf.function(stats, jit_compile=form == "xla")
    return tuple(t.numpy() for t in stats())


def check(rows: np.ndarray, hists: np.ndarray, gs: list[np.ndarray], w0, w1) -> None:
    assert rows.shape == (len(gs), len(STAT_COLUMNS)) and hists.shape == (len(gs), HIST_BINS)
    for i, g in enumerate(gs):
        row, hist = reference(g, w0[i], w1[i])
        np.testing.assert_allclose(rows[i], row, rtol=1e-4, equal_nan=True, err_msg=f"row {i}")
        np.testing.assert_allclose(hists[i], hist, rtol=1e-6, err_msg=f"histogram {i}")


@pytest.mark.parametrize("form", FORMS)
def test_statistics_match_numpy(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grad_stats_module, "SAMPLE", 2000)  # the last variable is sampled
    set_form(form, monkeypatch)
    gs = gradients(0)
    rng = np.random.default_rng(1)
    w0 = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    w1 = [w + rng.normal(size=w.shape).astype(np.float32) * 1e-3 for w in w0]
    rows, hists = run(form, gs, w0, w1)
    check(rows, hists, gs, w0, w1)
    assert np.isnan(rows[4, 0]) and rows[4, 3] == 1 and hists[4].sum() == 0
    assert rows[2, 5] == 1.0 and rows[2, 0] == 0.0 and hists[2].sum() == 0
    # the sampled gradient: its counts are scaled to its size, not exact counts
    assert hists[-1].sum() == pytest.approx(np.isfinite(gs[-1]).sum(), rel=0.1)


@pytest.mark.parametrize("form", FORMS)
def test_finite_gradients_and_exact_bins(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No NaN or Inf (the counts come from the finite branch), every variable read whole:
    the bin counts are exact integers, also at the bin edges and for subnormals."""
    set_form(form, monkeypatch)
    edges = [2.0 ** (HIST_LOG2_LO + HIST_LOG2_WIDTH * i) for i in range(HIST_BINS + 1)]
    at_edges = np.array(
        [e * f for e in edges for f in (1.0, -1.0, 0.999999, 1.000001)], dtype=np.float32
    )
    tiny = np.array([1e-45, -1e-40, 1e-38, 2.0**-126, 0.0, -0.0, 1e18, -(2.0**14)], np.float32)
    gs = [*gradients(4, special=False)[:2], at_edges, tiny]
    gs[1][:] = 0.0
    w = [np.ones_like(g) for g in gs]
    rows, hists = run(form, gs, w, w)
    check(rows, hists, gs, w, w)
    assert (rows[:, 3:5] == 0).all()
    np.testing.assert_array_equal(hists, np.round(hists))
    # every bin but the edges holds its 2 edge values from above and 2 from below
    assert (hists[2, 1:-1] == 4).all() and hists[2].sum() == len(at_edges)
    assert hists[3, 0] == 4 and hists[3, -1] == 2 and rows[3, 5] == 2 / len(tiny)


@pytest.mark.parametrize("form", ["graph", "xla"])
def test_a_large_gradient_is_sampled_and_its_nonfinite_values_counted(form: str) -> None:
    """A gradient above SAMPLE values: norm, zeros, NaN and Inf exact over all of it; the
    histogram from the strided sample, scaled to its size."""
    rng = np.random.default_rng(5)
    g = (rng.normal(size=(700, 256)) * 1e-3).astype(np.float32)
    g[3, 5] = np.nan  # outside the sample (stride 3)
    g.ravel()[[1, 7, 8]] = [np.inf, 0.0, 0.0]
    small = np.ones((4,), np.float32)
    gs = [g, small]
    w = [np.ones_like(x) for x in gs]
    rows, hists = run(form, gs, w, w)
    assert rows[0, 3] == 1 and rows[0, 4] == 1 and rows[0, 5] == 2 / g.size
    assert np.isnan(rows[0, 0]) and np.isnan(rows[0, 2])
    np.testing.assert_allclose(hists[0], reference_hist(g), rtol=1e-6)
    np.testing.assert_allclose(rows[1], reference(small, w[1], w[1])[0], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("form", ["graph", "xla"])
def test_half_precision_gradients(dtype: str, form: str) -> None:
    """float16/bfloat16 gradients (a model under a float16 policy) are read as float32:
    the same bins as their float32 values, float16 subnormals included."""
    values = np.array([6e-8, -1e-5, 1e-3, 0.5, -2.0, 300.0, 0.0, 60000.0, 3e-5, 1.5e-7], np.float32)
    as_dtype = tf.constant(values, tf.float32)
    as_dtype = tf.cast(as_dtype, dtype)
    exact = tf.cast(as_dtype, tf.float32).numpy()  # the values the half type holds

    def stats() -> tuple[tf.Tensor, tf.Tensor]:
        return gradient_stats([as_dtype], None, None)

    rows, hists = (t.numpy() for t in tf.function(stats, jit_compile=form == "xla")())
    np.testing.assert_array_equal(hists[0], reference_hist(exact))
    np.testing.assert_allclose(rows[0, :6], reference(exact, exact, exact)[0][:6], rtol=1e-4)


def test_edges_are_the_log10_of_powers_of_four() -> None:
    assert len(HIST_EDGES) == HIST_BINS + 1
    np.testing.assert_allclose(
        10.0 ** np.asarray(HIST_EDGES),
        2.0 ** (HIST_LOG2_LO + HIST_LOG2_WIDTH * np.arange(HIST_BINS + 1)),
        rtol=1e-12,
    )


def test_without_weights_the_weight_columns_are_nan() -> None:
    rows, _ = gradient_stats([tf.constant(g) for g in gradients(2)], None, None)
    assert np.isnan(rows.numpy()[:, 6:]).all()
    rows, _ = gradient_stats(
        [tf.constant(g) for g in gradients(2)], [tf.ones(s) for s in SHAPES], None
    )
    assert np.isfinite(rows.numpy()[:, 6]).all() and np.isnan(rows.numpy()[:, 7]).all()


def test_an_empty_variable_last_keeps_every_row() -> None:
    """Sorted segment sums drop an empty segment at the end: such a gradient takes the
    per-variable form, and every variable keeps its row."""
    gs = [tf.constant(g) for g in gradients(3)] + [tf.zeros([0, 4])]
    rows, hists = tf.function(lambda: gradient_stats(gs, None, None))()
    assert rows.shape[0] == len(SHAPES) + 1 and hists.shape[0] == len(SHAPES) + 1
    np.testing.assert_array_equal(rows.numpy()[-1, :6], [0, 0, 0, 0, 0, 0])
    reference_row, _ = reference(gradients(3)[0], np.zeros(1), np.zeros(1))
    np.testing.assert_allclose(rows.numpy()[0, :6], reference_row[:6], rtol=1e-4, equal_nan=True)


def test_gradients_of_unknown_shape() -> None:
    """Sizes known only when the step runs: each reduced in place, a large one sampled;
    its zeros are counted from all of its values, subnormals as non-zero."""
    signature = [tf.TensorSpec(None, tf.float32), tf.TensorSpec([None, 3], tf.float32)]
    stats = tf.function(
        lambda a, b: gradient_stats([a, b], [a, b], [a, b]), input_signature=signature
    )
    a = np.array([0.0, 1.0, -2.0, 0.0, 1e-40, np.nan], np.float32)
    b = np.zeros((40_000, 3), np.float32)  # above SAMPLE: a strided sample
    b[1, 1] = 3.0  # outside the sample (stride 9)
    rows, hists = (t.numpy() for t in stats(a, b))
    for i, g in enumerate([a, b]):
        np.testing.assert_allclose(rows[i], reference(g, g, g)[0], rtol=1e-5, equal_nan=True)
        np.testing.assert_allclose(hists[i], reference_hist(g), rtol=1e-6)


@pytest.mark.parametrize("form", ["eager", "graph"])
def test_norms_measured_elsewhere_are_kept_as_given(form: str) -> None:
    """A weight and update norm measured from the optimizer's writes (update_deltas) is
    put in as measured, also one whose square is beyond float32; the other variable's
    norms come from its weights."""
    g = np.full((70, 70), 1e-3, np.float32)  # reduced in place (above STACKED values)
    w = np.ones((3,), np.float32)

    def stats() -> tuple[tf.Tensor, tf.Tensor]:
        given = (tf.constant(3e30), tf.constant(2e25))
        return gradient_stats(
            [tf.constant(g), tf.constant(w)],
            [None, tf.constant(w)],
            [None, tf.constant(2 * w)],
            [given, None],
        )

    rows = (tf.function(stats) if form == "graph" else stats)()[0].numpy()
    np.testing.assert_allclose(rows[0, 6:], [3e30, 2e25], rtol=1e-6)
    np.testing.assert_allclose(rows[1, 6:], [np.sqrt(3), np.sqrt(3)], rtol=1e-6)
    np.testing.assert_allclose(rows[0, 0], np.sqrt(g.size) * 1e-3, rtol=1e-5)
