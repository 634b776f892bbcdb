"""The gradient report and its renderers from a hand-made history (fast, no TensorFlow)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from tfnb_debug.features.gradient_report import build_report
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta


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
    assert html.count('aria-label="gradient histogram of') == 2  # one SVG panel a layer
    assert html.count('alt="gradient norm heatmap') == 1
    assert html.count('aria-label="loss over steps"') == 1
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
        "import sys, tfnb_debug.features.gradients, tfnb_debug.render.gradients, "
        "tfnb_debug.diagnostics.gradients; print('tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_many_layers_get_one_histogram_map_with_each_layers_share_per_bin() -> None:
    from tests._support import decode_png as decode
    from tfnb_debug.records.gradients import HIST_EDGES
    from tfnb_debug.render.gradients import (
        PANELS_AT_MOST,
        gradient_sections,
        histogram_maps_html,
        histogram_shares,
    )
    from tfnb_debug.render.pixelmap import colours

    n = PANELS_AT_MOST + 8
    layers = [f"m/layer_{i}" for i in range(n)]
    rng = np.random.default_rng(0)
    last = rng.integers(0, 50, (n, len(HIST_EDGES) - 1)).astype(float)
    last[3] = 0.0  # nothing counted: drawn black, not as zeros
    first = rng.integers(0, 50, last.shape).astype(float)
    html = histogram_maps_html(layers, last, HIST_EDGES, first=first)
    titles = re.findall(r'alt="gradient histograms: ([^"]+)"', html)
    assert titles == ["first recorded step", "last recorded step"]
    uris = re.findall(r'src="(data:image/png;base64,[^"]+)"', html)
    first_map, last_map = decode(uris[0]), decode(uris[1])
    assert last_map.shape == (n, len(HIST_EDGES) - 1, 3)
    assert (last_map[3] == 0).all() and (last_map[np.arange(n) != 3] != 0).any(axis=2).all()
    shares = histogram_shares(last)
    np.testing.assert_allclose(np.nansum(shares, axis=1)[np.arange(n) != 3], 1.0)
    # both steps on one colour scale: the largest share of either is the yellow end
    top = max(np.nanmax(shares), np.nanmax(histogram_shares(first)))
    np.testing.assert_array_equal(last_map, colours(shares, 0.0, top))
    np.testing.assert_array_equal(first_map, colours(histogram_shares(first), 0.0, top))
    for name in layers:
        assert f'title="{name}"' in html  # every layer labelled, in forward order
    assert html.index('title="m/layer_0"') < html.index('title="m/layer_15"')
    # the report picks it for many layers, and one panel per layer for a few
    many = gradient_sections(
        layers=layers,
        steps=np.arange(1),
        layer_norms=np.ones((1, n)),
        hist_last=last,
        hist_first=first,
        edges=HIST_EDGES,
        loss=np.ones(1),
        loss_known=np.ones(1, bool),
    )
    assert 'alt="gradient histograms: last recorded step"' in many[0].html
    few = gradient_sections(
        layers=layers[:4],
        steps=np.arange(1),
        layer_norms=np.ones((1, 4)),
        hist_last=last[:4],
        hist_first=None,
        edges=HIST_EDGES,
        loss=np.ones(1),
        loss_known=np.ones(1, bool),
    )
    assert few[0].html.count("<svg") == 4 and "data:image/png" not in few[0].html
