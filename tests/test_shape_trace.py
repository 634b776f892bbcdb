"""trace_shapes / record_shapes on real Keras models: rows, paths, producers, totals, failures, restore."""

from __future__ import annotations

import io
import threading
from contextlib import redirect_stdout
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug import TfnbDebugError, layer_for_path, record_shapes, trace_shapes
from tfnb_debug.collect import _patching
from tfnb_debug.collect._patching import layer_call_hook
from tfnb_debug.features.shapes import ShapeReport

L = keras.layers


def x32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


class Block(L.Layer):
    def __init__(self, units: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.conv = L.Dense(units, name="conv")
        self.norm = L.BatchNormalization(name="norm")

    def call(self, x: Any, training: bool | None = None) -> Any:
        return self.norm(self.conv(x), training=training)


class Encoder(keras.Model):
    def __init__(self) -> None:
        super().__init__(name="encoder")
        self.block_1 = Block(8, name="block_1")
        self.block_2 = Block(8, name="block_2")
        self.head = L.Dense(3, name="head")

    def call(self, x: Any, training: bool | None = None) -> Any:
        h = self.block_2(self.block_1(x, training=training), training=training)
        return self.head(h * 2.0)


def paths(report: ShapeReport) -> list[str]:
    return [c.path for c in report.calls]


def assert_restored() -> None:
    layer_cls = keras.layers.Layer
    assert not _patching.is_patched()
    assert not getattr(layer_cls.__dict__["__call__"], "__tfnb_debug_patch__", False)
    assert not getattr(layer_cls.__dict__["_maybe_build"], "__tfnb_debug_patch__", False)


def test_sequential_rows_shapes_and_totals() -> None:
    model = keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            L.Conv2D(4, 3, activation="relu", name="conv"),
            L.Flatten(name="flat"),
            L.Dense(5, name="out"),
        ],
        name="seq",
    )
    model.compile(optimizer="adam", loss="mse")
    report = trace_shapes(model)
    assert paths(report) == ["seq", "seq/conv", "seq/flat", "seq/out"]
    conv = report.rows_for("seq/conv")[0]
    assert conv.inputs[0].shape == (2, 8, 8, 1)
    assert conv.outputs[0].shape == (2, 6, 6, 4)
    assert conv.outputs[0].dtype == "float32"
    assert report.rows_for("seq/flat")[0].inputs[0].producer == "seq/conv"
    assert conv.inputs[0].producer == "input"
    # totals agree with Keras, and the own-parameter column sums to them
    assert report.total_params == model.count_params()
    assert sum(c.params or 0 for c in report.calls) == model.count_params()
    # memory: Adam = 16 B per trainable parameter, plus activations of the leaf rows
    (memory,) = report.memory
    assert memory.bytes_per_param == 16
    assert memory.param_bytes == 16 * model.count_params()
    leaves = 2 * (6 * 6 * 4 + 144 + 5) * 4
    assert memory.activation_bytes == leaves
    # statistics come from the real output
    out = model(report_input := np.zeros((2, 8, 8, 1), "float32"))
    assert report_input.shape[0] == out.shape[0]
    relu = conv.stats
    assert relu is not None and relu.min is not None and relu.min >= 0.0
    assert 0.0 <= relu.zero_fraction <= 1.0 and relu.nonfinite == 0
    assert_restored()


def test_stats_match_numpy_on_the_same_input() -> None:
    model = keras.Sequential([keras.Input((6,)), L.Dense(4, name="d")], name="s")
    x = x32(3, 6)
    report = trace_shapes(model, x)
    expected = np.asarray(model.layers[0](x))
    stats = report.rows_for("s/d")[0].stats
    assert stats is not None
    assert stats.mean == pytest.approx(float(expected.mean()), rel=1e-5, abs=1e-6)
    assert stats.std == pytest.approx(float(expected.std()), rel=1e-4)
    assert stats.min == pytest.approx(float(expected.min()))
    assert stats.max == pytest.approx(float(expected.max()))
    assert stats.count == expected.size


