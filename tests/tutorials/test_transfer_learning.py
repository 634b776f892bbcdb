"""Transfer learning and fine-tuning (tutorials/images/transfer_learning), on random 32x32
cats and dogs, with a MobileNetV2 base (alpha 0.35, no downloaded weights).

``preprocess_input`` inside the Functional model, a frozen base called with
``training=False``, a logits head with ``BinaryAccuracy(threshold=0)``, fine-tuning the top
of the base with RMSprop.  Correct code stays quiet at warning and error severity: in
particular no N04 (the model scales its own pixels, measured) and no P10 (the base's
BatchNormalization layers run in inference).  The one finding it deserves: the test set is
``take()`` of a validation dataset that reshuffles every pass, the validation set its
``skip()`` (P17).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cats_and_dogs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``cats_and_dogs_filtered/{train,validation}/{cats,dogs}/*.jpg`` (40x40 photos)."""
    root = tmp_path_factory.mktemp("cats_dogs") / "cats_and_dogs_filtered"
    rng = np.random.default_rng(0)
    for split, count in (("train", 16), ("validation", 10)):
        for k, name in enumerate(("cats", "dogs")):
            (root / split / name).mkdir(parents=True)
            for i in range(count):
                pixels = rng.normal(100 + 60 * k, 40, (40, 40, 3)).clip(0, 255).astype("uint8")
                path = root / split / name / f"{name[:-1]}.{i}.jpg"
                path.write_bytes(tf.io.encode_jpeg(pixels).numpy())
    return root


SETUP = """
import os
import numpy as np
import tensorflow as tf

train_dir = os.path.join(PATH, 'train')
validation_dir = os.path.join(PATH, 'validation')

BATCH_SIZE = 4
IMG_SIZE = (32, 32)

train_dataset = tf.keras.utils.image_dataset_from_directory(train_dir,
                                                            shuffle=True,
                                                            batch_size=BATCH_SIZE,
                                                            image_size=IMG_SIZE)
validation_dataset = tf.keras.utils.image_dataset_from_directory(validation_dir,
                                                                 shuffle=True,
                                                                 batch_size=BATCH_SIZE,
                                                                 image_size=IMG_SIZE)
class_names = train_dataset.class_names

val_batches = tf.data.experimental.cardinality(validation_dataset)
test_dataset = validation_dataset.take(val_batches // 5)
validation_dataset = validation_dataset.skip(val_batches // 5)

AUTOTUNE = tf.data.AUTOTUNE

train_dataset = train_dataset.prefetch(buffer_size=AUTOTUNE)
validation_dataset = validation_dataset.prefetch(buffer_size=AUTOTUNE)
test_dataset = test_dataset.prefetch(buffer_size=AUTOTUNE)

data_augmentation = tf.keras.Sequential([
  tf.keras.layers.RandomFlip('horizontal'),
  tf.keras.layers.RandomRotation(0.2),
])

preprocess_input = tf.keras.applications.mobilenet_v2.preprocess_input

# Create the base model from the pre-trained model MobileNet V2
IMG_SHAPE = IMG_SIZE + (3,)
base_model = tf.keras.applications.MobileNetV2(input_shape=IMG_SHAPE,
                                               include_top=False,
                                               weights=None, alpha=0.35)

# (not the tutorial's: its ImageNet weights come with BatchNormalization statistics that
#  fit photos; random weights take theirs from the photos at hand, in one training pass)
norms = [l for l in base_model.layers if isinstance(l, tf.keras.layers.BatchNormalization)]
for layer in norms:
  layer.momentum = 0.0
base_model(preprocess_input(np.concatenate([x for x, _ in train_dataset])), training=True)
for layer in norms:
  layer.momentum = 0.999

image_batch, label_batch = next(iter(train_dataset))
feature_batch = base_model(image_batch)

base_model.trainable = False

global_average_layer = tf.keras.layers.GlobalAveragePooling2D()
feature_batch_average = global_average_layer(feature_batch)

prediction_layer = tf.keras.layers.Dense(1)
prediction_batch = prediction_layer(feature_batch_average)

inputs = tf.keras.Input(shape=(32, 32, 3))
x = data_augmentation(inputs)
x = preprocess_input(x)
x = base_model(x, training=False)
x = global_average_layer(x)
x = tf.keras.layers.Dropout(0.2)(x)
outputs = prediction_layer(x)
model = tf.keras.Model(inputs, outputs)

base_learning_rate = 0.0001
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=base_learning_rate),
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0, name='accuracy')])

initial_epochs = 1
loss0, accuracy0 = model.evaluate(validation_dataset, verbose=0)
"""

FIT = """
history = model.fit(train_dataset,
                    epochs=initial_epochs,
                    validation_data=validation_dataset, verbose=0)
"""

FINE_TUNE = """
base_model.trainable = True

# Fine-tune from this layer onwards
fine_tune_at = 100

# Freeze all the layers before the `fine_tune_at` layer
for layer in base_model.layers[:fine_tune_at]:
  layer.trainable = False

model.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              optimizer = tf.keras.optimizers.RMSprop(learning_rate=base_learning_rate/10),
              metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0, name='accuracy')])

fine_tune_epochs = 1
total_epochs =  initial_epochs + fine_tune_epochs
"""

FIT_FINE = """
history_fine = model.fit(train_dataset,
                         epochs=total_epochs,
                         initial_epoch=len(history.epoch),
                         validation_data=validation_dataset, verbose=0)
"""

EVALUATE = """
loss, accuracy = model.evaluate(test_dataset, verbose=0)

# Retrieve a batch of images from the test set
image_batch, label_batch = test_dataset.as_numpy_iterator().next()
predictions = model.predict_on_batch(image_batch).flatten()

# Apply a sigmoid since our model returns logits
predictions = tf.nn.sigmoid(predictions)
predictions = tf.where(predictions < 0.5, 0, 1)
"""


@pytest.fixture(scope="module")
def nb(notebook: Notebook, cats_and_dogs: Path) -> Notebook:
    notebook.ns["PATH"] = str(cats_and_dogs)
    notebook.cell(SETUP)
    return notebook


def test_tfpipeline_n04_silent_and_the_take_skip_split_found(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline train_dataset --model model --no-timing")
    assert severe(report) == set(), report.to_text()
    assert "N04" not in report.codes()
    report = nb.magic("%tfpipeline test_dataset --no-timing")
    assert severe(report) == {"P17"}, report.to_text()
    assert "validation_dataset" in report.to_text()


def test_tflint_and_tfshape(nb: Notebook) -> None:
    report = nb.magic("%tflint model --data train_dataset")
    assert severe(report) == set(), report.to_text()
    assert "N04" not in report.codes()
    report = nb.magic("%tfshape model image_batch")
    assert severe(report) == set() and not report.failed


def test_tfgrad_on_fit(nb: Notebook) -> None:
    report = nb.magic("%%tfgrad", FIT)
    assert severe(report) == set(), report.to_text()
    assert report.history.loss_known.any() and report.losses == ()


def test_tfoverfit(nb: Notebook) -> None:
    report = nb.magic("%tfoverfit model train_dataset --steps 20")
    assert severe(report) == set(), report.to_text()
    assert "N04" not in report.to_text()


def test_tfconsistency(nb: Notebook) -> None:
    report = nb.magic("%tfconsistency model image_batch")
    assert severe(report) == set(), report.to_text()
