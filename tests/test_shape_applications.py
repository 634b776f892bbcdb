"""keras.applications models (weights=None: nothing is downloaded) traced end to end."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from tfnb_debug import trace_shapes


def check(model: keras.Model, x: np.ndarray) -> None:
    report = trace_shapes(model, x)
    called = [layer for layer in model.layers if not isinstance(layer, keras.layers.InputLayer)]
    rows = [c for c in report.calls if c.parent is not None]
    # one row per layer (in Keras' execution order), each with the shape Keras' graph has
    assert sorted(c.name for c in rows) == sorted(layer.name for layer in called)
    by_name = {layer.name: layer for layer in called}
    for row in rows:
        symbolic = by_name[row.name].output.shape
        assert row.outputs[0].shape == (x.shape[0], *symbolic[1:]), row.path
    assert report.total_params == model.count_params()
    assert sum(c.params or 0 for c in report.calls) == model.count_params()
    expected = (x.shape[0], *model.output_shape[1:])
    assert report.calls[0].outputs[0].shape == expected
    assert all(c.stats is not None and c.stats.nonfinite == 0 for c in report.calls)
    assert report.codes() == []
    assert "tfnb-row" in report.to_html()
    assert len(report.to_dataframe()) == len(report.calls)


@pytest.mark.slow
def test_resnet50_weights_none_small_resolution() -> None:
    model = keras.applications.ResNet50(weights=None, input_shape=(64, 64, 3), classes=10)
    check(model, np.random.default_rng(0).uniform(0, 1, (2, 64, 64, 3)).astype("float32"))


@pytest.mark.slow
def test_mobilenetv2_weights_none() -> None:
    model = keras.applications.MobileNetV2(
        weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=5
    )
    check(model, np.random.default_rng(1).uniform(-1, 1, (2, 32, 32, 3)).astype("float32"))
