"""The "inputs from" and params columns: every input named, every parameter counted once."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from tfnb_debug.features.shapes import ShapeReport, trace_shapes


def _column_sum(report: ShapeReport) -> int:
    return sum((c.trainable_params or 0) + (c.non_trainable_params or 0) for c in report.calls)


def _producers(report: ShapeReport) -> dict[str, list[str | None]]:
    return {c.path: [t.producer for t in c.inputs] for c in report.calls}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_input_is_named_input_in_sequential_functional_and_subclassed(dtype: str) -> None:
    x = np.ones((2, 6), dtype)
    seq = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, name="d")], name="seq")
    assert _producers(trace_shapes(seq, x))["seq/d"] == ["input"]

    inp = keras.Input((6,))
    fun = keras.Model(inp, keras.layers.Dense(3, name="d")(inp), name="fun")
    assert _producers(trace_shapes(fun, x))["fun/d"] == ["input"]

    class Sub(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="sub")
            self.d = keras.layers.Dense(3, name="d")
            self.e = keras.layers.Dense(3, name="e")

        def call(self, x: object) -> object:
            return self.e(self.d(x) * 2.0)  # an op outside a layer: its producer stays unknown

    names = _producers(trace_shapes(Sub(), x))
    assert names["sub/d"] == ["input"]
    assert names["sub/e"] == [None]


def test_keras_ops_between_layers_of_a_functional_model_are_named() -> None:
    inp = keras.Input((8,))
    dense = keras.layers.Dense(8, name="d")(inp)
    summed = keras.ops.add(inp, dense)
    scaled = keras.ops.multiply(summed, 2.0)
    out = keras.layers.Concatenate(name="cat")([scaled, keras.ops.add(dense, 1.0)])
    model = keras.Model(inp, out, name="ops_net")
    report = trace_shapes(model, np.ones((2, 8), "float32"))
    names = _producers(report)
    assert names["ops_net/d"] == ["input"]
    ops = names["ops_net/cat"]
    assert ops[0] is not None and ops[0].endswith("(keras op)") and ops[0].startswith("multiply")
    assert ops[1] is not None and ops[1].startswith("add") and ops[1].endswith("(keras op)")
    # Keras numbers its op names per process (multiply, multiply_1, ...): the shown name is
    # the one recorded, whichever tests ran before in this worker
    assert ops[0] in report.to_text(width=300)


@pytest.mark.parametrize(
    "wrapper",
    [
        lambda: keras.layers.TimeDistributed(keras.layers.Dense(4, name="inner")),
        lambda: keras.layers.TimeDistributed(keras.layers.BatchNormalization(name="bn")),
        lambda: keras.layers.Bidirectional(keras.layers.GRU(3)),
        lambda: keras.layers.RNN(keras.layers.LSTMCell(3)),
        lambda: keras.layers.RNN([keras.layers.GRUCell(3), keras.layers.GRUCell(2)]),
    ],
    ids=["time_distributed", "time_distributed_bn", "bidirectional", "rnn_cell", "stacked_cells"],
)
def test_params_column_adds_up_to_count_params_with_wrapper_layers(wrapper: object) -> None:
    layer = wrapper()  # type: ignore[operator]
    model = keras.Sequential([keras.Input((5, 8)), layer, keras.layers.Flatten()], name="w")
    report = trace_shapes(model, np.ones((2, 5, 8), "float32"))
    assert model.count_params() > 0
    assert _column_sum(report) == model.count_params() == report.total_params
    wrapper_row = next(c for c in report.calls if c.path == f"w/{layer.name}")
    if isinstance(layer, keras.layers.TimeDistributed):  # calls its layer's call() directly
        assert (wrapper_row.trainable_params or 0) + (
            wrapper_row.non_trainable_params or 0
        ) == layer.count_params()
