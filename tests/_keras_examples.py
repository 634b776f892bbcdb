"""Small versions of the Keras VAE and GAN examples (custom ``train_step``, no compiled loss)."""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf
from keras import layers, ops


class Sampling(layers.Layer):
    """The VAE example's sampler: draws ``z`` with keras.random.normal, whatever ``training`` is."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs: Any) -> Any:
        z_mean, z_log_var = inputs
        epsilon = keras.random.normal(shape=ops.shape(z_mean), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


def vae_encoder(features: int = 8, latent: int = 2) -> keras.Model:
    inp = keras.Input((features,))
    hidden = layers.Dense(16, activation="relu")(inp)
    z_mean = layers.Dense(latent, name="z_mean")(hidden)
    z_log_var = layers.Dense(latent, name="z_log_var")(hidden)
    z = Sampling(name="sampling")([z_mean, z_log_var])
    return keras.Model(inp, [z_mean, z_log_var, z], name="encoder")


def vae_decoder(features: int = 8, latent: int = 2) -> keras.Model:
    inp = keras.Input((latent,))
    hidden = layers.Dense(16, activation="relu")(inp)
    return keras.Model(inp, layers.Dense(features, activation="sigmoid")(hidden), name="decoder")


class VAE(keras.Model):
    """The Keras VAE example: compiled with an optimizer only, the loss lives in train_step."""

    def __init__(self, encoder: keras.Model, decoder: keras.Model, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self) -> list[Any]:
        return [self.total_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data: Any) -> dict[str, Any]:
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = ops.mean(
                ops.sum(
                    keras.losses.binary_crossentropy(data[..., None], reconstruction[..., None]),
                    axis=-1,
                )
            )
            kl = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
            kl_loss = ops.mean(ops.sum(kl, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights, strict=True))
        self.total_loss_tracker.update_state(total_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {"loss": self.total_loss_tracker.result(), "kl_loss": self.kl_loss_tracker.result()}


def vae(features: int = 8) -> VAE:
    model = VAE(vae_encoder(features), vae_decoder(features), name="vae")
    model.compile(optimizer=keras.optimizers.Adam(1e-3))
    return model


class GAN(keras.Model):
    """The Keras GAN example: two optimizers held as attributes, logs d_loss and g_loss."""

    def __init__(self, discriminator: keras.Model, generator: keras.Model, latent: int) -> None:
        super().__init__(name="gan")
        self.discriminator = discriminator
        self.generator = generator
        self.latent = latent
        self.seed_generator = keras.random.SeedGenerator(1337)
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    @property
    def metrics(self) -> list[Any]:
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer: Any, g_optimizer: Any, loss_fn: Any) -> None:  # type: ignore[override]
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real: Any) -> dict[str, Any]:
        batch = ops.shape(real)[0]
        z = keras.random.normal((batch, self.latent), seed=self.seed_generator)
        combined = ops.concatenate([self.generator(z), real], axis=0)
        labels = ops.concatenate([ops.ones((batch, 1)), ops.zeros((batch, 1))], axis=0)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined))
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(
            zip(grads, self.discriminator.trainable_weights, strict=True)
        )
        z = keras.random.normal((batch, self.latent), seed=self.seed_generator)
        with tf.GradientTape() as tape:
            g_loss = self.loss_fn(ops.zeros((batch, 1)), self.discriminator(self.generator(z)))
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights, strict=True))
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def gan(features: int = 8, latent: int = 2) -> GAN:
    discriminator = keras.Sequential(
        [keras.Input((features,)), layers.Dense(8, activation="relu"), layers.Dense(1)],
        name="discriminator",
    )
    generator = keras.Sequential(
        [keras.Input((latent,)), layers.Dense(features, activation="sigmoid")], name="generator"
    )
    model = GAN(discriminator, generator, latent)
    model.compile(
        keras.optimizers.Adam(1e-3),
        keras.optimizers.Adam(1e-3),
        keras.losses.BinaryCrossentropy(from_logits=True),
    )
    return model