def test_functional_multi_input_multi_output_dict_nested_and_shared() -> None:
    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, L.Dense(4, name="proj")(inner_in), name="inner")
    a = keras.Input((4,), name="a")
    b = keras.Input((4,), name="b")
    shared = L.Dense(4, name="shared")
    ha, hb = shared(a), shared(b)
    merged = L.Concatenate(name="cat")([inner(ha), hb])
    out1 = L.Dense(2, name="out1")(merged)
    out2 = L.Dense(1, name="out2")(merged)
    model = keras.Model({"a": a, "b": b}, [out1, out2], name="multi")

    report = trace_shapes(model)
    # Keras runs the graph in its own topological order; each call is a row
    assert paths(report) == [
        "multi",
        "multi/shared",
        "multi/inner",
        "multi/inner/proj",
        "multi/shared",
        "multi/cat",
        "multi/out2",
        "multi/out1",
    ]
    first, second = report.rows_for("multi/shared")
    assert (first.call, second.call) == (0, 1)
    assert first.params == 20 and second.params is None
    cat = report.rows_for("multi/cat")[0]
    assert [t.producer for t in cat.inputs] == ["multi/inner", "multi/shared"]
    assert [t.shape for t in cat.inputs] == [(2, 4), (2, 4)]
    assert [t.shape for t in report.calls[0].outputs] == [(2, 2), (2, 1)]
    assert report.total_params == model.count_params()
    assert layer_for_path(model, "multi/inner/proj") is inner.get_layer("proj")
    assert layer_for_path(model, "shared") is shared


def test_subclassed_unbuilt_has_no_duplicate_rows_and_paths_map_back() -> None:
    model = Encoder()
    report = trace_shapes(model, x32(4, 5))
    assert paths(report) == [
        "encoder",
        "encoder/block_1",
        "encoder/block_1/conv",
        "encoder/block_1/norm",
        "encoder/block_2",
        "encoder/block_2/conv",
        "encoder/block_2/norm",
        "encoder/head",
    ]
    assert all(c.mode == "eager" for c in report.calls)
    # the head's input is `h * 2.0`: made by an op, not a layer
    assert report.rows_for("encoder/head")[0].inputs[0].producer is None
    assert report.rows_for("encoder/block_2")[0].inputs[0].producer == "encoder/block_1"
    assert report.total_params == model.count_params() == sum(c.params or 0 for c in report.calls)
    for row in report.calls:
        layer = layer_for_path(model, row.path)
        assert layer.name == row.name and type(layer).__name__ == row.class_name
    assert layer_for_path(model, "block_1/norm") is model.block_1.norm
    with pytest.raises(TfnbDebugError, match="no layer 'nope'"):
        layer_for_path(model, "encoder/nope")
    # a second trace of the now built model: same rows
    again = trace_shapes(model, x32(4, 5))
    assert paths(again) == paths(report)


def test_namesakes_get_distinct_paths() -> None:
    class Twins(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="twins")
            self.first = L.Dense(3, name="d")
            self.second = L.Dense(3, name="d")

        def call(self, x: Any) -> Any:
            return self.second(self.first(x))

    model = Twins()
    report = trace_shapes(model, x32(2, 3))
    assert paths(report) == ["twins", "twins/d", "twins/d#2"]
    assert layer_for_path(model, "twins/d") is model.first
    assert layer_for_path(model, "twins/d#2") is model.second


def test_built_subclassed_model_without_input_uses_its_build_shape() -> None:
    model = Encoder()
    model(x32(2, 7))
    report = trace_shapes(model)
    assert report.calls[0].inputs[0].shape == (2, 7)
    assert "synthetic" in report.input_note


def test_unbuilt_subclassed_without_input_is_s04() -> None:
    report = trace_shapes(Encoder(), name="enc")
    assert report.codes() == ["S04"]
    assert "%tfshape enc --input-shape" in report.findings[0].hint
    assert report.calls == ()
    shaped = trace_shapes(Encoder(), input_shape="2,6")
    assert shaped.calls[0].inputs[0].shape == (2, 6)


