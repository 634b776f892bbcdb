"""The layer probe behind a NaN a user's own line failed on (explain/_layer_probe.py)."""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from tfnb_debug.explain._layer_probe import first_bad_layer


class _Sharpen(keras.layers.Layer):
    """A softmax written by hand with a temperature: exp overflows for a small one."""

    def __init__(self, temperature: float, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.temperature = temperature

    def call(self, logits: tf.Tensor) -> tf.Tensor:
        e = tf.exp(logits / self.temperature)
        return e / tf.reduce_sum(e, axis=-1, keepdims=True)


def _model(temperature: float) -> keras.Model:
    return keras.Sequential(
        [
            keras.Input((30,)),
            keras.layers.Dense(30, name="scores"),
            keras.layers.Dropout(0.5),
            _Sharpen(temperature, name="sharpen"),
        ]
    )


def test_the_first_layer_that_makes_nan_is_named_with_its_op() -> None:
    model = _model(0.01)
    data = np.random.default_rng(0).poisson(3.0, (4, 30)).astype("float32")
    assert not np.isfinite(model.predict(data, verbose=0)).all()
    found = first_bad_layer(model, data, "model.predict(data)")
    assert found is not None and found.code == "N01"
    assert "'sharpen'" in found.what and "tf.exp(logits / self.temperature)" in found.what
    assert "exp overflows" in found.hint


def test_a_model_whose_layers_stay_finite_gets_nothing() -> None:
    model = _model(10.0)
    data = np.random.default_rng(0).poisson(3.0, (4, 30)).astype("float32")
    assert first_bad_layer(model, data, "model.predict(data)") is None


def test_the_probe_leaves_weights_and_random_state_as_they_were() -> None:
    model = _model(0.01)
    data = np.random.default_rng(1).poisson(3.0, (70, 30)).astype("float32")
    before = [w.numpy().copy() for w in model.weights]
    np_state = np.random.get_state()[1].copy()
    dropout_seed = model.layers[1].seed_generator.state  # the Dropout's own generator
    seed_before = dropout_seed.numpy().copy()
    assert first_bad_layer(model, data, "model.predict(data)") is not None
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, model.weights, strict=True))
    assert np.array_equal(np_state, np.random.get_state()[1])
    assert np.array_equal(seed_before, dropout_seed.numpy())  # inference: no random draw


def test_nan_in_the_data_or_a_model_without_a_graph_is_not_probed() -> None:
    model = _model(0.01)
    data = np.ones((4, 30), "float32")
    data[0, 0] = np.nan
    assert first_bad_layer(model, data, "model.predict(data)") is None

    class Plain(keras.Model):
        def call(self, x: tf.Tensor) -> tf.Tensor:
            return tf.exp(x * 1000.0)

    plain = Plain()
    assert first_bad_layer(plain, np.ones((2, 3), "float32"), "plain(x)") is None
