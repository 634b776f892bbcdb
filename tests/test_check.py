"""%%tfcheck / run_checked: in-graph NaN/Inf checks in fit, custom loops, XLA; all restored."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from keras.src.backend.tensorflow.trainer import TensorFlowTrainer
from keras.src.layers.layer import Layer
from keras.src.losses.loss import Loss
from keras.src.optimizers.base_optimizer import BaseOptimizer

from tests._support import run_magic
from tfnb_debug.features.check import CheckReport, CheckThresholds, run_checked
from tfnb_debug.ground.errors import TfnbDebugError

RS = np.random.RandomState(0)
X = RS.randn(32, 4).astype("float32")
Y = RS.randn(32, 1).astype("float32")
MAKERS = ("make_train_function", "make_test_function", "make_predict_function")


def patch_targets() -> tuple[object, ...]:
    return (
        Layer.__dict__["__call__"],
        Layer.__dict__["_maybe_build"],
        Loss.__dict__["__call__"],
        BaseOptimizer.__dict__["apply"],
        *(TensorFlowTrainer.__dict__[name] for name in MAKERS),
    )


ORIGINALS = patch_targets()


class Log(keras.layers.Layer):
    def call(self, x):
        doubled = x * 2.0
        return tf.math.log(doubled)  # NaN for negative inputs


class ZeroNorm(keras.layers.Layer):
    """Finite forward pass, NaN gradient: the norm of a zero vector."""

    def call(self, x):
        return x + tf.norm(x - x, axis=-1, keepdims=True)


class NormScale(keras.layers.Layer):
    """NaN only in its own weight's gradient (the norm of w - w), finite everywhere else."""

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return x * self.w + tf.norm(self.w - self.w)


def log_loss(y_true, y_pred):
    return keras.ops.mean(keras.ops.log(y_pred - 100.0))  # NaN: outputs are far below 100


def model_with(*middle: keras.layers.Layer, loss: object = "mse", jit: bool = False) -> keras.Model:
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8), *middle, keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss=loss, jit_compile=jit)
    return model


def patches_restored() -> bool:
    return all(a is b for a, b in zip(patch_targets(), ORIGINALS, strict=True))


def fit(model: keras.Model, x: np.ndarray = X, epochs: int = 1) -> object:
    return model.fit(x, Y, epochs=epochs, batch_size=8, shuffle=False, verbose=0)


def test_clean_fit_counts_steps_and_restores_the_train_function() -> None:
    model = model_with(keras.layers.Activation("relu"))
    fit(model)
    cached = model.train_function
    _, report = run_checked(lambda: fit(model, epochs=2), models=[model])
    assert not report.stopped and report.findings == ()
    assert report.steps == 8
    assert len(report.layers_checked) == 4 and len(report.gradients_checked) == 4
    assert report.losses_checked
    assert model.train_function is cached
    assert patches_restored()


def test_n01_in_fit_names_layer_op_and_source_line() -> None:
    model = model_with(Log(name="log"))
    _, report = run_checked(lambda: fit(model), models=[model])
    assert report.stopped and report.codes() == ["N01"]
    failure = report.failure
    assert failure.place.endswith("/log") and failure.layer_class == "Log"
    assert failure.step == 0 and not failure.eager
    assert failure.op is not None and failure.op.op_type == "Log"
    assert "test_check.py" in failure.op.source and "tf.math.log" in failure.op.source
    assert patches_restored() and model.train_function is None


def test_n01_silent_when_the_log_gets_positive_inputs() -> None:
    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(8, activation="softplus"),
            Log(),
            keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer=keras.optimizers.SGD(1e-4), loss="mse")
    _, report = run_checked(lambda: fit(model), models=[model])
    assert not report.stopped, report.to_text()


def test_n05_for_nan_in_the_batch_at_the_right_step() -> None:
    model = model_with()
    x = X.copy()
    x[17, 2] = np.nan  # third batch of 8
    _, report = run_checked(lambda: fit(model, x), models=[model])
    assert report.codes() == ["N05"]
    assert report.failure.step == 2


def test_g05_for_a_nan_loss_with_finite_outputs() -> None:
    model = model_with(loss=log_loss)
    _, report = run_checked(lambda: fit(model), models=[model])
    assert report.codes() == ["G05"]


def test_g03_for_a_nan_gradient_with_finite_forward_pass() -> None:
    model = model_with(ZeroNorm(name="zero_norm"))
    _, report = run_checked(lambda: fit(model), models=[model])
    assert report.codes() == ["G03"], report.to_text()
    assert report.failure.kind == "backward"
    assert report.findings[0].place.endswith("/zero_norm")


def test_g03_names_the_variable_whose_gradient_is_nan() -> None:
    model = model_with(NormScale(name="norm_scale"))
    _, report = run_checked(lambda: fit(model), models=[model])
    assert report.codes() == ["G03"], report.to_text()
    assert report.failure.kind == "gradient"
    assert report.failure.place.endswith("norm_scale/w") and report.failure.step == 0


def test_xla_is_switched_off_for_the_run_and_restored() -> None:
    model = model_with(Log(name="log"), jit=True)
    assert model.jit_compile is True
    _, report = run_checked(lambda: fit(model), models=[model])
    assert report.xla_switched_off == (model.name,)
    assert report.codes() == ["N01"]
    assert model.jit_compile is True
    assert "XLA switched off" in report.to_text()

    made: list[keras.Model] = []

    def build_and_fit() -> None:  # a model created inside the run is adopted too
        made.append(model_with(Log(name="log"), jit=True))
        fit(made[0])

    _, report = run_checked(build_and_fit)
    assert report.codes() == ["N01"] and report.xla_switched_off == (made[0].name,)
    assert made[0].jit_compile is True and made[0].train_function is None
    assert patches_restored()