def test_failure_gives_partial_table_then_the_original_exception() -> None:
    model = keras.Sequential([L.Conv2D(2, 3, name="conv"), L.LSTM(3, name="lstm")], name="bad")
    x = x32(2, 8, 8, 1)
    with pytest.raises(ValueError) as direct:
        model(x)
    seen: list[ShapeReport] = []
    with pytest.raises(ValueError) as traced:
        trace_shapes(model, x, reraise=True, on_failure=seen.append)
    assert type(traced.value) is type(direct.value)
    assert str(traced.value) == str(direct.value)
    (report,) = seen
    assert report.failed and report.error_type == "ValueError"
    failing = report.failing_call
    assert failing is not None and failing.path == "bad/lstm"
    assert failing.inputs[0].shape == (2, 6, 6, 2)
    assert failing.inputs[0].producer == "bad/conv"
    assert report.calls[0].status == "aborted"
    assert report.table("bad (Sequential)").row_marks[-1] == "error"
    assert "expected ndim=3, found ndim=4" in report.findings[0].message
    # without reraise the report is returned
    assert trace_shapes(model, x).failing_call is not None
    assert_restored()


def test_everything_is_restored_after_success_failure_and_interrupt() -> None:
    original_call = keras.layers.Layer.__dict__["__call__"]
    original_build = keras.layers.Layer.__dict__["_maybe_build"]
    model = keras.Sequential(
        [keras.Input((4,)), L.Dense(4, name="d"), L.BatchNormalization(name="bn"), L.Dropout(0.5)],
        name="s",
    )
    before = [v.numpy().copy() for v in model.variables]
    summary_before = io.StringIO()
    with redirect_stdout(summary_before):
        model.summary()

    class Interrupt(L.Layer):
        def call(self, x: Any) -> Any:
            if tf.executing_eagerly():  # not while Keras builds the model symbolically
                raise KeyboardInterrupt
            return x

    stopped = keras.Sequential([keras.Input((4,)), L.Dense(4, name="d"), Interrupt()])
    trace_shapes(model, x32(3, 4), training=True)
    with pytest.raises(KeyboardInterrupt), layer_call_hook(lambda lay, call, a, k: call(*a, **k)):
        assert _patching.is_patched()
        trace_shapes(stopped, x32(1, 4))
    with pytest.raises(RuntimeError, match="user"), record_shapes():
        model(x32(3, 4))
        raise RuntimeError("user code failed")

    assert keras.layers.Layer.__dict__["__call__"] is original_call
    assert keras.layers.Layer.__dict__["_maybe_build"] is original_build
    for layer in model._flatten_layers():
        assert "__call__" not in vars(layer) and "_maybe_build" not in vars(layer)
    assert_restored()
    after = [v.numpy() for v in model.variables]
    # the training=True trace moved BatchNorm's statistics and Dropout's seed: all restored
    for b, a in zip(before, after, strict=True):
        assert np.array_equal(b, a)
    summary_after = io.StringIO()
    with redirect_stdout(summary_after):
        model.summary()
    assert summary_after.getvalue() == summary_before.getvalue()


def test_other_threads_are_not_recorded() -> None:
    model = keras.Sequential([keras.Input((3,)), L.Dense(2, name="d")], name="t")
    other_calls: list[int] = []

    def worker() -> None:
        other_calls.append(int(model(x32(1, 3)).shape[0]))

    with record_shapes() as rec:
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        model(x32(2, 3))
    assert other_calls == [1]
    assert [c.inputs[0].shape for c in rec.report.calls if c.parent is None] == [(2, 3)]


def test_nested_hooks_and_the_patch_api() -> None:
    seen: list[str] = []

    def hook(layer: Any, call: Any, args: Any, kwargs: Any) -> Any:
        seen.append(layer.name)
        return call(*args, **kwargs)

    layer = L.Dense(2, name="hooked")
    with layer_call_hook(hook):
        assert _patching.active_layer_hook() is hook
        with record_shapes() as rec:
            layer(x32(1, 2))
        assert _patching.active_layer_hook() is hook
        layer(x32(1, 2))
    assert seen == ["hooked"]
    assert [c.path for c in rec.report.calls] == ["hooked"]
    assert_restored()


def test_graph_mode_rows_have_shapes_and_no_values() -> None:
    model = keras.Sequential([keras.Input((3,)), L.Dense(2, name="d")], name="g")

    @tf.function
    def step(x: Any) -> Any:
        return model(x)

    with record_shapes() as rec:
        step(tf.constant(x32(4, 3)))
    rows = rec.report.calls
    assert [r.mode for r in rows] == ["graph", "graph"]
    assert rows[1].outputs[0].shape == (4, 2) and rows[1].stats is None
    assert "values are not available" in rec.report.tables[0].name


