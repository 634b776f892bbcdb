"""P15 labels-unlearnable from ``%%tfgrad``'s recorded history: ``random.shuffle(x)`` with
``y`` left in order keeps validation at chance while the training accuracy rises; the
aligned twin stays silent."""

from __future__ import annotations

import random

import keras
import numpy as np
from IPython.core.interactiveshell import InteractiveShell

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.collect.fit_outcome import FitOutcome, Predictions
from tfnb_debug.diagnostics.outcomes import labels_unlearnable


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 40)).astype("float32")
    return x, (x[:, 0] + x[:, 1] > 0).astype("int32")


def _model() -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((40,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile(keras.optimizers.Adam(0.003), "binary_crossentropy", metrics=["accuracy"])
    return model


FIT = "model.fit(x, y, epochs=12, batch_size=16, validation_split=0.3, verbose=0)"


def test_p15_when_x_was_shuffled_without_y(shell: InteractiveShell) -> None:
    x, y = _data()
    random.Random(0).shuffle(x)  # type: ignore[arg-type]  # the bug: x shuffled, y not
    shell.user_ns.update(model=_model(), x=x, y=y)
    shown = run_magic(shell, "%%tfgrad -o", FIT)
    (found,) = [f for f in shown.result.findings if f.code == "P15"]
    assert "P15 labels-unlearnable (warning) at fit of model" in shown.text
    assert "validation accuracy stays at chance for all 12 epochs" in found.message
    assert "of the 60 validation labels, is 0.500" in found.message
    assert "while training accuracy rose from" in found.message
    assert "(in inference mode 0." in found.message
    assert "no control run on shuffled labels was made" in found.evidence
    assert "np.random.permutation(len(x)); x, y = x[idx], y[idx]" in found.hint
    assert "shuffled copy of the labels" in found.hint
    assert "P16" not in shown.result.codes()  # it does not collapse: it memorizes


def test_p15_silent_when_validation_learns() -> None:
    x, y = _data()
    model = _model()
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(x, y, epochs=12, batch_size=16, validation_split=0.3, verbose=0)
    assert max(history.history["val_accuracy"]) > 0.75
    assert "P15" not in rec.report.codes()


def _outcome(train: tuple[float, ...], val: tuple[float, ...], inference: int = 180) -> FitOutcome:
    seen = Predictions(
        output="out",
        classes=("0", "1"),
        labels=(100, 100),
        labelled=200,
        predicted=(100, 100),
        sampled=(100, 100),
        correct=inference,
        examples=200,
        first_output=(0.5,),
        spread=1.0,
        input_peak=1.0,
        scaling_layer=None,
        source="200 examples",
        binary=True,
    )
    return FitOutcome(
        model="m",
        history=(("accuracy", train), ("val_accuracy", val)),
        metric_kinds=(),
        class_weight=False,
        predictions=seen,
        validation_labels=(100, 100),
    )


def test_p15_rule_needs_epochs_a_fit_and_validation_at_chance() -> None:
    assert labels_unlearnable(_outcome((0.5, 0.8, 0.95), (0.5, 0.49, 0.52)))
    # in inference mode the training examples are at chance too: a train/inference gap
    assert not labels_unlearnable(_outcome((0.5, 0.8, 0.95), (0.5, 0.49, 0.52), inference=102))
    assert not labels_unlearnable(_outcome((0.5, 0.8), (0.5, 0.49)))  # too few epochs
    assert not labels_unlearnable(_outcome((0.5, 0.8, 0.95), (0.5, 0.6, 0.7)))  # learns
    assert not labels_unlearnable(_outcome((0.5, 0.52, 0.55), (0.5, 0.49, 0.5)))  # a hard task


def test_the_validation_labels_are_read_from_a_validation_dataset() -> None:
    import tensorflow as tf

    from tfnb_debug.fit_data import outcome_of_fit

    x, y = _data()
    train = tf.data.Dataset.from_tensor_slices((x[:140], y[:140])).batch(32)
    val = tf.data.Dataset.from_tensor_slices((x[140:], y[140:])).batch(16)
    model = _model()
    history = model.fit(train, validation_data=val, epochs=1, verbose=0)
    outcome = outcome_of_fit(model, {"x": train, "validation_data": val}, history)
    assert outcome is not None
    assert outcome.validation_labels == tuple(np.bincount(y[140:], minlength=2).tolist())
    assert outcome.metric("val_accuracy") == tuple(history.history["val_accuracy"])
