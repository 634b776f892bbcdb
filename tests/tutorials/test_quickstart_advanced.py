"""TensorFlow 2 quickstart for experts (tutorials/quickstart/advanced), on random 12x12 digits.

A subclassed model trained by an ``@tf.function`` ``train_step`` under a Python loop over
epochs, with ``tf.keras.metrics`` accumulators: correct code, so every magic stays quiet at
warning and error severity, except ``%tfpipeline``'s P02 (the pipeline ends in ``batch()``,
without the ``prefetch()`` tf.data's performance guide asks of every pipeline).
"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow

SETUP = """
import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Dense, Flatten, Conv2D
from tensorflow.keras import Model

rng = np.random.default_rng(0)
y_train = rng.integers(0, 10, 64)
y_test = rng.integers(0, 10, 16)
# digits that can be told apart: each class lights its own row of a 12x12 image
x_train = rng.integers(0, 80, (64, 12, 12)).astype("uint8")
x_test = rng.integers(0, 80, (16, 12, 12)).astype("uint8")
x_train[np.arange(64), y_train, :] = 255
x_test[np.arange(16), y_test, :] = 255
x_train, x_test = x_train / 255.0, x_test / 255.0

# Add a channels dimension
x_train = x_train[..., tf.newaxis].astype("float32")
x_test = x_test[..., tf.newaxis].astype("float32")

train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000).batch(16)
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(16)

class MyModel(Model):
    def __init__(self):
        super().__init__()
        self.conv1 = Conv2D(8, 3, activation='relu')
        self.flatten = Flatten()
        self.d1 = Dense(32, activation='relu')
        self.d2 = Dense(10)

    def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)

# Create an instance of the model
model = MyModel()

loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam()

train_loss = tf.keras.metrics.Mean(name='train_loss')
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='train_accuracy')
test_loss = tf.keras.metrics.Mean(name='test_loss')
test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='test_accuracy')

@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        # training=True is only needed if there are layers with different
        # behavior during training versus inference (e.g. Dropout).
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))

    train_loss(loss)
    train_accuracy(labels, predictions)

@tf.function
def test_step(images, labels):
    predictions = model(images, training=False)
    t_loss = loss_object(labels, predictions)

    test_loss(t_loss)
    test_accuracy(labels, predictions)

EPOCHS = 2
"""

TRAIN = """
for epoch in range(EPOCHS):
    # Reset the metrics at the start of the next epoch
    train_loss.reset_state()
    train_accuracy.reset_state()
    test_loss.reset_state()
    test_accuracy.reset_state()

    for images, labels in train_ds:
        train_step(images, labels)

    for test_images, test_labels in test_ds:
        test_step(test_images, test_labels)

    print(
        f'Epoch {epoch + 1}, '
        f'Loss: {train_loss.result():0.2f}, '
        f'Accuracy: {train_accuracy.result() * 100:0.2f}, '
        f'Test Loss: {test_loss.result():0.2f}, '
        f'Test Accuracy: {test_accuracy.result() * 100:0.2f}'
    )
"""


@pytest.fixture(scope="module")
def nb(notebook: Notebook) -> Notebook:
    notebook.cell(SETUP)
    notebook.cell(TRAIN)  # the tutorial's own run: train_step is traced before any magic
    return notebook


def test_tfshape(nb: Notebook) -> None:
    report = nb.magic("%tfshape model x_train[:4]")
    assert severe(report) == set()
    assert not report.failed and report.total_params > 0


def test_tfgrad_through_the_pretraced_step(nb: Notebook) -> None:
    report = nb.magic("%%tfgrad", TRAIN)
    assert severe(report) == set()
    assert report.history.total_steps == 2 * 4  # 2 epochs of 64 / 16
    assert report.losses == () and report.history.loss_known.all()


def test_tfcheck(nb: Notebook) -> None:
    report = nb.magic("%%tfcheck", TRAIN)
    assert severe(report) == set()


def test_tfmem(nb: Notebook) -> None:
    report = nb.magic("%%tfmem", TRAIN)
    assert severe(report) == set()


def test_tfpipeline(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline train_ds --no-timing")
    # the tutorial's pipeline ends in batch(): no prefetch() overlaps it with training, the
    # one thing tf.data's performance guide asks of every pipeline (true, and the only one)
    assert severe(report) == {"P02"}


def test_tfconsistency(nb: Notebook) -> None:
    report = nb.magic("%tfconsistency model x_test[:4]")
    assert severe(report) == set()


def test_tflint_and_tfoverfit_on_a_model_trained_by_its_own_loop(nb: Notebook) -> None:
    # never compiled: %tflint checks what it can, %tfoverfit says what it needs in one line
    assert severe(nb.magic("%tflint model --data train_ds")) == set()
    with pytest.raises(UsageError, match="is not compiled: call model.compile"):
        nb.magic("%tfoverfit model train_ds --steps 5")
