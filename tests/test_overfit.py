"""%tfoverfit / overfit_small_batch: the model learns, then every state is restored bit for bit."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._keras_examples import gan, vae
from tests._support import run_magic
from tfnb_debug.collect.snapshot import global_seed_generator
from tfnb_debug.features.overfit import OverfitThresholds, overfit_small_batch
from tfnb_debug.ground.errors import TfnbDebugError

RS = np.random.RandomState(0)
X = RS.rand(32, 8).astype("float32")
Y = RS.randint(0, 3, 32)


def classifier(*, from_logits: bool = False, optimizer: object = None) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input((8,)),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    model.compile(
        optimizer=optimizer or keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits),
    )
    model.fit(X, Y, epochs=1, batch_size=16, verbose=0)  # optimizer state exists
    return model


def state(model: keras.Model) -> list[bytes]:
    return [v.numpy().tobytes() for v in [*model.variables, *model.optimizer.variables]]


def test_memorizes_and_leaves_the_model_untouched() -> None:
    keras.utils.set_random_seed(0)  # 60 steps were not enough for every initialisation
    model = classifier()
    before = state(model)
    train_function = model.train_function
    report = overfit_small_batch(model, (X, Y), samples=16, steps=150)
    assert report.memorized and report.accuracy == 1.0
    # it stopped once a check (in inference mode, as the verdict) found the examples memorized
    assert report.samples == 16 and report.steps < 150 and len(report.losses) == report.steps
    assert f"stopped once memorized, after {report.steps} of 150 steps" in report.to_text()
    assert report.final_loss < report.initial_loss
    assert report.findings == ()
    assert state(model) == before
    assert model.train_function is train_function
    assert 'aria-label="training loss per step on the examples"' in report.to_html()


def test_cannot_memorize_and_points_to_lint_findings() -> None:
    model = classifier(from_logits=True, optimizer=keras.optimizers.SGD(1e-6))
    before = state(model)
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)
    report = overfit_small_batch(model, ds, samples=16, steps=10, plot=False)
    assert not report.memorized
    assert report.samples == 16
    assert "M01" in report.codes()
    assert "NO:" in report.summary[0]
    assert state(model) == before


def test_regression_uses_the_loss_ratio_and_unbatched_datasets_work() -> None:
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(32, "tanh"), keras.layers.Dense(1)]
    )
    model.compile(optimizer=keras.optimizers.Adam(3e-2), loss="mse")
    target = X[:, :1] * 2 - 1
    ds = tf.data.Dataset.from_tensor_slices((X, target))  # not batched
    report = overfit_small_batch(model, ds, samples=8, steps=80, plot=False)
    assert report.accuracy is None and report.samples == 8
    assert report.memorized, report.to_text()
    strict = overfit_small_batch(
        model, ds, samples=8, steps=2, plot=False, thresholds=OverfitThresholds(loss_ratio=1e-9)
    )
    assert not strict.memorized


def test_augmentation_is_switched_off_during_the_check_only() -> None:
    model = keras.Sequential(
        [
            keras.Input((4, 4, 1)),
            keras.layers.RandomFlip(name="flip"),
            keras.layers.Flatten(),
            keras.layers.Dense(2, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    images = RS.rand(8, 4, 4, 1).astype("float32")
    before = state(model)
    report = overfit_small_batch(model, (images, Y[:8] % 2), samples=8, steps=3, plot=False)
    assert report.augmentation_removed == ("flip",)
    assert isinstance(model.layers[0], keras.layers.RandomFlip)
    assert "call" not in vars(model.layers[0])  # the inference-mode switch is gone
    assert state(model) == before


def test_bad_input() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
    with pytest.raises(TfnbDebugError, match="not compiled"):
        overfit_small_batch(model, (X, Y))
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(TfnbDebugError, match=r"\(x, y\)"):
        overfit_small_batch(model, X)
    with pytest.raises(TfnbDebugError, match="positive"):
        overfit_small_batch(model, (X, Y), steps=0)


def test_magic(shell: InteractiveShell) -> None:
    shell.user_ns.update(om=classifier(), ox=X, oy=Y)
    shown = run_magic(shell, "%tfoverfit -q -o om (ox,oy) --samples 8 --steps 5")
    assert shown.result is not None and shown.result.samples == 8
    assert shown.result.steps == 5 and shown.outputs == []
    shown = run_magic(shell, "%tfoverfit om (ox,oy) --samples 4 --steps 2")
    assert "overfit check" in shown.text
    with pytest.raises(UsageError, match="not compiled"):
        shell.user_ns["raw"] = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
        run_magic(shell, "%tfoverfit raw (ox,oy)")


def full_state(model: keras.Model, *optimizers: keras.optimizers.Optimizer) -> list[bytes]:
    """Weights, metric variables, the optimizers' variables and Keras' global seed state."""
    variables = [*model.variables, *(v for m in model.metrics for v in m.variables)]
    for optimizer in optimizers or (model.optimizer,):
        variables += optimizer.variables
    gen = global_seed_generator()
    if gen is not None:
        variables.append(gen.state)
    return [v.numpy().tobytes() for v in variables]


def test_model_compiled_with_metrics() -> None:
    # before: TypeError "float() argument must be ... not 'list'" from model.evaluate's list
    model = classifier()
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    report = overfit_small_batch(model, (X, Y), samples=8, steps=3, plot=False)
    assert report.steps == 3 and report.loss_key == "loss"
    assert 0 < report.initial_loss < 10 and report.accuracy is not None


class Scaled(keras.layers.Layer):
    """A custom layer with a constructor argument and no get_config: it cannot be cloned."""

    def __init__(self, factor: float, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return inputs * self.factor


def guarded_model(*, fit: bool, run_eagerly: bool = False, extra: object = None) -> keras.Model:
    inp = keras.Input((8,))
    hidden = keras.layers.Dense(16, activation="relu")(inp)
    hidden = keras.layers.BatchNormalization()(hidden)
    hidden = keras.layers.Dropout(0.2)(hidden)
    hidden = Scaled(0.5, name="scaled")(hidden)
    if extra is not None:
        hidden = extra(hidden)  # type: ignore[operator]
    out = keras.layers.Dense(3, activation="softmax")(hidden)
    model = keras.Model(inp, out, name="guarded")
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        run_eagerly=run_eagerly,
    )
    if fit:
        model.fit(X, Y, epochs=1, batch_size=16, verbose=0)
    return model


@pytest.mark.slow
def test_custom_layer_without_get_config_trains_and_every_state_is_restored() -> None:
    # before: "cannot copy model 'guarded' ... subclassed models need get_config()"
    keras.random.normal((1,))  # Keras' global seed generator exists and must not move
    model = guarded_model(fit=True)
    before = full_state(model)
    seed_before = global_seed_generator()
    numpy_before = np.random.get_state()[1].copy()
    history, train_function = model.history, model.train_function
    model.stop_training = False
    report = overfit_small_batch(model, (X, Y), samples=8, steps=20, plot=False)
    assert report.steps == 20 and report.losses[-1] < report.losses[0]
    assert full_state(model) == before
    assert global_seed_generator() is seed_before
    assert (np.random.get_state()[1] == numpy_before).all()
    assert model.history is history and model.train_function is train_function
    assert model.stop_training is False
    assert "restored bit for bit" in report.to_text()


@pytest.mark.slow
def test_an_unbuilt_optimizer_stays_unbuilt() -> None:
    model = guarded_model(fit=False)
    optimizer = model.optimizer
    count = len(optimizer.variables)
    assert not optimizer.built
    overfit_small_batch(model, (X, Y), samples=8, steps=3, plot=False)
    assert model.optimizer is optimizer and not optimizer.built
    assert len(optimizer.variables) == count and int(optimizer.iterations.numpy()) == 0
    assert all(not v.numpy().any() for m in model.metrics for v in m.variables)


class Interrupt(keras.layers.Layer):
    """Raises ``error`` on its third training call (eager only)."""

    def __init__(self, error: BaseException, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.calls = 0

    def call(self, inputs: tf.Tensor, training: bool | None = None) -> tf.Tensor:
        if training:
            self.calls += 1
            if self.calls == 3:
                raise self.error
        return inputs


@pytest.mark.parametrize("error", [RuntimeError("boom in my layer"), KeyboardInterrupt()])
def test_state_is_restored_when_training_raises(error: BaseException) -> None:
    model = guarded_model(fit=True, run_eagerly=True, extra=Interrupt(error))
    before = full_state(model)
    iterations = int(model.optimizer.iterations.numpy())
    with pytest.raises(type(error)) as raised:
        overfit_small_batch(model, (X, Y), samples=8, steps=10, plot=False)
    assert type(raised.value) is type(error)  # the user's own exception (Keras adds context)
    assert str(error) in str(raised.value)
    assert full_state(model) == before
    assert int(model.optimizer.iterations.numpy()) == iterations


@pytest.mark.slow
def test_vae_trains_through_its_own_train_step() -> None:
    # before: "MODEL 'vae' is not built yet" / "not compiled" (no loss in compile)
    model = vae()
    model.fit(X, epochs=1, batch_size=16, verbose=0)
    before = full_state(model)
    report = overfit_small_batch(model, X, samples=16, steps=30, plot=False)
    assert report.own_train_step and report.loss_key == "loss" and report.steps == 30
    assert report.initial_loss == report.losses[0] and report.final_loss == report.losses[-1]
    assert report.final_loss < report.initial_loss
    assert "own train_step" in report.to_text()
    assert full_state(model) == before


@pytest.mark.slow
def test_gan_needs_a_loss_key_and_keeps_its_two_optimizers() -> None:
    model = gan()
    optimizers = (model.d_optimizer, model.g_optimizer)
    with pytest.raises(TfnbDebugError, match="d_loss, g_loss"):
        overfit_small_batch(model, X, steps=2, plot=False)
    report = overfit_small_batch(model, X, steps=3, plot=False, loss_key="g_loss")
    assert report.loss_key == "g_loss" and report.steps == 3
    assert not any(o.built for o in optimizers)  # unbuilt before, unbuilt after
    model.fit(X, epochs=1, batch_size=16, verbose=0)
    before = full_state(model, *optimizers)
    overfit_small_batch(model, X, steps=3, plot=False, loss_key="d_loss")
    assert full_state(model, *optimizers) == before
    assert model.d_optimizer is optimizers[0] and model.g_optimizer is optimizers[1]


@pytest.mark.slow
def test_magic_loss_key(shell: InteractiveShell) -> None:
    shell.user_ns.update(og=gan(), ox=X)
    shown = run_magic(shell, "%tfoverfit -q -o og ox --steps 2 --loss-key g_loss")
    assert shown.result is not None and shown.result.loss_key == "g_loss"
    with pytest.raises(UsageError, match="--loss-key"):
        run_magic(shell, "%tfoverfit og ox --steps 2")


@pytest.mark.slow
def test_categorical_loss_over_one_unit_is_not_memorized_and_says_m03() -> None:
    """The loss of a softmax over one value is 0 from the start: that is not memorizing."""
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(8, "relu"), keras.layers.Dense(1, "sigmoid")]
    )
    model.compile(optimizer="adam", loss=keras.losses.CategoricalCrossentropy())
    report = overfit_small_batch(model, (X, (Y > 0).astype("float32")[:, None]))
    assert not report.memorized, report.to_text()
    assert "M03" in report.codes() and "single output unit" in report.to_text()


def test_the_loss_curve_is_drawn_only_when_the_report_is_shown() -> None:
    from matplotlib.figure import Figure

    report = overfit_small_batch(classifier(), (X, Y), samples=8, steps=5)
    assert report.sections == () and "_html" not in vars(report)  # nothing drawn yet
    text = report.to_text()
    assert f"[loss]\nloss: {report.losses[0]:.4g} -> {report.losses[-1]:.4g} over 5 steps" in text
    assert "_html" not in vars(report)
    html = report.to_html()
    assert html.count("<svg") == 1 and report.to_html() is html  # drawn once, inline SVG
    assert "data:image/png" not in html
    assert isinstance(report.figure(), Figure)  # a matplotlib figure only when asked for
    quiet = overfit_small_batch(classifier(), (X, Y), samples=8, steps=2, plot=False)
    assert "<svg" not in quiet.to_html() and "[loss]" not in quiet.to_text()
    assert isinstance(quiet.figure(), Figure)  # still there when asked for


def test_a_sequential_without_input_is_built_on_the_data_and_memorizes() -> None:
    """It used to refuse ("not built yet") a model its own fit would build from the data."""
    model = keras.Sequential(
        [keras.layers.Dense(32, activation="relu"), keras.layers.Dense(3, activation="softmax")]
    )
    model.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy")
    report = overfit_small_batch(model, (X, Y), steps=200)
    assert model.built and report.memorized, report.summary
