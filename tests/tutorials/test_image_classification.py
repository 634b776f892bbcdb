"""Image classification (tutorials/images/classification), on random 16x16 flower photos.

Files on disk read by ``image_dataset_from_directory`` (a training and a validation subset),
``cache().shuffle(1000).prefetch(AUTOTUNE)``, a Rescaling + Conv2D/MaxPooling model
compiled with logits, then the augmented model with Dropout.  Correct code: every magic
stays quiet at warning and error severity.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow

CLASSES = ("daisy", "dandelion", "roses", "sunflowers", "tulips")


@pytest.fixture(scope="module")
def flower_photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``flower_photos/<class>/*.jpg``: 12 noisy 20x20 photos per class, each class its colour."""
    root = tmp_path_factory.mktemp("flowers") / "flower_photos"
    rng = np.random.default_rng(0)
    for k, name in enumerate(CLASSES):
        (root / name).mkdir(parents=True)
        tint = np.zeros(3)
        tint[k % 3] = 120 if k < 3 else -120
        for i in range(12):
            pixels = np.clip(rng.normal(128, 30, (20, 20, 3)) + tint, 0, 255).astype("uint8")
            (root / name / f"{i:02d}.jpg").write_bytes(tf.io.encode_jpeg(pixels).numpy())
    return root


SETUP = """
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras.models import Sequential

batch_size = 8
img_height = 16
img_width = 16

train_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="training",
  seed=123,
  image_size=(img_height, img_width),
  batch_size=batch_size)

val_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="validation",
  seed=123,
  image_size=(img_height, img_width),
  batch_size=batch_size)

class_names = train_ds.class_names

AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().shuffle(1000).prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)

normalization_layer = layers.Rescaling(1./255)
normalized_ds = train_ds.map(lambda x, y: (normalization_layer(x), y))
image_batch, labels_batch = next(iter(normalized_ds))

num_classes = len(class_names)

model = Sequential([
  layers.Input((img_height, img_width, 3)),
  layers.Rescaling(1./255),
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(8, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Flatten(),
  layers.Dense(16, activation='relu'),
  layers.Dense(num_classes)
])

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

epochs = 6
history = model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=0)

data_augmentation = keras.Sequential(
  [
    layers.Input((img_height, img_width, 3)),
    layers.RandomFlip("horizontal"),
    layers.RandomRotation(0.1),
    layers.RandomZoom(0.1),
  ]
)

model = Sequential([
  data_augmentation,
  layers.Rescaling(1./255),
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(8, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Dropout(0.2),
  layers.Flatten(),
  layers.Dense(16, activation='relu'),
  layers.Dense(num_classes, name="outputs")
])

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])
"""

FIT = "history = model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=0)"

PREDICT = """
img = tf.keras.utils.load_img(sunflower_path, target_size=(img_height, img_width))
img_array = tf.keras.utils.img_to_array(img)
img_array = tf.expand_dims(img_array, 0) # Create a batch

predictions = model.predict(img_array, verbose=0)
score = tf.nn.softmax(predictions[0])
print(
    "This image most likely belongs to {} with a {:.2f} percent confidence."
    .format(class_names[np.argmax(score)], 100 * np.max(score))
)
"""


@pytest.fixture(scope="module")
def nb(notebook: Notebook, flower_photos: Path) -> Notebook:
    notebook.ns["data_dir"] = flower_photos
    notebook.ns["sunflower_path"] = str(next((flower_photos / "sunflowers").iterdir()))
    notebook.cell(SETUP)
    return notebook


def test_tfpipeline(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline train_ds --model model --no-timing --class-names class_names")
    assert severe(report) == set(), report.to_text()
    assert severe(nb.magic("%tfpipeline val_ds --model model --no-timing")) == set()
    # timed, stage by stage (no model: no input-bound verdict from a loaded machine's numbers)
    report = nb.magic("%tfpipeline train_ds")
    assert severe(report) == set(), report.to_text()
    assert "examples/s" in report.to_text()


def test_tfshape(nb: Notebook) -> None:
    report = nb.magic("%tfshape model image_batch")
    assert severe(report) == set() and not report.failed


def test_tflint(nb: Notebook) -> None:
    report = nb.magic("%tflint model --data train_ds")
    assert severe(report) == set(), report.to_text()


def test_tfgrad_tfcheck_tfmem_on_fit(nb: Notebook) -> None:
    report = nb.magic("%%tfgrad", FIT)
    assert severe(report) == set(), report.to_text()
    assert report.losses == () and report.history.loss_known.any()
    report = nb.magic("%%tfcheck", FIT)
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%%tfmem --model model", FIT)
    assert severe(report) == set(), report.to_text()
    nb.cell(PREDICT)


def test_tfoverfit(nb: Notebook) -> None:
    report = nb.magic("%tfoverfit model train_ds --steps 60")
    assert severe(report) == set(), report.to_text()


def test_tfconsistency(nb: Notebook) -> None:
    report = nb.magic("%tfconsistency model image_batch")
    assert severe(report) == set(), report.to_text()
