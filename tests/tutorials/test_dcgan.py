"""Deep Convolutional GAN (tutorials/generative/dcgan), on random 8x8 images.

Two models, two ``GradientTape``s and two optimizers in one ``@tf.function`` ``train_step``,
reached through the Python ``train(dataset, epochs)`` loop.  Correct code: every magic stays
quiet at warning and error severity (but P02: no ``prefetch()`` at the end of the pipeline),
and ``%%tfgrad`` shows both losses, each named.
"""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow

SETUP = """
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

rng = np.random.default_rng(0)
train_images = rng.integers(0, 256, (64, 8, 8)).astype("uint8")
train_images = train_images.reshape(train_images.shape[0], 8, 8, 1).astype('float32')
train_images = (train_images - 127.5) / 127.5  # Normalize the images to [-1, 1]

BUFFER_SIZE = 64
BATCH_SIZE = 16
# Batch and shuffle the data
train_dataset = tf.data.Dataset.from_tensor_slices(train_images).shuffle(BUFFER_SIZE).batch(BATCH_SIZE)

def make_generator_model():
    model = tf.keras.Sequential()
    model.add(layers.Input((16,)))
    model.add(layers.Dense(2*2*16, use_bias=False))
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Reshape((2, 2, 16)))
    assert model.output_shape == (None, 2, 2, 16)  # Note: None is the batch size

    model.add(layers.Conv2DTranspose(8, (5, 5), strides=(1, 1), padding='same', use_bias=False))
    assert model.output_shape == (None, 2, 2, 8)
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Conv2DTranspose(4, (5, 5), strides=(2, 2), padding='same', use_bias=False))
    assert model.output_shape == (None, 4, 4, 4)
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Conv2DTranspose(1, (5, 5), strides=(2, 2), padding='same', use_bias=False, activation='tanh'))
    assert model.output_shape == (None, 8, 8, 1)

    return model

generator = make_generator_model()

noise = tf.random.normal([1, 16])
generated_image = generator(noise, training=False)

def make_discriminator_model():
    model = tf.keras.Sequential()
    model.add(layers.Input([8, 8, 1]))
    model.add(layers.Conv2D(8, (5, 5), strides=(2, 2), padding='same'))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.3))

    model.add(layers.Conv2D(16, (5, 5), strides=(2, 2), padding='same'))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.3))

    model.add(layers.Flatten())
    model.add(layers.Dense(1))

    return model

discriminator = make_discriminator_model()
decision = discriminator(generated_image)

# This method returns a helper function to compute cross entropy loss
cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)

def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    total_loss = real_loss + fake_loss
    return total_loss

def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)

generator_optimizer = tf.keras.optimizers.Adam(1e-4)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)

EPOCHS = 2
noise_dim = 16
num_examples_to_generate = 4
seed = tf.random.normal([num_examples_to_generate, noise_dim])
losses_returned = []

# Notice the use of `tf.function`
# This annotation causes the function to be "compiled".
@tf.function
def train_step(images):
    noise = tf.random.normal([BATCH_SIZE, noise_dim])

    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
      generated_images = generator(noise, training=True)

      real_output = discriminator(images, training=True)
      fake_output = discriminator(generated_images, training=True)

      gen_loss = generator_loss(fake_output)
      disc_loss = discriminator_loss(real_output, fake_output)

    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))
    return gen_loss, disc_loss

def generate_and_save_images(model, epoch, test_input):
    # Notice `training` is set to False.
    # This is so all layers run in inference mode (batchnorm).
    predictions = model(test_input, training=False)
    return predictions[:, :, :, 0] * 127.5 + 127.5

def train(dataset, epochs):
    for epoch in range(epochs):
        for image_batch in dataset:
            losses_returned.append([float(v) for v in train_step(image_batch)])

        # Produce images for the GIF as you go
        generate_and_save_images(generator, epoch + 1, seed)
"""


@pytest.fixture(scope="module")
def nb(notebook: Notebook) -> Notebook:
    notebook.cell(SETUP)
    notebook.cell("train(train_dataset, EPOCHS)")  # train_step traced before any magic
    return notebook


def test_tfshape_generator_and_discriminator(nb: Notebook) -> None:
    assert severe(nb.magic("%tfshape generator noise")) == set()
    assert severe(nb.magic("%tfshape discriminator generated_image")) == set()


def test_tfgrad_shows_both_losses_each_named(nb: Notebook) -> None:
    nb.ns["losses_returned"].clear()
    report = nb.magic("%%tfgrad", "train(train_dataset, EPOCHS)")
    assert severe(report) == set()
    returned = np.array(nb.ns["losses_returned"])
    assert returned.shape == (2 * 4, 2)
    assert [s.label for s in report.losses] == ["gen_loss", "disc_loss"]
    for series, column in zip(report.losses, returned.T, strict=True):
        np.testing.assert_allclose(series.values, column, rtol=1e-6)


def test_tfcheck(nb: Notebook) -> None:
    assert severe(nb.magic("%%tfcheck", "train(train_dataset, EPOCHS)")) == set()


def test_tfmem(nb: Notebook) -> None:
    assert severe(nb.magic("%%tfmem", "train(train_dataset, EPOCHS)")) == set()


def test_tfpipeline(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline train_dataset --no-timing")
    # from_tensor_slices -> shuffle -> batch, as the tutorial writes it: no prefetch() (P02)
    assert severe(report) == {"P02"}


def test_tfconsistency(nb: Notebook) -> None:
    assert severe(nb.magic("%tfconsistency generator seed")) == set()
    assert severe(nb.magic("%tfconsistency discriminator generated_image")) == set()


def test_tflint_and_tfoverfit_on_models_trained_by_their_own_loop(nb: Notebook) -> None:
    assert severe(nb.magic("%tflint discriminator --data train_dataset")) == set()
    with pytest.raises(UsageError, match="is not compiled: call model.compile"):
        nb.magic("%tfoverfit generator train_dataset --steps 5")
