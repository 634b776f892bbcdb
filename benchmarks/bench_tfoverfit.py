"""How long ``%tfoverfit`` takes on two tutorial models, with its defaults, report shown.

* the "Image classification" tutorial's CNN (180x180 RGB inputs, rescaling, three
  conv blocks, dropout, five classes, Adam), on random images;
* the "Transfer learning" tutorial's MobileNetV2 (160x160, ``weights=None``: no
  download; the base frozen, global average pooling, dropout, one logit, Adam 1e-4).

Each is timed from the call of ``overfit_small_batch(model, train_ds)`` (defaults)
to its HTML form, as a notebook shows it, ``--repeats`` times (the first includes
tracing the train step, as a user's first ``%tfoverfit`` does); printed with the
verdict's first line, the examples and steps it used.

Run: ``python benchmarks/bench_tfoverfit.py [--repeats 2]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import argparse  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tfnb_debug import overfit_small_batch  # noqa: E402


def images(size: int, n: int = 64, classes: int = 5) -> tf.data.Dataset:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (n, size, size, 3)).astype("float32")
    y = rng.integers(0, classes, n)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(32)


def classification_tutorial() -> tuple[Any, tf.data.Dataset]:
    layers = keras.layers
    model = keras.Sequential(
        [
            keras.Input((180, 180, 3)),
            layers.Rescaling(1.0 / 255),
            layers.Conv2D(16, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Conv2D(32, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Conv2D(64, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Dropout(0.2),
            layers.Flatten(),
            layers.Dense(128, activation="relu"),
            layers.Dense(5),
        ],
        name="flowers_cnn",
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model, images(180)


def transfer_tutorial() -> tuple[Any, tf.data.Dataset]:
    layers = keras.layers
    base = keras.applications.MobileNetV2(
        input_shape=(160, 160, 3), include_top=False, weights=None
    )
    base.trainable = False
    inputs = keras.Input((160, 160, 3))
    x = keras.applications.mobilenet_v2.preprocess_input(inputs)
    x = base(x, training=False)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    outputs = layers.Dense(1)(x)
    model = keras.Model(inputs, outputs, name="mobilenet_transfer")
    model.compile(
        optimizer=keras.optimizers.Adam(1e-4),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    ds = images(160, classes=2)
    return model, ds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"TF {tf.__version__}, Keras {keras.__version__}, {os.cpu_count()} CPU(s)")
    for build in (classification_tutorial, transfer_tutorial):
        keras.utils.set_random_seed(0)
        model, ds = build()
        for i in range(args.repeats):
            start = time.perf_counter()
            report = overfit_small_batch(model, ds)
            report.to_html()
            seconds = time.perf_counter() - start
            print(
                f"{model.name}, call {i + 1}: {seconds:6.1f} s, {report.samples} examples, "
                f"{report.steps} steps; {report.summary[0][:110]}"
            )


if __name__ == "__main__":
    main()