def test_custom_loop_in_tf_function_and_retracing() -> None:
    model = model_with(Log(name="log"))
    optimizer = keras.optimizers.SGD(0.01)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = keras.losses.MeanSquaredError()(y, model(x, training=True))
        optimizer.apply_gradients(
            zip(tape.gradient(loss, model.trainable_weights), model.trainable_weights, strict=True)
        )
        return loss

    _, report = run_checked(lambda: step(X[:8], Y[:8]), models=[model])
    assert report.codes() == ["N01"] and not report.failure.eager

    @tf.function
    def scaled(x, factor):
        return x * factor

    _, report = run_checked(lambda: [scaled(X, float(i)) for i in range(7)])
    assert report.codes() == ["T01"]
    _, report = run_checked(
        lambda: [scaled(X, float(i)) for i in range(7)],
        thresholds=CheckThresholds(retrace_limit=10),
    )
    assert report.codes() == []
    with pytest.raises(TfnbDebugError):
        CheckThresholds(retrace_limit=0)


def test_user_exceptions_propagate_and_everything_is_restored() -> None:
    model = model_with(jit=True)
    seen: list[CheckReport] = []

    def boom() -> None:
        fit(model)
        raise ValueError("user bug")

    with pytest.raises(ValueError, match="user bug"):
        run_checked(boom, models=[model], on_error=seen.append)
    assert seen and seen[0].steps == 4
    assert patches_restored() and model.jit_compile is True

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_checked(interrupted, models=[model])
    assert patches_restored()


def test_magic_stops_the_cell_and_shows_the_report(shell: InteractiveShell) -> None:
    shell.user_ns.update(cm=model_with(Log(name="log")), cx=X, cy=Y)
    with pytest.raises(UsageError, match="N01"):
        run_magic(shell, "%%tfcheck", cell="cm.fit(cx, cy, batch_size=8, verbose=0)")
    assert patches_restored()
    shell.user_ns["cm"] = model_with()
    shown = run_magic(shell, "%%tfcheck -q", cell="cm.fit(cx, cy, batch_size=8, verbose=0)\n41 + 1")
    assert shown.result == 42 and shown.outputs == []
    shown = run_magic(shell, "%%tfcheck -o", cell="cm.fit(cx, cy, batch_size=8, verbose=0)")
    assert shown.result.steps == 4 and "no NaN/Inf" in shown.text
    with pytest.raises(UsageError, match="retrace-limit"):
        run_magic(shell, "%%tfcheck --retrace-limit 0", cell="1")


def test_conv_flatten_dense_trains_under_checks() -> None:
    """Regression: a shape-less stash variable made Grappler feed Dense the unflattened input."""
    model = keras.Sequential(
        [
            keras.Input((6, 6, 1)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(3),
        ]
    )
    model.compile(
        optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    images = RS.rand(16, 6, 6, 1).astype("float32")
    labels = RS.randint(0, 3, 16)
    _, report = run_checked(
        lambda: model.fit(images, labels, batch_size=8, verbose=0), models=[model]
    )
    assert not report.stopped and report.steps == 2


def test_loss_scale_overflow_is_not_reported_under_mixed_precision() -> None:
    """LossScaleOptimizer overflows float16 gradients on purpose and skips the step."""
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = keras.Sequential(
            [
                keras.Input((4,)),
                keras.layers.Dense(8),
                keras.layers.Dense(1, dtype="float32"),
            ]
        )
    finally:
        keras.mixed_precision.set_global_policy("float32")
    optimizer = keras.optimizers.LossScaleOptimizer(
        keras.optimizers.SGD(0.01), initial_scale=2.0**40
    )
    model.compile(optimizer=optimizer, loss="mse")
    _, report = run_checked(lambda: fit(model), models=[model])
    assert not report.stopped, report.to_text()
    assert float(optimizer.scale_loss(tf.constant(1.0))) < 2.0**40  # it did overflow and back off


def test_a_step_error_reported_as_cancelled_after_a_guard_failed_is_still_the_guard() -> None:
    """Several guards of one step failing together may reach the user as a CancelledError
    without any message of ours (TensorFlow reports one of the aborted ops): the failing
    guard noted itself first, so the run still owns the error and names the loss."""
    from tfnb_debug.collect.check import NumericsChecks

    model = model_with(loss=log_loss)
    checks = NumericsChecks([model])
    with pytest.raises(tf.errors.InvalidArgumentError) as raised, checks:
        fit(model)
    assert checks.owns(raised.value)
    reported = checks.record_failure(raised.value)
    cancelled = tf.errors.CancelledError(None, None, "Graph execution error: cancelled")
    assert checks.owns(cancelled)
    as_cancelled = checks.record_failure(cancelled)
    assert (as_cancelled.kind, as_cancelled.place) == (reported.kind, reported.place)
    assert as_cancelled.message == "check_numerics: Tensor had NaN values"
    assert patches_restored()


def test_an_error_of_the_step_with_no_failed_guard_is_the_users() -> None:
    from tfnb_debug.collect.check import NumericsChecks

    model = model_with()
    checks = NumericsChecks([model])
    with checks:
        fit(model)
    assert not checks.owns(tf.errors.CancelledError(None, None, "cancelled"))
    assert not checks.owns(tf.errors.InvalidArgumentError(None, None, "Incompatible shapes"))
