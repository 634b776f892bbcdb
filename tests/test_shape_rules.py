"""Each shape rule on a real model that triggers it, and on a close variant that must not."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnb_debug import ShapeThresholds, record_shapes, trace_shapes

L = keras.layers


def x32(*shape: int, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype("float32")


def only(report: Any, code: str) -> Any:
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, report.to_text()
    return found[0]


# ---------------------------------------------------------------- S01 + hints
def test_s01_missing_batch_axis() -> None:
    model = keras.Sequential([L.Conv2D(2, 3, name="conv")], name="net")
    report = trace_shapes(model, x32(8, 8, 1))
    s01 = only(report, "S01")
    assert s01.place == "net/conv"
    # (8, 8, 1) is one example without its batch axis or a batch without channels: both named,
    # the batch axis first (the trailing 1 looks like a channel axis)
    hint = s01.hint
    assert "without its batch axis" in hint and "x[None, ...]" in hint
    assert hint.index("batch axis") < hint.index("channel axis")
    fresh = keras.Sequential([L.Conv2D(2, 3, name="conv")], name="net")
    assert trace_shapes(fresh, x32(1, 8, 8, 1)).codes() == []


def test_s01_missing_flatten() -> None:
    model = keras.Sequential(
        [L.Conv2D(2, 3, name="conv"), L.RepeatVector(3, name="rep")], name="net"
    )
    report = trace_shapes(model, x32(2, 8, 8, 1))
    s01 = only(report, "S01")
    assert s01.place == "net/rep"
    assert "Flatten()" in s01.hint and "'net/conv'" in s01.hint
    assert "received (2, 6, 6, 2) float32 from net/conv" in s01.evidence
    fixed = keras.Sequential(
        [L.Conv2D(2, 3, name="conv"), L.Flatten(), L.RepeatVector(3, name="rep")], name="ok"
    )
    assert trace_shapes(fixed, x32(2, 8, 8, 1)).codes() == []


def test_s01_input_size_changed_after_build() -> None:
    model = keras.Sequential(
        [keras.Input((8, 8, 1)), L.Flatten(name="flat"), L.Dense(3, name="dense")], name="net"
    )
    report = trace_shapes(model, x32(2, 10, 10, 1))
    s01 = only(report, "S01")
    assert s01.place == "net/dense"
    # the width comes from the Flatten: an axis before it (the image size) changed
    assert "Flatten 'flat'" in s01.hint and "100 features now, 64 when" in s01.hint
    assert "column" not in s01.hint
    assert trace_shapes(model, x32(2, 8, 8, 1)).codes() == []


def test_s01_skip_branch_not_downsampled_while_building_a_functional_model() -> None:
    rec = record_shapes()
    with pytest.raises(ValueError, match="incompatible shapes"), rec:
        inp = keras.Input((16, 16, 3))
        a = L.Conv2D(8, 3, padding="same", name="c1")(inp)
        b = L.Conv2D(8, 3, strides=2, padding="same", name="c2")(a)
        L.Add(name="add")([a, b])
    s01 = only(rec.report, "S01")
    assert s01.place == "add"
    assert "strides=2" in s01.hint and "'c1'" in s01.hint and "'c2'" in s01.hint
    with record_shapes() as ok:
        inp = keras.Input((16, 16, 3))
        a = L.Conv2D(8, 3, padding="same", name="c1")(inp)
        b = L.Conv2D(8, 3, padding="same", name="c2")(a)
        L.Add(name="add")([a, b])
    assert ok.report.codes() == []


# ------------------------------------------------------------------------ S02
def test_s02_batch_folded_into_features() -> None:
    folded = keras.Sequential(
        [keras.Input((3, 4)), L.Lambda(lambda t: tf.reshape(t, (1, -1)), name="fold")], name="f"
    )
    s02 = only(trace_shapes(folded), "S02")
    assert s02.place == "f/fold"
    assert "batch of 2 into a leading axis of 1" in s02.message
    kept = keras.Sequential([keras.Input((3, 4)), L.Flatten(name="flat")], name="k")
    assert "S02" not in trace_shapes(kept).codes()


# ------------------------------------------------------------------------ S03
def test_s03_silent_on_the_benign_cast_on_entry() -> None:
    # NumPy's float64 into a float32 model: Keras casts on entry and computes in float32
    # as intended (fit converts its batches the same way): no finding on a correct program
    model = keras.Sequential([keras.Input((4,)), L.Dense(2, name="d")], name="m")
    x = np.random.default_rng(0).standard_normal((2, 4))  # float64
    assert "S03" not in trace_shapes(model, x).codes()
    wide = L.Dense(2, dtype="float64", name="wide")  # computes in float64 on purpose
    assert "S03" not in trace_shapes(wide, x).codes()


def test_s03_says_when_float64_passes_through_uncast() -> None:
    class Keep(L.Layer):
        def __init__(self) -> None:
            super().__init__(autocast=False, name="keep")

        def call(self, t: object) -> object:
            return t * 1.0  # type: ignore[operator]

    x = np.random.default_rng(0).standard_normal((2, 4))  # float64
    s03 = only(trace_shapes(Keep(), x), "S03")
    assert "passes through Keep 'keep' uncast although it computes in float32" in s03.message
    assert s03.hint.startswith("cast once at the source: x.astype('float32')")


# ------------------------------------------------------------------------ S05
def test_s05_mixed_precision_output() -> None:
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        plain = keras.Sequential([keras.Input((4,)), L.Dense(3, name="logits")], name="p")
        fixed = keras.Sequential(
            [keras.Input((4,)), L.Dense(3), L.Activation("linear", dtype="float32")], name="q"
        )
        bad, good = trace_shapes(plain), trace_shapes(fixed)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    s05 = only(bad, "S05")
    assert "float16" in s05.message and s05.place == "p"
    assert "S05" not in good.codes()


# ------------------------------------------------------------------------ N01
def test_n01_first_nonfinite_layer_made_by_the_layer() -> None:
    model = keras.Sequential(
        [
            keras.Input((8,)),
            L.Dense(8, name="d"),
            L.Lambda(lambda t: keras.ops.log(t), name="log"),
            L.Dense(2, name="after"),
        ],
        name="m",
    )
    n01 = only(trace_shapes(model, x32(4, 8)), "N01")
    assert n01.place == "m/log"
    assert "its inputs were finite" in n01.message
    safe = keras.Sequential(
        [keras.Input((8,)), L.Dense(8), L.Lambda(lambda t: keras.ops.log(1.0 + t * t))]
    )
    assert "N01" not in trace_shapes(safe, x32(4, 8)).codes()


def test_n01_nonfinite_data() -> None:
    model = keras.Sequential([keras.Input((4,)), L.Dense(3, name="d")], name="m")
    x = x32(2, 4)
    x[0, 1] = np.nan
    n01 = only(trace_shapes(model, x), "N01")
    assert n01.place == "m/d"
    assert "already held NaN/Inf" in n01.message


# ------------------------------------------------------------------------ N02
def test_n02_dead_relu_and_threshold() -> None:
    dead = keras.Sequential(
        [
            keras.Input((8,)),
            L.Dense(
                32, activation="relu", bias_initializer=keras.initializers.Constant(-50.0), name="r"
            ),
        ],
        name="m",
    )
    n02 = only(trace_shapes(dead, x32(4, 8)), "N02")
    assert n02.place == "m/r" and "100.0%" in n02.message
    assert "32 of its 32 units are 0 for every example" in n02.message
    alive = keras.Sequential(
        [keras.Input((8,)), L.Dense(32, activation="relu", name="r")], name="a"
    )
    report = trace_shapes(alive, x32(4, 8))
    assert "N02" not in report.codes()
    zeros = report.rows_for("a/r")[0].stats.zero_fraction
    assert 0.2 < zeros < 0.8
    strict = trace_shapes(
        alive, x32(4, 8), thresholds=ShapeThresholds(dead_relu_fraction=0.1, dead_unit_share=0.0)
    )
    assert "N02" in strict.codes()


def test_n02_silent_on_sparse_units_that_all_fire() -> None:
    # 97% zeros, but each of the 32 units fires on two of the 64 examples: sparse
    # activations of a healthy layer (gradient reaches every unit), not dead units
    sparse = keras.Sequential(
        [
            keras.Input((32,)),
            L.Dense(32, activation="relu", kernel_initializer="identity", name="r"),
        ],
        name="s",
    )
    x = np.tile(np.eye(32, dtype="float32"), (2, 1))
    report = trace_shapes(sparse, x)
    stats = report.rows_for("s/r")[0].stats
    assert stats.zero_fraction > 0.95 and stats.dead_units == 0 and stats.units == 32
    assert "N02" not in report.codes()
    half = np.concatenate([x[:, :16], np.zeros((64, 16), "float32")], axis=1)
    n02 = only(trace_shapes(sparse, half), "N02")  # 16 units never fire on this batch
    assert "16 of its 32 units are 0 for every example" in n02.message


# ------------------------------------------------------------------------ N03
def test_n03_saturated_sigmoid() -> None:
    model = keras.Sequential(
        [keras.Input((8,)), L.Dense(32, activation="sigmoid", name="s"), L.Dense(1)], name="m"
    )
    n03 = only(trace_shapes(model, x32(4, 8, scale=1000.0)), "N03")
    assert n03.place == "m/s"
    assert "N03" not in trace_shapes(model, x32(4, 8, scale=0.01)).codes()


def test_n03_silent_on_the_output_layer_of_a_confident_classifier() -> None:
    # an output sigmoid at 0/1 is the prediction (a trained classifier's confident one),
    # also when the classifier is nested in another model; a hidden one at 0/1 is not
    head = keras.Sequential(
        [keras.Input((8,)), L.Dense(32, activation="sigmoid", name="out")], name="head"
    )
    outer = keras.Sequential([keras.Input((8,)), L.Dense(8, name="pre"), head], name="outer")
    loud = x32(4, 8, scale=1000.0)
    assert "N03" not in trace_shapes(head, loud).codes()
    identity = keras.initializers.Identity()
    outer.get_layer("pre").set_weights([identity((8, 8)).numpy(), np.zeros(8, "float32")])
    assert "N03" not in trace_shapes(outer, loud).codes()


# ------------------------------------------------------------------------ T01
def test_t01_retracing_and_limit() -> None:
    @tf.function
    def scale(x: Any, k: int) -> Any:
        return x * k

    with record_shapes() as rec:
        for k in range(7):
            scale(tf.ones(2), k)
    t01 = only(rec.report, "T01")
    assert "traced 7 times" in t01.message and "k" in t01.evidence

    @tf.function
    def steady(x: Any) -> Any:
        return x * 2

    with record_shapes() as calm:
        for _ in range(7):
            steady(tf.ones(2))
    assert calm.report.codes() == []
    with record_shapes(thresholds=ShapeThresholds(retrace_limit=10)) as lenient:
        for k in range(7):
            scale(tf.ones(3), k + 100)
    assert lenient.report.codes() == []
