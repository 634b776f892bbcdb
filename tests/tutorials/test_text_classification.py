"""Basic text classification (tutorials/keras/text_classification), on random movie reviews.

Review files read by ``text_dataset_from_directory``, a ``TextVectorization`` layer with the
tutorial's own standardization, adapted on the text and mapped over the batches, an
Embedding + pooling model trained on logits with ``BinaryAccuracy(threshold=0.0)``, then the
export model that takes raw strings.  Correct code: every magic stays quiet at warning and
error severity, except ``%tfpipeline`` on ``train_ds``: its ``map(vectorize_text)`` has no
``num_parallel_calls`` (P04) and its ``cache()`` after the utility's shuffle makes every
epoch replay the first one's batches in the same order (P09).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.tutorials._notebook import Notebook, severe

pytestmark = pytest.mark.slow

GOOD = ("great", "wonderful", "moving", "superb", "loved", "brilliant")
BAD = ("awful", "boring", "terrible", "waste", "hated", "dull")
NEUTRAL = ("the", "movie", "film", "plot", "actor", "scene", "story", "was", "and", "a")


@pytest.fixture(scope="module")
def imdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``aclImdb/{train,test}/{neg,pos}/*.txt``: short reviews, each class its own words."""
    root = tmp_path_factory.mktemp("imdb") / "aclImdb"
    rng = np.random.default_rng(0)
    for split, count in (("train", 20), ("test", 8)):
        for label, words in (("neg", BAD), ("pos", GOOD)):
            (root / split / label).mkdir(parents=True)
            for i in range(count):
                text = " ".join(rng.choice(NEUTRAL + words, 12))
                review = f"{text.capitalize()}!<br /><br />{' '.join(rng.choice(NEUTRAL, 4))}."
                (root / split / label / f"{i}_{rng.integers(1, 11)}.txt").write_text(review)
    return root


SETUP = """
import os
import re
import string
import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import losses

batch_size = 8
seed = 42

raw_train_ds = tf.keras.utils.text_dataset_from_directory(
    os.path.join(dataset_dir, 'train'),
    batch_size=batch_size,
    validation_split=0.2,
    subset='training',
    seed=seed)
raw_val_ds = tf.keras.utils.text_dataset_from_directory(
    os.path.join(dataset_dir, 'train'),
    batch_size=batch_size,
    validation_split=0.2,
    subset='validation',
    seed=seed)
raw_test_ds = tf.keras.utils.text_dataset_from_directory(
    os.path.join(dataset_dir, 'test'),
    batch_size=batch_size)

def custom_standardization(input_data):
  lowercase = tf.strings.lower(input_data)
  stripped_html = tf.strings.regex_replace(lowercase, '<br />', ' ')
  return tf.strings.regex_replace(stripped_html,
                                  '[%s]' % re.escape(string.punctuation),
                                  '')

max_features = 100
sequence_length = 20

vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode='int',
    output_sequence_length=sequence_length)

# Make a text-only dataset (without labels), then call adapt
train_text = raw_train_ds.map(lambda x, y: x)
vectorize_layer.adapt(train_text)

def vectorize_text(text, label):
  text = tf.expand_dims(text, -1)
  return vectorize_layer(text), label

text_batch, label_batch = next(iter(raw_train_ds))
first_review, first_label = text_batch[0], label_batch[0]
vectorized_review = vectorize_text(first_review, first_label)

train_ds = raw_train_ds.map(vectorize_text)
val_ds = raw_val_ds.map(vectorize_text)
test_ds = raw_test_ds.map(vectorize_text)

AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)
test_ds = test_ds.cache().prefetch(buffer_size=AUTOTUNE)

embedding_dim = 16

model = tf.keras.Sequential([
  layers.Embedding(max_features, embedding_dim),
  layers.Dropout(0.2),
  layers.GlobalAveragePooling1D(),
  layers.Dropout(0.2),
  layers.Dense(1)])

model.compile(loss=losses.BinaryCrossentropy(from_logits=True),
              optimizer='adam',
              metrics=[tf.metrics.BinaryAccuracy(threshold=0.0)])

epochs = 6
history = model.fit(
    train_ds,
    validation_data=val_ds,
    epochs=epochs, verbose=0)

loss, accuracy = model.evaluate(test_ds, verbose=0)

export_model = tf.keras.Sequential([
  vectorize_layer,
  model,
  layers.Activation('sigmoid')
])

export_model.compile(
    loss=losses.BinaryCrossentropy(from_logits=False), optimizer="adam", metrics=['accuracy']
)

# Test it with `raw_test_ds`, which yields raw strings
metrics = export_model.evaluate(raw_test_ds, return_dict=True, verbose=0)

examples = tf.constant([
  "The movie was great!",
  "The movie was okay.",
  "The movie was terrible..."
])

export_model.predict(examples, verbose=0)
vectorized_batch, _ = next(iter(train_ds))
"""

FIT = "history = model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=0)"


@pytest.fixture(scope="module")
def nb(notebook: Notebook, imdb: Path) -> Notebook:
    notebook.ns["dataset_dir"] = str(imdb)
    notebook.cell(SETUP)
    return notebook


def test_tfpipeline(nb: Notebook) -> None:
    report = nb.magic("%tfpipeline train_ds --model model --no-timing")
    # the tutorial maps vectorize_text over the batches without num_parallel_calls (P04)
    assert severe(report) == {"P04", "P09"}, report.to_text()
    report = nb.magic("%tfpipeline raw_train_ds --no-timing")
    assert severe(report) == set(), report.to_text()


def test_tfshape(nb: Notebook) -> None:
    report = nb.magic("%tfshape model vectorized_batch")
    assert severe(report) == set() and not report.failed
    report = nb.magic("%tfshape export_model examples")
    assert severe(report) == set() and not report.failed


def test_tflint(nb: Notebook) -> None:
    # logits with from_logits=True and a 0.0 threshold; the export model's sigmoid with
    # from_logits=False: both pairings right (no M01-M04, no M07)
    report = nb.magic("%tflint model --data train_ds")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%tflint export_model --data raw_test_ds")
    assert severe(report) == set(), report.to_text()


def test_tfgrad_tfcheck_tfmem_on_fit(nb: Notebook) -> None:
    report = nb.magic("%%tfgrad", FIT)
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%%tfcheck", FIT)
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%%tfmem --model model", FIT)
    assert severe(report) == set(), report.to_text()


def test_tfoverfit(nb: Notebook) -> None:
    report = nb.magic("%tfoverfit model train_ds --steps 60")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%tfoverfit export_model raw_train_ds --steps 5")
    assert severe(report) == set(), report.to_text()


def test_tfconsistency(nb: Notebook) -> None:
    report = nb.magic("%tfconsistency model vectorized_batch")
    assert severe(report) == set(), report.to_text()
    report = nb.magic("%tfconsistency export_model examples")
    assert severe(report) == set(), report.to_text()
