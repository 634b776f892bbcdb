"""N04 is about raw pixels: centered data (caffe-style mean subtraction) is not flagged."""

from __future__ import annotations

import keras
import numpy as np

from tfnb_debug import lint_model


def conv_model() -> keras.Model:
    # like VGG16/ResNet50: no Rescaling in front, trained on mean-subtracted BGR pixels
    model = keras.Sequential(
        [
            keras.Input((8, 8, 3)),
            keras.layers.Conv2D(4, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def test_n04_on_raw_pixels_but_not_on_caffe_preprocessed_ones() -> None:
    raw = np.random.default_rng(0).uniform(0, 255, (4, 8, 8, 3)).astype("float32")
    y = np.array([0, 1, 2, 3])
    model = conv_model()
    assert lint_model(model, data=(raw, y)).codes() == ["N04"]
    # what keras.applications.vgg16.preprocess_input makes of them: BGR minus the
    # ImageNet mean, in about [-124, 152]; the model expects exactly this input
    centered = keras.applications.vgg16.preprocess_input(raw.copy())
    assert float(np.min(centered)) < 0 < 100 < float(np.max(centered))
    assert lint_model(model, data=(centered, y)).codes() == []
