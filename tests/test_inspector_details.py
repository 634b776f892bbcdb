"""What the inspector collects about one layer: weight statistics and on-demand activation capture."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.widgets.details import (
    capture_call_output,
    layer_config,
    summarize_tensor,
    weight_infos,
)

L = keras.layers


def small_cnn() -> keras.Model:
    keras.utils.set_random_seed(3)
    return keras.Sequential(
        [
            keras.Input((12, 12, 1)),
            L.Conv2D(8, 3, activation="relu", name="conv_a"),
            L.MaxPooling2D(name="pool"),
            L.Conv2D(4, 3, name="conv_b"),
            L.Flatten(name="flat"),
            L.Dense(3, name="head"),
        ],
        name="cnn",
    )


def images(n: int = 4) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, 12, 12, 1)).astype("float32")


def test_summary_statistics_and_histogram_match_numpy() -> None:
    values = np.array([0.0, 0.0, 1.0, 2.0, 3.0, np.nan, np.inf, -1.0], dtype="float32")
    stats = summarize_tensor(values, bins=4)
    assert stats is not None
    finite = values[np.isfinite(values)]
    assert stats.count == 8 and stats.nonfinite == 2
    assert stats.zeros == pytest.approx(2 / 8)
    assert stats.mean == pytest.approx(finite.mean())
    assert stats.std == pytest.approx(finite.std(), rel=1e-5)
    assert (stats.min, stats.max) == (-1.0, 3.0)
    assert sum(stats.hist_counts) == finite.size
    assert len(stats.hist_edges) == 5
    assert stats.hist_edges[0] == -1.0 and stats.hist_edges[-1] == 3.0


def test_constant_and_non_numeric_tensors() -> None:
    constant = summarize_tensor(np.ones((3, 3), "float32"), bins=5)
    assert constant is not None and constant.std == 0 and sum(constant.hist_counts) == 9
    assert constant.hist_edges[0] < 1.0 < constant.hist_edges[-1]
    assert summarize_tensor(np.array(["a", "b"])) is None
    ints = summarize_tensor(np.array([1, 2, 3], "int32"))
    assert ints is not None and ints.mean == 2.0


def test_weight_infos_give_each_variable_with_its_statistics() -> None:
    model = small_cnn()
    conv = model.get_layer("conv_a")
    infos = weight_infos(conv)
    assert [w.shape for w in infos] == [(3, 3, 1, 8), (8,)]
    assert infos[0].name.endswith("kernel") and infos[1].name.endswith("bias")
    kernel = conv.kernel.numpy()
    stats = infos[0].stats
    assert stats is not None
    assert stats.mean == pytest.approx(kernel.mean(), abs=1e-6)
    assert stats.max == pytest.approx(kernel.max())
    assert stats.count == kernel.size
    assert infos[1].stats is not None and infos[1].stats.zeros == 1.0  # fresh bias is zeros

    bn = L.BatchNormalization()
    bn.build((None, 5))
    trainable = [w.trainable for w in weight_infos(bn)]
    assert trainable == [True, True, False, False]


def test_layer_config_is_short_text() -> None:
    config = dict(layer_config(small_cnn().get_layer("conv_a")))
    assert config["filters"] == "8"
    assert config["kernel_size"] == "[3, 3]"
    assert config["activation"] == "relu"


def test_capture_matches_the_output_keras_computes_for_that_layer() -> None:
    model = small_cnn()
    x = images()
    conv = model.get_layer("conv_b")
    info = capture_call_output(model, conv, x, max_maps=3)
    expected = keras.Model(model.inputs[0], conv.output)(x).numpy()
    assert info.shape == expected.shape == (4, 3, 3, 4)
    assert info.stats is not None
    assert info.stats.mean == pytest.approx(expected.mean(), abs=1e-5)
    assert info.stats.min == pytest.approx(expected.min(), abs=1e-5)
    assert info.feature_maps is not None
    assert info.feature_maps.shape == (3, 3, 3) and info.channels == 4
    np.testing.assert_allclose(info.feature_maps, expected[0, :, :, :3], atol=1e-5)
    assert "call" not in vars(conv)


def test_non_image_outputs_have_no_feature_maps() -> None:
    model = small_cnn()
    info = capture_call_output(model, model.get_layer("head"), images())
    assert info.shape == (4, 3) and info.feature_maps is None


def test_each_call_of_a_shared_layer_can_be_captured() -> None:
    shared = L.Dense(2, name="shared")
    inp = keras.Input((3,))
    out = shared(L.Dense(3, name="pre")(shared(L.Dense(3, name="lift")(inp))))
    model = keras.Model(inp, out)
    x = np.arange(6, dtype="float32").reshape(2, 3)
    first = capture_call_output(model, shared, x, call_index=0)
    second = capture_call_output(model, shared, x, call_index=1)
    final = model(x).numpy()
    assert second.stats is not None and first.stats is not None
    assert second.stats.mean == pytest.approx(final.mean(), abs=1e-5)
    assert first.stats.mean != pytest.approx(second.stats.mean)
    with pytest.raises(TfnbDebugError, match="made 2 eager call"):
        capture_call_output(model, shared, x, call_index=2)


class Boom(L.Layer):
    """Fails on real data only (Keras' symbolic build pass goes through)."""

    def call(self, x: Any) -> Any:
        if tf.executing_eagerly():
            raise ValueError("boom from the user's layer")
        return x


def test_the_layer_is_as_before_after_a_failing_forward_pass() -> None:
    inp = keras.Input((3,))
    dense = L.Dense(3, name="d")
    model = keras.Model(inp, dense(inp))
    boom = Boom(name="boom")
    model_with_boom = keras.Sequential([model, boom])
    model_with_boom.build((None, 3))
    before = dict(vars(dense))
    x = np.ones((1, 3), "float32")
    # The call before the failing layer is still captured.
    info = capture_call_output(model_with_boom, dense, x)
    assert info.shape == (1, 3)
    assert "call" not in vars(dense)
    # The failing layer itself: no output, one line saying why; the layer is as before.
    with pytest.raises(TfnbDebugError, match="raised ValueError before this call: .*boom"):
        capture_call_output(model_with_boom, boom, x)
    assert "call" not in vars(boom) and "call" not in vars(dense)
    assert dict(vars(dense)).keys() == before.keys()
    assert dense.call.__func__ is L.Dense.call


def test_an_interrupt_reaches_the_user_and_the_layer_is_restored() -> None:
    class Interrupt(L.Layer):
        def call(self, x: Any) -> Any:
            if tf.executing_eagerly():
                raise KeyboardInterrupt
            return x

    dense = L.Dense(2, name="d2")
    model = keras.Sequential([keras.Input((3,)), dense, Interrupt()])
    with pytest.raises(KeyboardInterrupt):
        capture_call_output(model, dense, np.ones((1, 3), "float32"))
    assert "call" not in vars(dense)


def test_feature_map_mosaic_scales_each_map_on_its_own() -> None:
    import io

    from matplotlib import colormaps
    from matplotlib.image import imread

    from tfnb_debug.widgets.render import feature_map_png

    maps = np.zeros((4, 4, 3), "float32")
    maps[0, 0, 0] = 1.0  # map 0: one bright pixel
    maps[..., 1] = np.arange(16, dtype="float32").reshape(4, 4) * 100.0  # map 1: a big ramp
    # map 2: constant, drawn as the low end of the colormap
    image = imread(io.BytesIO(feature_map_png(maps, cols=2, cell=8, gap=2)))
    assert image.shape[:2] == (2 * 8 + 2, 2 * 8 + 2)  # 2x2 grid of 8-pixel maps, 2-pixel gaps
    low, high = colormaps["viridis"](0.0)[:3], colormaps["viridis"](1.0)[:3]
    np.testing.assert_allclose(image[0, 0, :3], high, atol=0.01)  # map 0's bright pixel
    np.testing.assert_allclose(image[7, 7, :3], low, atol=0.01)
    np.testing.assert_allclose(image[7, 17, :3], high, atol=0.01)  # map 1's largest value
    np.testing.assert_allclose(image[10, 0, :3], low, atol=0.01)  # map 2 (constant)
    np.testing.assert_allclose(image[0, 8, :3], (1.0, 1.0, 1.0), atol=0.01)  # the gap
    np.testing.assert_allclose(image[10, 10, :3], (1.0, 1.0, 1.0), atol=0.01)  # empty cell


@pytest.mark.gpu
@pytest.mark.skipif(not tf.config.list_physical_devices("GPU"), reason="needs a GPU")
def test_capture_and_statistics_of_tensors_on_a_gpu() -> None:
    with tf.device("/GPU:0"):
        model = small_cnn()
        x = tf.constant(images())
        info = capture_call_output(model, model.get_layer("conv_b"), x, max_maps=2)
        expected = keras.Model(model.inputs[0], model.get_layer("conv_b").output)(x).numpy()
    assert info.stats is not None
    assert info.stats.mean == pytest.approx(expected.mean(), abs=1e-4)
    assert sum(info.stats.hist_counts) == expected.size
    assert info.feature_maps is not None
    np.testing.assert_allclose(info.feature_maps, expected[0, :, :, :2], atol=1e-4)
    kernel = weight_infos(model.get_layer("conv_b"))[0].stats
    assert kernel is not None and kernel.count == 3 * 3 * 8 * 4


class Trip(L.Layer):
    """Passes its input through, or raises what it is told to (after the captured layer)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.raise_: BaseException | None = None

    def call(self, x: Any) -> Any:
        if self.raise_ is not None:
            raise self.raise_
        return x


@pytest.mark.parametrize("outcome", ["success", "error", "interrupt"])
def test_capture_gives_back_the_layer_and_every_variable(outcome: str) -> None:
    keras.utils.set_random_seed(5)
    trip = Trip(name="trip")
    model = keras.Sequential(
        [
            keras.Input((6,)),
            L.Dense(4, name="dense"),
            L.BatchNormalization(name="bn"),
            L.Dropout(0.5, name="drop"),
            trip,
            L.Dense(2, name="head"),
        ],
        name="guarded",
    )
    x = np.random.default_rng(2).normal(1.0, 3.0, size=(8, 6)).astype("float32")
    bn = model.get_layer("bn")
    before = [np.array(v.numpy(), copy=True) for v in model.variables]
    own_before = dict(vars(bn))
    trip.raise_ = {
        "success": None,
        "error": ValueError("later layer fails"),
        "interrupt": KeyboardInterrupt(),
    }[outcome]
    if outcome == "interrupt":
        with pytest.raises(KeyboardInterrupt):
            capture_call_output(model, bn, x, training=True)
    else:
        info = capture_call_output(model, bn, x, training=True)  # captured before 'trip'
        assert info.shape == (8, 4)
    assert "call" not in vars(bn) and vars(bn).keys() == own_before.keys()
    after = [v.numpy() for v in model.variables]
    assert [a.tobytes() for a in after] == [b.tobytes() for b in before]