def test_functional_construction_is_recorded_symbolically_and_sequential_rebuilds_are_not() -> None:
    with record_shapes() as rec:
        inp = keras.Input((5,))
        h = L.Dense(3, name="h")(inp)
        keras.Model(inp, L.Dense(1, name="o")(h))
        seq = keras.Sequential([keras.Input((2,)), L.Dense(2, name="s1")])
        seq.add(L.Dense(2, name="s2"))
    assert [(c.path, c.mode) for c in rec.report.calls] == [("h", "symbolic"), ("o", "symbolic")]
    assert rec.report.calls[1].inputs[0].producer == "h"
    assert rec.report.calls[1].inputs[0].shape == (None, 3)


def test_mixed_precision_policy_rows() -> None:
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = keras.Sequential(
            [keras.Input((4,)), L.Dense(4, name="d"), L.Activation("linear", dtype="float32")],
            name="mp",
        )
        report = trace_shapes(model)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    dense = report.rows_for("mp/d")[0]
    assert dense.outputs[0].dtype == "float16"
    assert dense.outputs[0].nbytes == 2 * 4 * 2
    assert report.calls[0].outputs[0].dtype == "float32"


def test_bad_input_is_a_one_line_error() -> None:
    model = keras.Model(
        {"a": (a := keras.Input((2,), name="a")), "b": (b := keras.Input((2,), name="b"))},
        L.Add()([a, b]),
    )
    with pytest.raises(TfnbDebugError, match=r"lacks the key\(s\) \['b'\]"):
        trace_shapes(model, {"a": x32(2, 2)})
    with pytest.raises(TfnbDebugError, match="must be a Keras 3 model or layer, got ndarray"):
        trace_shapes(np.zeros(3))
    two = keras.Model([a, b], L.Add()([a, b]))
    with pytest.raises(TfnbDebugError, match="takes 2 input"):
        trace_shapes(two, x32(2, 2))
    with pytest.raises(TfnbDebugError, match="not a list of integers"):
        trace_shapes(two, input_shape="2,x")
    assert_restored()


@pytest.mark.gpu
@pytest.mark.skipif(not tf.config.list_physical_devices("GPU"), reason="needs a GPU")
def test_statistics_reduced_on_the_gpu_match_the_host() -> None:
    from tfnb_debug.collect.tensor_stats import host_stats

    model = keras.Sequential(
        [keras.Input((16,)), L.Dense(32, activation="relu", name="d")], name="g"
    )
    x = x32(8, 16)
    with tf.device("/GPU:0"):
        report = trace_shapes(model, tf.constant(x))
    row = report.rows_for("g/d")[0]
    expected = host_stats(np.asarray(model.layers[0](x)))
    assert row.stats is not None and expected is not None
    assert row.stats.mean == pytest.approx(expected.mean, rel=1e-4, abs=1e-6)
    assert row.stats.zero_fraction == pytest.approx(expected.zero_fraction)
    assert row.stats.max == pytest.approx(expected.max, rel=1e-5)


def test_symbolic_tensors_from_an_earlier_cell_name_their_real_producers() -> None:
    """Tensors built before the recording began are not labelled as the model's input."""
    inputs = keras.Input((16, 16, 3))
    x = L.Conv2D(8, 3, padding="same", name="early_conv")(inputs)
    y = L.Conv2D(8, 3, strides=2, padding="same", name="early_down")(x)
    with pytest.raises(ValueError), record_shapes() as rec:
        L.Concatenate(name="fuse")([x, y])
    failing = rec.report.failing_call
    assert failing is not None and failing.path == "fuse"
    assert [t.producer for t in failing.inputs] == ["early_conv", "early_down"]
    with record_shapes() as rec2:
        L.Conv2D(4, 1, name="head")(inputs)
    assert rec2.report.calls[0].inputs[0].producer == "input"
    assert_restored()


