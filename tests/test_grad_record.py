"""record_gradients / probe_gradients with real Keras models: fit, XLA, custom loops, restore."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
from keras.src.optimizers.base_optimizer import BaseOptimizer
from keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer

import tfnb_debug
from tfnb_debug import collect
from tfnb_debug.collect import gradients as collect_gradients
from tfnb_debug.ground.errors import TfnbDebugError

ROOT = Path(__file__).resolve().parents[1]
ORIGINALS = {
    "apply": BaseOptimizer.__dict__["apply"],
    "lso": LossScaleOptimizer.__dict__["apply"],
    "make": TensorFlowTrainer.__dict__["make_train_function"],
    "gradient": tf.GradientTape.__dict__["gradient"],
}
assert collect is not None


def data(n: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 4)).astype("float32"), rng.integers(0, 3, n)


def small_model(name: str = "net", *, jit: bool = False, lr: float = 0.01) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu", name="d1"),
            keras.layers.Dense(3, name="out"),
        ],
        name=name,
    )
    model.compile(
        keras.optimizers.SGD(lr),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit,
    )
    return model


def assert_restored() -> None:
    assert BaseOptimizer.__dict__["apply"] is ORIGINALS["apply"]
    assert LossScaleOptimizer.__dict__["apply"] is ORIGINALS["lso"]
    assert TensorFlowTrainer.__dict__["make_train_function"] is ORIGINALS["make"]
    assert tf.GradientTape.__dict__["gradient"] is ORIGINALS["gradient"]
    assert collect_gradients.active_capture() is None


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_fit_records_every_step_with_loss(jit: bool) -> None:
    x, y = data()
    model = small_model(jit=jit)
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    report = rec.result()
    h = report.history
    assert report.source == "model.fit" and report.model_name == "net"
    assert h.total_steps == 8 and list(h.steps) == list(range(8))
    assert [v.path for v in h.variables] == [
        "net/d1/kernel",
        "net/d1/bias",
        "net/out/kernel",
        "net/out/bias",
    ]
    # the per-step losses average to the epoch losses Keras reports
    assert h.loss_known.all()
    np.testing.assert_allclose(h.loss[:4].mean(), history.history["loss"][0], rtol=1e-5)
    np.testing.assert_allclose(h.loss[4:].mean(), history.history["loss"][1], rtol=1e-5)
    norms = h.column("grad_norm")
    assert np.all(np.isfinite(norms)) and np.all(norms > 0)
    # update norm equals lr * grad norm for plain SGD
    np.testing.assert_allclose(h.column("update_norm"), 0.01 * norms, rtol=1e-4)
    # every finite non-zero gradient entry lands in one histogram bin
    sizes = np.array([32, 8, 24, 3])
    nonzero = np.round((1 - h.column("zero_fraction")) * sizes)
    np.testing.assert_allclose(h.hist.sum(axis=2), nonzero)
    if jit:
        assert any("XLA" in n for n in report.notes)
    assert_restored()


def test_gradient_norm_matches_an_independent_tape() -> None:
    x, y = data(16)
    model = small_model()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    with tf.GradientTape() as tape:
        loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
    expected = [float(tf.norm(g)) for g in tape.gradient(loss, model.trainable_variables)]
    with tfnb_debug.record_gradients() as rec:
        model.train_on_batch(x, y)
    got = rec.result().history.column("grad_norm")[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    np.testing.assert_allclose(rec.result().history.loss[0], float(loss), rtol=1e-5)


def test_every_and_max_steps_bound_the_records() -> None:
    x, y = data()
    model = small_model()
    with tfnb_debug.record_gradients(every=3, max_steps=2) as rec:
        model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    h = rec.result().history
    assert h.total_steps == 16
    assert list(h.steps) == [0, 3]
    assert any("recording stopped" in line for line in rec.result().summary)


def test_steps_per_execution_still_records_every_step() -> None:
    # the records are written inside the step, so a multi-step execution loses none
    x, y = data(64)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)], name="spe")
    model.compile(
        "sgd",
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        steps_per_execution=4,
    )
    with tfnb_debug.record_gradients() as rec:
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    h = rec.result().history
    assert list(h.steps) == list(range(8)) and np.isfinite(h.loss).all()


def custom_loop(model: keras.Model, opt: keras.optimizers.Optimizer, *, compiled: bool, how: str):
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        if how == "apply":
            opt.apply(grads, model.trainable_variables)
        else:
            opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    return tf.function(step) if compiled else step


@pytest.mark.parametrize(
    ("compiled", "how"),
    [(False, "apply_gradients"), (True, "apply_gradients"), (True, "apply")],
    ids=["eager", "tf.function", "tf.function-apply"],
)
def test_custom_loops_are_recorded(compiled: bool, how: str) -> None:
    x, y = data(32)
    model = small_model("loop")
    opt = keras.optimizers.Adam(1e-3)
    with tfnb_debug.record_gradients(watch=[model, opt]) as rec:
        step = custom_loop(model, opt, compiled=compiled, how=how)
        losses = [float(step(x[i : i + 8], y[i : i + 8])) for i in range(0, 32, 8)]
    report = rec.result()
    assert report.source == "custom loop" and report.model_name == "loop"
    assert report.history.total_steps == 4
    np.testing.assert_allclose(report.history.loss, losses, rtol=1e-6)
    assert report.for_layer("d1").variables == ("loop/d1/kernel", "loop/d1/bias")
    assert report.for_layer("loop/out").grad_norm.shape == (4,)
    assert_restored()


def test_stale_tf_function_and_no_step_give_one_line_errors() -> None:
    x, y = data(16)
    model = small_model("stale")
    opt = keras.optimizers.SGD(0.1)
    step = custom_loop(model, opt, compiled=True, how="apply_gradients")
    step(x, y)
    graph = step.get_concrete_function(x, y)  # traced before recording: no hook enters it
    with tfnb_debug.record_gradients(watch=[model, opt]) as rec:
        graph(x, y)
    with pytest.raises(TfnbDebugError, match="traced before recording"):
        rec.result()
    with tfnb_debug.record_gradients(watch=[model, opt]) as rec:
        model.predict(x, verbose=0)
    with pytest.raises(TfnbDebugError, match="took no optimizer step"):
        rec.result()


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
@pytest.mark.slow
def test_everything_is_restored_after_an_error_or_interrupt(error: type[BaseException]) -> None:
    x, y = data()
    model = small_model("restore")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    plain = model.train_function
    fresh = small_model("fresh")

    class Stop(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):  # type: ignore[no-untyped-def]
            if batch == 1:
                raise error("stop here")

    with pytest.raises(error, match="stop here"), tfnb_debug.record_gradients() as rec:
        fresh.fit(x, y, batch_size=16, epochs=1, verbose=0)
        model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[Stop()])
    assert_restored()
    assert model.train_function is plain  # the uninstrumented function is back
    assert fresh.train_function is None  # built inside: rebuilt plain next time
    # the partial report is there, up to the interrupted step
    assert rec.report is not None and rec.steps_taken == 4 + 2
    assert rec.report.for_layer("restore/d1").grad_norm.shape == (4,)  # 2 records, padded
    assert np.isfinite(rec.report.for_layer("restore/d1").grad_norm).sum() == 2
    assert any("2 optimizer/variable groups" in n for n in rec.report.notes)
    # two models fitted: the title names both, not the first alone
    assert rec.report.model_name is None
    assert rec.report.title.startswith("Gradients of models 'fresh' and 'restore':")
    # a later plain fit is not recorded by anything and keeps the plain function
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert model.train_function is plain
    with tfnb_debug.record_gradients() as again:
        fresh.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert again.result().history.total_steps == 4  # nothing left over from before


def test_nested_recording_is_refused() -> None:
    with (
        tfnb_debug.record_gradients(),
        pytest.raises(TfnbDebugError, match="already"),
        tfnb_debug.record_gradients(),
    ):
        pass
    assert_restored()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_every_is_a_one_line_error(bad: object) -> None:
    with pytest.raises(TfnbDebugError, match="every"):
        tfnb_debug.record_gradients(every=bad)  # type: ignore[arg-type]


@pytest.mark.slow
def test_loss_scale_optimizer_gradients_are_unscaled() -> None:
    x, y = data(32)
    reference = small_model("ref", lr=0.0)
    reference.fit(x[:8], y[:8], batch_size=8, epochs=1, verbose=0)
    try:
        keras.mixed_precision.set_global_policy("mixed_float16")
        model = keras.Sequential(
            [
                keras.Input((4,)),
                keras.layers.Dense(8, activation="relu", name="d1"),
                keras.layers.Dense(3, name="out", dtype="float32"),
            ],
            name="mp",
        )
        model.set_weights(reference.get_weights())
        model.compile(
            keras.optimizers.SGD(0.0),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        )
        assert isinstance(model.optimizer, LossScaleOptimizer)
        with tfnb_debug.record_gradients() as rec:
            model.fit(x[:8], y[:8], batch_size=8, epochs=2, verbose=0)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    with tfnb_debug.record_gradients() as ref:
        reference.fit(x[:8], y[:8], batch_size=8, epochs=2, verbose=0)
    got = rec.result().history
    want = ref.result().history
    # float16 compute: close to the float32 gradients, not 32768x larger
    np.testing.assert_allclose(got.column("grad_norm"), want.column("grad_norm"), rtol=2e-2)
    np.testing.assert_allclose(got.loss, want.loss, rtol=2e-2)
    assert any("unscaled" in n for n in rec.result().notes)
    assert_restored()


def bn_dropout_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, name="d1"),
            keras.layers.BatchNormalization(name="bn"),
            keras.layers.Dropout(0.5, name="drop"),
            keras.layers.Dense(3, name="out"),
        ],
        name="probe_me",
    )
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def test_probe_takes_no_step_and_restores_every_variable_bit_for_bit() -> None:
    x, y = data(32)
    model = bn_dropout_model()
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # builds the optimizer state
    variables = {
        id(v): v for v in [*model.variables, *model.optimizer.variables, *model.metrics_variables]
    }
    before = {k: np.array(v.numpy(), copy=True) for k, v in variables.items()}
    report = tfnb_debug.probe_gradients(model, x[:16], y[:16])
    for key, value in before.items():
        assert np.array_equal(variables[key].numpy(), value), variables[key].path
    # and the probe really ran in training mode: BN statistics would have moved
    assert report.source == "probe" and report.history.n_records == 1
    assert np.all(report.history.column("grad_norm") > 0)
    assert np.isnan(report.history.column("update_norm")).all()  # no step, no update
    # same gradients as an explicit tape on the same batch (BN in training mode, no dropout noise
    # on the first kernel of out? dropout is random, so compare only the BN-independent d1 bias)
    assert report.for_layer("bn").variables == ("probe_me/bn/gamma", "probe_me/bn/beta")
    assert "restored bit for bit" in report.summary[0]


def test_probe_with_an_explicit_loss_and_bad_inputs() -> None:
    x, y = data(16)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="out")], name="raw")
    with pytest.raises(TfnbDebugError, match="not compiled with a loss"):
        tfnb_debug.probe_gradients(model, x, y)
    report = tfnb_debug.probe_gradients(model, x, y, loss="sparse_categorical_crossentropy")
    assert report.history.loss_known.all()
    assert "M02" in report.codes()  # linear output, from_logits=False by name
    with pytest.raises(TfnbDebugError, match="unknown loss"):
        tfnb_debug.probe_gradients(model, x, y, loss="no_such_loss")
    with pytest.raises(TfnbDebugError, match="forward pass"):
        tfnb_debug.probe_gradients(model, x[:, :2], y, loss="mse")
    with pytest.raises(TfnbDebugError, match="Keras model"):
        tfnb_debug.probe_gradients(object(), x, y)


MIRRORED = textwrap.dedent(
    """
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import tensorflow as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    import keras, numpy as np, tfnb_debug
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    assert strategy.num_replicas_in_sync == 2
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype("float32"); y = rng.integers(0, 3, 64)
    with strategy.scope():
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                                  keras.layers.Dense(3)], name="mirrored")
        model.compile(keras.optimizers.SGD(0.1),
                      keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with tfnb_debug.record_gradients() as rec:
        with strategy.scope():
            hist = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    h = rec.result().history
    assert h.total_steps == 8, h.total_steps
    assert np.all(np.isfinite(h.column("grad_norm"))) and np.all(h.column("grad_norm") > 0)
    np.testing.assert_allclose(h.loss[:4].mean(), hist.history["loss"][0], rtol=1e-5)
    # the statistics are those of the summed gradient: update = lr * grad for SGD
    np.testing.assert_allclose(h.column("update_norm"), 0.1 * h.column("grad_norm"), rtol=1e-4)
    assert any("2 replicas" in n for n in rec.result().notes)
    print("MIRRORED-OK")
    """
)


@pytest.mark.slow
def test_mirrored_strategy_fit_is_recorded_in_a_subprocess(tmp_path: Path) -> None:
    script = tmp_path / "mirrored.py"
    script.write_text(MIRRORED)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "MIRRORED-OK" in done.stdout
