"""The per-step gradient statistics, against numpy: the stacked form (one set of ops for
all variables) and the XLA form (one set per variable, inside ``jit_compile=True``)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tfnb_debug.collect.gradients as gradients_module
from tfnb_debug.collect.gradients import gradient_stats
from tfnb_debug.gradient_history import HIST_BINS, HIST_HI, HIST_LO, STAT_COLUMNS

SHAPES = [(3, 3, 1, 4), (4,), (10, 7), (7,), (1,), (5, 2)]


def reference(g: np.ndarray, w0: np.ndarray, w1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    counted = np.isfinite(g) & (g != 0)
    width = (HIST_HI - HIST_LO) / HIST_BINS
    index = np.clip(np.floor((np.log10(a[counted]) - HIST_LO) / width), 0, HIST_BINS - 1)
    hist = np.bincount(index.astype(int), minlength=HIST_BINS)
    return np.array(row), hist


def gradients(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for shape in SHAPES:
        g = (rng.normal(size=shape) * 10.0 ** rng.uniform(-14, 5)).astype(np.float32)
        mask = rng.random(shape) < 0.1
        g[mask] = rng.choice([np.nan, np.inf, -np.inf, 0.0], size=int(mask.sum()))
        out.append(g)
    out[2][:] = 0.0  # a layer with no gradient signal
    out[4][:] = np.nan  # one with nothing but NaN
    return out


@pytest.mark.parametrize("form", ["eager", "graph", "graph in groups", "xla"])
def test_statistics_match_numpy(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if form == "graph in groups":  # flattened in groups of at most 70 values
        monkeypatch.setattr(gradients_module, "STACK_ELEMENTS", 70)
    gs = gradients(0)
    rng = np.random.default_rng(1)
    w0 = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    w1 = [w + rng.normal(size=w.shape).astype(np.float32) * 1e-3 for w in w0]

    def stats() -> tuple[tf.Tensor, tf.Tensor]:
        return gradient_stats(
            [tf.constant(g) for g in gs],
            [tf.constant(w) for w in w0],
            [tf.constant(w) for w in w1],
        )

    if form != "eager":
        stats = tf.function(stats, jit_compile=form == "xla")
    rows, hists = (t.numpy() for t in stats())
    assert rows.shape == (len(SHAPES), len(STAT_COLUMNS)) and hists.shape == (
        len(SHAPES),
        HIST_BINS,
    )
    for i, g in enumerate(gs):
        row, hist = reference(g, w0[i], w1[i])
        np.testing.assert_allclose(rows[i], row, rtol=1e-4, equal_nan=True, err_msg=f"row {i}")
        np.testing.assert_array_equal(hists[i], hist, err_msg=f"histogram {i}")
    assert np.isnan(rows[4, 0]) and rows[4, 3] == 1 and hists[4].sum() == 0
    assert rows[2, 5] == 1.0 and rows[2, 0] == 0.0


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
