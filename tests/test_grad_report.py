"""The gradient report and its renderers from a hand-made history (fast, no TensorFlow)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.gradient_history import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta
from tfnb_debug.gradients import build_report


def history(steps: int = 6, *, nan_at: int | None = None) -> GradientHistory:
    names = [("m/a", "kernel", (3, 4)), ("m/a", "bias", (4,)), ("m/b", "kernel", (4, 2))]
    variables = tuple(
        VariableMeta(f"{layer}/{name}", layer, name, shape, "float32", "sgd")
        for layer, name, shape in names
    )
    stats = np.zeros((steps, len(variables), len(STAT_COLUMNS)))
    stats[:, :, 0] = 0.5  # grad norm
    stats[:, :, 1] = 0.1
    stats[:, :, 2] = 0.3
    stats[:, :, 6] = 2.0  # weight norm
    stats[:, :, 7] = 0.02  # update norm
    if nan_at is not None:
        stats[nan_at:, 2, 0] = np.nan
        stats[nan_at:, 2, 3] = 8
    hist = np.zeros((steps, len(variables), HIST_BINS))
    hist[:, :, 20] = 5
    loss = np.linspace(2.0, 1.0, steps)
    if nan_at is not None:
        loss[nan_at:] = np.nan
    return GradientHistory(
        variables=variables,
        steps=np.arange(steps),
        loss=loss,
        loss_known=np.ones(steps, bool),
        stats=stats,
        hist=hist,
        total_steps=steps,
    )


def test_report_text_html_and_table_invariants() -> None:
    report = build_report(history(), source="model.fit", model_name="m", every=1, max_steps=100)
    assert report.findings == ()
    table = report.to_dataframe("gradients")
    assert list(table["layer"]) == ["a", "a", "b"]  # model prefix stripped, forward order
    assert table["grad norm (last)"].tolist() == [0.5, 0.5, 0.5]
    np.testing.assert_allclose(table["update/weight (last)"], 0.01)
    text = report.to_text()
    assert text.splitlines()[0] == "Gradients of model 'm': 6 recorded step(s)"
    assert "Findings: none." in text
    html = report.to_html()
    assert html.count("data:image/png;base64,") == 3
    assert "<script" not in html  # self-contained, static


def test_nonfinite_history_flags_rows_and_names_the_first_step() -> None:
    report = build_report(history(nan_at=3), source="custom loop", model_name="m")
    assert report.codes()[:2] == ["G03", "G05"]
    assert "step 3" in report.findings[0].place and "m/b/kernel" in report.findings[0].place
    assert "forward pass was already non-finite" in report.findings[0].message
    assert report.tables[0].row_marks == ("", "", "error")
    assert report.for_layer("b").codes == ("G03",)


def test_for_layer_by_path_name_and_errors() -> None:
    report = build_report(history(), source="model.fit", model_name="m")
    layer = report.for_layer("m/a")
    assert layer.layer == "a" and layer.model_name == "m"
    assert layer.variables == ("m/a/kernel", "m/a/bias")
    np.testing.assert_allclose(layer.grad_norm, np.sqrt(0.5**2 * 2))
    assert layer.histogram.sum() == 10
    assert report.for_layer("a").variables == layer.variables
    with pytest.raises(TfnbDebugError, match="no layer called 'zzz'; layers: a, b"):
        report.for_layer("zzz")


def test_history_arrays_are_read_only() -> None:
    h = history()
    with pytest.raises(ValueError):
        h.stats[0, 0, 0] = 1.0


def test_report_and_renderers_do_not_import_tensorflow() -> None:
    code = (
        "import sys, tfnb_debug.gradients, tfnb_debug.render.gradients, "
        "tfnb_debug.diagnostics.gradients; print('tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_many_layers_get_one_histogram_image_with_each_layers_share_per_bin() -> None:
    from tfnb_debug.gradient_history import HIST_EDGES
    from tfnb_debug.render.gradients import PANELS_AT_MOST, histogram_figure

    n = PANELS_AT_MOST + 8
    layers = [f"m/layer_{i}" for i in range(n)]
    rng = np.random.default_rng(0)
    last = rng.integers(0, 50, (n, len(HIST_EDGES) - 1)).astype(float)
    last[3] = 0.0  # nothing counted: drawn as missing, not as zeros
    first = rng.integers(0, 50, last.shape).astype(float)
    fig = histogram_figure(layers, last, HIST_EDGES, first=first)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in fig.axes if ax.images] == [
        "first recorded step",
        "last recorded step",
    ]
    shown = images[1].get_array()
    assert shown.shape == last.shape and bool(shown.mask[3].all())
    rows = np.ma.filled(shown, 0.0).sum(axis=1)
    np.testing.assert_allclose(np.delete(rows, 3), 1.0)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == layers
    # a small model keeps one panel per layer
    few = histogram_figure(layers[:4], last[:4], HIST_EDGES)
    assert len([ax for ax in few.axes if ax.get_visible()]) == 4
    # both steps on one colour scale
    assert images[0].get_clim() == images[1].get_clim()