def test_host_stats_count_negative_zero_as_zero_and_nan_apart() -> None:
    from tfnb_debug.collect.tensor_stats import host_stats

    values = np.array([0.0, -0.0, 1.0, np.nan, -2.0, np.inf] * 1000, dtype="float32")
    stats = host_stats(values)
    assert stats is not None
    assert stats.zero_fraction == pytest.approx(2 / 6)
    assert stats.nonfinite == 2000
    assert (stats.min, stats.max) == (-2.0, 1.0)
    assert stats.mean == pytest.approx(-0.25)


@pytest.mark.parametrize("nonfinite", [False, True])
def test_host_stats_of_a_large_array_read_in_pieces_match_numpy(nonfinite: bool) -> None:
    """Above the threaded size the array is read in pieces of whole rows on several threads:
    the combined figures are the whole array's, a ReLU unit alive only in the last piece
    is alive, and the values near a sigmoid's bounds are all counted."""
    from tfnb_debug.collect import tensor_stats

    rng = np.random.default_rng(0)
    rows, units = 2 * tensor_stats._THREADED // 48 + 7, 48
    relu = np.maximum(rng.standard_normal((rows, units)), 0).astype("float32")
    relu[:, 5] = 0.0  # dead throughout
    relu[:, 9] = 0.0
    relu[-1, 9] = 3.0  # alive only in the last row, the last piece
    if nonfinite:
        relu[rows // 2, 1] = np.nan
    stats = tensor_stats.host_stats(relu, "relu")
    finite = relu[np.isfinite(relu)].astype(np.float64)
    assert stats is not None and relu.size >= tensor_stats._THREADED
    assert (stats.dead_units, stats.units) == (1, units)
    assert stats.nonfinite == int(nonfinite)
    assert stats.zero_fraction == np.count_nonzero(relu == 0) / relu.size
    assert stats.mean == pytest.approx(finite.mean(), rel=1e-5)
    assert stats.std == pytest.approx(finite.std(), rel=1e-4)
    assert (stats.min, stats.max) == (finite.min(), finite.max())

    squashed = (1 / (1 + np.exp(-6 * rng.standard_normal(relu.size)))).astype("float32")
    sig = tensor_stats.host_stats(squashed, "sigmoid", epsilon=1e-3)
    near = np.count_nonzero(squashed <= 1e-3) + np.count_nonzero(squashed >= 1 - 1e-3)
    assert sig is not None and sig.saturated_fraction == near / squashed.size


def test_an_rnn_is_one_row_with_its_cells_parameters_and_steps() -> None:
    """Keras' summary puts an LSTM's parameters on the LSTM; the table did not fold its cell's
    24 per-step calls into it (25 identical LSTMCell rows and 0 parameters on the LSTM)."""
    import keras
    import numpy as np

    from tfnb_debug import trace_shapes

    model = keras.Sequential(
        [
            keras.Input((24, 19)),
            keras.layers.Bidirectional(keras.layers.GRU(8, return_sequences=True), name="bi"),
            keras.layers.LSTM(32, name="lstm"),
            keras.layers.Dense(1, name="out"),
        ]
    )
    report = trace_shapes(model, np.zeros((2, 24, 19), "float32"))
    rows = {c.path.split("/")[-1]: c for c in report.calls}
    assert not any("Cell" in c.class_name for c in report.calls), [c.path for c in report.calls]
    assert rows["lstm"].params == model.get_layer("lstm").count_params() == 4 * 32 * (16 + 32 + 1)
    assert rows["lstm"].steps == 24 and rows["out"].steps == 0
    assert sum(c.params or 0 for c in report.calls) == model.count_params()
    assert "LSTM (24 steps)" in report.to_text()


def test_unload_ends_the_statistics_threads(shell: InteractiveShell) -> None:
    from tfnb_debug.collect import tensor_stats

    def stats_threads() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("tfnb_debug-stats")]

    assert tensor_stats.host_stats(np.ones(2 * tensor_stats._THREADED, "float32")) is not None
    assert stats_threads()  # the pieces were read on the pool's threads
    with capture_output():
        shell.run_line_magic("unload_ext", "tfnb_debug")
    assert stats_threads() == []
    with capture_output():
        shell.run_line_magic("load_ext", "tfnb_debug")  # as the fixture expects to find it
