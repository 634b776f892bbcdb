"""The update norm of a large variable read from the optimizer's own writes
(collect/update_deltas.py): equal to |w_new - w_old| for Keras' optimizers, compiled or
not, and never a wrong value where a write is not seen whole."""

from __future__ import annotations

from collections.abc import Callable

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnb_debug.collect.grad_stats import SAMPLE
from tfnb_debug.collect.gradients import GradientCapture
from tfnb_debug.collect.update_deltas import reads_updates, updates_of
from tfnb_debug.records.gradients import U_NORM, W_NORM

OPTIMIZERS: dict[str, Callable[[], keras.optimizers.Optimizer]] = {
    "adam": lambda: keras.optimizers.Adam(1e-3),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "rmsprop_centered": lambda: keras.optimizers.RMSprop(1e-3, momentum=0.5, centered=True),
    "ftrl": lambda: keras.optimizers.Ftrl(0.05),  # writes the variable with `assign`
    "lion": lambda: keras.optimizers.Lion(1e-4),
    "adamw": lambda: keras.optimizers.AdamW(1e-3),  # weight decay: the held copy
}


def wide_model(optimizer: keras.optimizers.Optimizer, *, jit: bool = False) -> keras.Model:
    """A model whose middle kernel is above SAMPLE values (its copy is what the new path
    avoids) beside small variables (the stacked path)."""
    keras.utils.set_random_seed(3)
    model = keras.Sequential(
        [
            keras.Input((12, 12, 1)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(5),
        ]
    )
    model.compile(
        optimizer,
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit,
    )
    assert max(int(np.prod(v.shape)) for v in model.trainable_variables) > SAMPLE
    return model


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.random((32, 12, 12, 1), dtype=np.float32), rng.integers(0, 5, 32)


class Snapshots(keras.callbacks.Callback):
    """The trainable weights before the first batch and after each."""

    def __init__(self) -> None:
        super().__init__()
        self.weights: list[list[np.ndarray]] = []

    def on_train_begin(self, logs: object = None) -> None:
        self.weights.append([v.numpy().copy() for v in self.model.trainable_variables])

    def on_train_batch_end(self, batch: int, logs: object = None) -> None:
        self.weights.append([v.numpy().copy() for v in self.model.trainable_variables])


def assert_norms_match(stats: np.ndarray, weights: list[list[np.ndarray]]) -> None:
    for step in range(len(weights) - 1):
        before, after = weights[step], weights[step + 1]
        w = [np.linalg.norm(b) for b in before]
        u = [np.linalg.norm(a.astype(np.float64) - b) for a, b in zip(after, before, strict=True)]
        np.testing.assert_allclose(stats[step, :, W_NORM], w, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(stats[step, :, U_NORM], u, rtol=1e-3, atol=1e-7)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_fit_records_the_update_each_step_made(name: str) -> None:
    optimizer = OPTIMIZERS[name]()
    model = wide_model(optimizer)
    x, y = data()
    snapshots = Snapshots()
    with GradientCapture() as capture:
        model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[snapshots])
    history = capture.data[0]
    assert history.n_records == 4
    assert_norms_match(history.stats, snapshots.weights)
    assert reads_updates(optimizer) is (name != "adamw")
    for method in ("assign", "assign_add", "assign_sub"):
        assert method not in vars(optimizer)  # the instance's hooks are gone


def test_xla_compiled_fit_and_a_custom_loop_agree_with_the_weights() -> None:
    x, y = data()
    model = wide_model(keras.optimizers.Adam(1e-3), jit=True)
    snapshots = Snapshots()
    with GradientCapture() as capture:
        model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[snapshots])
    assert_norms_match(capture.data[0].stats, snapshots.weights)

    model = wide_model(keras.optimizers.SGD(0.05, momentum=0.9))
    optimizer = model.optimizer
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(xb: tf.Tensor, yb: tf.Tensor) -> None:
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

    weights = [[v.numpy().copy() for v in model.trainable_variables]]
    with GradientCapture() as capture:
        for start in (0, 16):
            step(x[start : start + 16], y[start : start + 16])
            weights.append([v.numpy().copy() for v in model.trainable_variables])
    assert_norms_match(capture.data[0].stats, weights)


def test_a_write_not_seen_whole_gives_no_update_norm() -> None:
    """A sparse ``assign`` writes some rows: its change is not its values, so the variable
    gets no change (NaN downstream), and a write inside a ``cond`` branch lives in another
    graph."""
    optimizer = keras.optimizers.SGD(0.1)
    table = tf.Variable(tf.ones([6, 3]))
    other = tf.Variable(tf.ones([4]))
    seen: dict[str, list[object]] = {}

    @tf.function
    def writes(flag: tf.Tensor) -> None:
        with updates_of(optimizer, [table, other]) as deltas:
            optimizer.assign(table, tf.IndexedSlices(tf.zeros([1, 3]), tf.constant([2])))
            tf.cond(
                flag,
                lambda: optimizer.assign_sub(other, tf.ones([4])) or tf.constant(0),
                lambda: tf.constant(0),
            )
        seen["changes"] = deltas.changes()

    writes(tf.constant(True))
    assert seen["changes"] == [None, None]
    assert table.numpy()[2].tolist() == [0.0, 0.0, 0.0] and other.numpy().tolist() == [0.0] * 4
    assert "assign" not in vars(optimizer)


def test_optimizers_whose_writes_are_not_all_seen_keep_the_held_copy() -> None:
    class OwnStep(keras.optimizers.SGD):
        def update_step(self, gradient: object, variable: object, learning_rate: object) -> None:
            variable.assign_sub(gradient * learning_rate)  # not through self.assign_sub

    assert reads_updates(keras.optimizers.Adam())
    assert not reads_updates(OwnStep())
    assert not reads_updates(keras.optimizers.Adam(use_ema=True))
    assert not reads_updates(keras.optimizers.Adam(gradient_accumulation_steps=2))
    assert not reads_updates(keras.optimizers.AdamW())


def test_one_device_strategy_and_mixed_precision_agree_with_the_weights() -> None:
    """Under a strategy the optimizer writes the device's own copy of each variable (the
    change is read there too); under ``mixed_float16`` the inner optimizer of the
    ``LossScaleOptimizer`` writes inside the loss scale's ``cond``."""
    x, y = data()
    with tf.distribute.MirroredStrategy(["/cpu:0"]).scope():
        model = wide_model(keras.optimizers.Adam(1e-3))
    snapshots = Snapshots()
    with GradientCapture() as capture:
        model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[snapshots])
    assert_norms_match(capture.data[0].stats, snapshots.weights)

    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = wide_model(keras.optimizers.Adam(1e-3))
        assert isinstance(model.optimizer, keras.mixed_precision.LossScaleOptimizer)
        snapshots = Snapshots()
        with GradientCapture() as capture:
            model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[snapshots])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert_norms_match(capture.data[0].stats, snapshots.weights)


def test_every_other_step_records_the_steps_it_names() -> None:
    """With ``every=2`` the update is still the recorded step's own (its norm is taken in
    the recorded step's ``cond``; an unrecorded step only writes the variable)."""
    x, y = data()
    model = wide_model(keras.optimizers.Adam(1e-3))
    snapshots = Snapshots()
    with GradientCapture(every=2) as capture:
        model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[snapshots])
    history = capture.data[0]
    assert history.steps.tolist() == [0, 2]
    for row, step in enumerate(history.steps.tolist()):
        pair = [snapshots.weights[step], snapshots.weights[step + 1]]
        assert_norms_match(history.stats[row : row + 1], pair)
