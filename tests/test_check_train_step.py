"""%%tfcheck on custom train_steps: their own loss is checked (G05); a GAN's step is one batch."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.features.check import run_checked

RS = np.random.RandomState(0)
X = RS.randn(32, 4).astype("float32")


class TinyVAE(keras.Model):
    """The Keras VAE example's shape: a train_step with its own loss from keras.ops."""

    def __init__(self, shift: float = 0.0, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.encoder = keras.layers.Dense(2, name="encoder")
        self.decoder = keras.layers.Dense(4, name="decoder")
        self.shift = shift  # > 0: log of a negative number, a NaN loss

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return self.decoder(self.encoder(x))

    def train_step(self, data: tf.Tensor) -> dict[str, tf.Tensor]:
        with tf.GradientTape() as tape:
            z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = keras.ops.mean(
                keras.losses.mean_squared_error(data, reconstruction)
            )
            kl_loss = -0.5 * keras.ops.mean(1.0 + z - keras.ops.square(z) - keras.ops.exp(z))
            total_loss = keras.ops.log(reconstruction_loss + kl_loss + 1.0 - self.shift)
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights, strict=True))
        return {"loss": total_loss}


class TinyGAN(keras.Model):
    """The Keras GAN example's shape: one train_step, two optimizers."""

    def __init__(self, g_shift: float = 0.0) -> None:
        super().__init__()
        self.g_shift = g_shift  # > 0: the generator's loss is the log of a negative number
        self.discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        self.generator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])

    def compile(self, d_optimizer: object, g_optimizer: object) -> None:  # type: ignore[override]
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer

    def train_step(self, real: tf.Tensor) -> dict[str, tf.Tensor]:
        noise = tf.random.normal((tf.shape(real)[0], 2), seed=1)
        d_vars = self.discriminator.trainable_weights
        g_vars = self.generator.trainable_weights
        with tf.GradientTape() as tape:
            fake = self.discriminator(self.generator(noise))
            d_loss = keras.ops.mean(keras.ops.square(fake)) + keras.ops.mean(
                keras.ops.square(self.discriminator(real) - 1.0)
            )
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, d_vars), d_vars, strict=True))
        with tf.GradientTape() as tape:
            g_loss = keras.ops.log(
                keras.ops.mean(keras.ops.square(self.discriminator(self.generator(noise)) - 1))
                - self.g_shift
            )
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, g_vars), g_vars, strict=True))
        return {"d_loss": d_loss, "g_loss": g_loss}


def vae(shift: float = 0.0) -> TinyVAE:
    model = TinyVAE(shift)
    model.compile(optimizer=keras.optimizers.SGD(1e-3))
    return model


def gan(g_shift: float = 0.0) -> TinyGAN:
    model = TinyGAN(g_shift)
    model.compile(keras.optimizers.SGD(1e-3), keras.optimizers.SGD(1e-3))
    return model


@pytest.mark.slow
def test_the_loss_of_a_custom_train_step_is_checked() -> None:
    model = vae()
    _, report = run_checked(lambda: model.fit(X, epochs=1, batch_size=8, verbose=0))
    assert not report.stopped and report.steps == 4
    assert report.losses_checked == ("total_loss in TinyVAE.train_step",), report.to_text()
    assert "none seen" not in report.to_text()


@pytest.mark.slow
def test_a_nan_loss_in_a_custom_train_step_is_g05_not_a_gradient() -> None:
    model = vae(shift=100.0)
    _, report = run_checked(lambda: model.fit(X, epochs=1, batch_size=8, verbose=0))
    assert report.codes() == ["G05"], report.to_text()
    assert report.failure.place == "total_loss in TinyVAE.train_step"
    assert report.failure.step == 0


@pytest.mark.slow
def test_a_nan_loss_in_an_eager_custom_loop_is_g05() -> None:
    layer = keras.layers.Dense(1)
    optimizer = keras.optimizers.SGD(0.01)

    def loop() -> None:
        for _ in range(2):
            with tf.GradientTape() as tape:
                mean_log = keras.ops.mean(keras.ops.log(layer(X) - 100.0))
            grads = tape.gradient(mean_log, layer.trainable_weights)
            optimizer.apply_gradients(zip(grads, layer.trainable_weights, strict=True))

    _, report = run_checked(loop)
    assert report.codes() == ["G05"] and report.failure.eager, report.to_text()
    assert (
        report.failure.place
        == "mean_log in test_a_nan_loss_in_an_eager_custom_loop_is_g05.<locals>.loop"
    )
    assert tf.GradientTape.gradient.__module__.startswith("tensorflow")  # restored


@pytest.mark.slow
def test_a_gan_step_is_one_batch_in_both_tfcheck_and_tfgrad(shell: InteractiveShell) -> None:
    cell = "gm.fit(gx, epochs=2, batch_size=8, verbose=0)"
    shell.user_ns.update(gm=gan(), gx=X)
    check = run_magic(shell, "%%tfcheck -o", cell=cell).result
    assert check.steps == 8 and check.updates == 16, check.to_text()
    assert "8 step(s) (16 optimizer updates by 2 optimizers)" in check.summary[0]
    shell.user_ns.update(gm=gan())
    grad = run_magic(shell, "%%tfgrad -o", cell=cell).result
    assert grad.total_steps == 8
    assert any("8 step(s) (16 optimizer updates" in note for note in grad.summary), grad.to_text()


@pytest.mark.slow
def test_tape_losses_are_named_by_variable_and_function_or_model() -> None:
    layer = keras.layers.Dense(1)
    optimizer = keras.optimizers.SGD(0.01)

    @tf.function
    def step(x: tf.Tensor) -> None:  # autograph runs a converted copy of it
        with tf.GradientTape() as tape:
            my_loss = keras.ops.mean(keras.ops.square(layer(x)))
        grads = tape.gradient(my_loss, layer.trainable_weights)
        optimizer.apply_gradients(zip(grads, layer.trainable_weights, strict=True))

    _, report = run_checked(lambda: step(X))
    assert report.losses_checked == ("my_loss in step",)
    # compiled fit: the Loss is checked; the total with the regularization loss is named too
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(1, kernel_regularizer="l2")], name="reg"
    )
    model.compile(optimizer="sgd", loss="mse")
    _, report = run_checked(lambda: model.fit(X, X[:, :1], verbose=0))
    assert report.losses_checked == ("mse", "total loss of model 'reg'")


@pytest.mark.slow
def test_a_gan_failing_in_its_second_update_names_the_first_step() -> None:
    model = gan(g_shift=1e6)  # the discriminator has stepped once when the generator's loss fails
    _, report = run_checked(lambda: model.fit(X, epochs=1, batch_size=8, verbose=0))
    assert report.codes() == ["G05"], report.to_text()
    assert report.failure.place == "g_loss in TinyGAN.train_step"
    assert report.failure.step == 0 and "at step 1 " in report.findings[0].message
