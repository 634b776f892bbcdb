"""P02, P03 and P09 on the pipelines Keras' dataset utilities build, from real files.

``image_dataset_from_directory`` and ``text_dataset_from_directory`` permute the
whole file list before their internal ``shuffle(batch_size * 8)``;
``timeseries_dataset_from_array`` permutes all window starts before its
``prefetch -> shuffle -> batch``.  Each test has a hand-written twin with the
same stages over a stored order that is NOT permuted, where the finding is true.
"""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug import inspect_pipeline
from tfnb_debug.collect.pipeline import read_structure

AUTOTUNE = tf.data.AUTOTUNE
PER_CLASS = 12  # 24 files: more than the utilities' shuffle(batch_size * 8) = 16 at batch 2


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``images/{cat,dog}/*.png`` (8x8 RGB) and ``texts/{neg,pos}/*.txt``."""
    root = tmp_path_factory.mktemp("keras_utils")
    rng = np.random.default_rng(0)
    for image_class, text_class in (("cat", "neg"), ("dog", "pos")):
        (root / "images" / image_class).mkdir(parents=True)
        (root / "texts" / text_class).mkdir(parents=True)
        for i in range(PER_CLASS):
            pixels = rng.integers(0, 256, (8, 8, 3), dtype=np.uint8)
            png = tf.io.encode_png(pixels).numpy()
            (root / "images" / image_class / f"{i:02d}.png").write_bytes(png)
            (root / "texts" / text_class / f"{i:02d}.txt").write_text(f"{text_class} review {i}")
    return root


def images(root: Path, subset: str = "training") -> tf.data.Dataset:
    return keras.utils.image_dataset_from_directory(
        root / "images",
        image_size=(8, 8),
        batch_size=2,
        validation_split=0.25,
        subset=subset,
        seed=1,
        verbose=False,
    )


def findings(ds: tf.data.Dataset, code: str, name: str = "dataset") -> list[str]:
    report = inspect_pipeline(ds, throughput=False, augmentation=False, name=name)
    return [f"{f.message} -- {f.hint}" for f in report.findings if f.code == code]


def load_png(path: tf.Tensor) -> tf.Tensor:
    return tf.cast(tf.io.decode_png(tf.io.read_file(path), channels=3), tf.float32)


def test_the_utilities_are_recognized(folders: Path) -> None:
    stages = read_structure(images(folders)).stages
    assert {s.utility for s in stages} == {"keras.utils.image_dataset_from_directory"}
    shuffle = next(s for s in stages if s.kind == "shuffle")
    assert shuffle.param("buffer_size") == 16 and shuffle.param("input_order") == "permuted"
    texts = keras.utils.text_dataset_from_directory(folders / "texts", batch_size=2, verbose=False)
    assert {s.utility for s in read_structure(texts).stages} == {
        "keras.utils.text_dataset_from_directory"
    }


def test_p03_silent_on_the_directory_utilities_true_on_a_sorted_file_list(folders: Path) -> None:
    assert findings(images(folders), "P03") == []
    texts = keras.utils.text_dataset_from_directory(folders / "texts", batch_size=2, verbose=False)
    assert findings(texts, "P03") == []
    # the same stages by hand over the sorted file list: classes in blocks, a 16-file window
    paths = sorted(str(p) for p in (folders / "images").glob("*/*.png"))
    by_hand = (
        tf.data.Dataset.from_tensor_slices(paths)
        .shuffle(16)
        .map(load_png, num_parallel_calls=AUTOTUNE)
        .batch(2)
        .prefetch(AUTOTUNE)
    )
    assert len(findings(by_hand, "P03")) == 1
    # ... and over a list permuted once, as the utility does: silent
    permuted = list(np.random.default_rng(3).permutation(paths))
    by_hand = tf.data.Dataset.from_tensor_slices(permuted).shuffle(16).map(load_png).batch(2)
    assert findings(by_hand, "P03") == []
    # strings that are not read as files (texts sorted by their label): their order is unknown
    texts = [f"{'good' if i < 12 else 'bad'} review {i}" for i in range(24)]
    labels = [int(i < 12) for i in range(24)]
    raw = tf.data.Dataset.zip(
        tf.data.Dataset.from_tensor_slices(texts), tf.data.Dataset.from_tensor_slices(labels)
    )
    assert len(findings(raw.shuffle(16).batch(2), "P03")) == 1


def timeseries(shuffle: bool) -> tf.data.Dataset:
    data = np.sin(np.arange(300, dtype="float32") / 10)[:, None]
    return keras.utils.timeseries_dataset_from_array(
        data, data[5:, 0], sequence_length=5, batch_size=8, shuffle=shuffle, seed=0
    )


def test_p03_silent_on_timeseries_windows_true_on_windows_in_order() -> None:
    assert findings(timeseries(shuffle=True), "P03") == []
    windows = np.stack([np.arange(i, i + 5, dtype="float32") for i in range(295)])
    in_order = tf.data.Dataset.from_tensor_slices(windows).shuffle(64).batch(8)
    assert len(findings(in_order, "P03")) == 1


def test_p02_says_add_prefetch_when_the_prefetch_is_inside_a_utility(folders: Path) -> None:
    scaled = images(folders).map(lambda x, y: (x / 255.0, y), num_parallel_calls=AUTOTUNE)
    (text,) = findings(scaled, "P02")
    assert "inside keras.utils.image_dataset_from_directory" in text
    assert "add .prefetch(tf.data.AUTOTUNE) at the end" in text and "move" not in text
    (text,) = findings(timeseries(shuffle=True), "P02")  # prefetch -> shuffle -> batch inside
    assert "inside keras.utils.timeseries_dataset_from_array" in text and "move" not in text
    # a prefetch of the user's own in the middle: moving it is the fix
    own = tf.data.Dataset.range(10).prefetch(2).map(lambda i: i * 2, num_parallel_calls=AUTOTUNE)
    (text,) = findings(own, "P02")
    assert "move .prefetch(tf.data.AUTOTUNE) to the very end" in text


def test_p09_follows_the_whole_pipeline(folders: Path, shell: InteractiveShell) -> None:
    # the images tutorial: train_ds.cache().shuffle(1000), val_ds.cache()
    train = images(folders)
    assert findings(train.cache().shuffle(1000).prefetch(AUTOTUNE), "P09") == []
    shell.user_ns["val_ds"] = images(folders, "validation").cache().prefetch(AUTOTUNE)
    shown = run_magic(shell, "%tfpipeline -q -o val_ds --no-timing")
    assert shown.result is not None and "P09" not in shown.result.codes()
    # a training set cached after the utility's shuffle, with no shuffle after: true
    (text,) = findings(train.cache().prefetch(AUTOTUNE), "P09", name="train_ds")
    assert "inside keras.utils.image_dataset_from_directory" in text
    assert "same batches in the same order" in text and "batch_size=None" in text
    # a shuffle after the cache that does not reshuffle leaves the order frozen
    frozen = train.cache().shuffle(1000, reshuffle_each_iteration=False)
    assert len(findings(frozen, "P09", name="train_ds")) == 1
