"""P16 majority-class: a classifier whose predictions collapse to the majority class, seen
after a real ``fit`` under ``%%tfgrad`` / ``record_gradients`` and by ``%tflint --data``;
the clean twins (scaled inputs, a healthy CNN) stay silent."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.interactiveshell import InteractiveShell

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.collect.fit_outcome import ClassifierHead, Predictions, predict_classes
from tfnb_debug.diagnostics.outcomes import OutcomeThresholds, majority_class
from tfnb_debug.features.fit_data import classifier_head


def _tabular() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """600 rows, 6 features, 15% positives decided by two features; the same rows unscaled."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 6)).astype("float32")
    score = x[:, 0] + 0.5 * x[:, 1]
    y = (score > np.quantile(score, 0.85)).astype("int32")
    scale = np.array([1e4, 3e3, 50, 1e5, 7, 2e3], "float32")
    raw = x * scale + np.array([5e4, 0, 100, 2e5, 0, 1e3], "float32")
    return x, raw, y


def _mlp(hidden: tuple[int, ...] = (32, 16), optimizer: Any = "sgd") -> keras.Model:
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            *[keras.layers.Dense(h, activation="relu") for h in hidden],
            keras.layers.Dense(1, activation="sigmoid", name="out"),
        ]
    )
    model.compile(optimizer, "binary_crossentropy", metrics=["accuracy"])
    return model


def _p16(report: Any) -> Any:
    found = [f for f in report.findings if f.code == "P16"]
    assert len(found) == 1, report.codes()
    return found[0]


def test_p16_after_fit_on_unscaled_features_names_share_accuracy_and_counts() -> None:
    _, raw, y = _tabular()
    model = _mlp()
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(raw, y, epochs=8, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] == pytest.approx(0.85, abs=0.005)
    assert np.all(model.predict(raw, verbose=0) < 0.5)  # predict returns 0 for every row
    found = _p16(rec.report)
    text = found.to_text()
    assert found.severity == "warning"
    assert "model 'sequential" in text and "output 'out'" in text
    assert "predicts class 0 for 256 of 256 training examples" in text
    assert "accuracy 0.850 (fit reported)" in text and "(85.0%)" in text
    assert "class 1 is 15.0% of them and never predicted" in text
    assert "labels: 0: 510 (85.0%), 1: 90 (15.0%) of 600" in text
    assert "0: 256, 1: 0" in text
    assert "the output is 0.3907 for every example" in text
    # the fix fits the evidence: raw inputs, no class weights, no minority metric, dead output
    assert "scale the inputs (their values reach 4.487e+05)" in found.hint
    assert "norm.adapt(raw)" in found.hint  # the array the user passed, by name
    assert "class_weight={0: 0.59, 1: 3.33}" in found.hint
    assert "keras.metrics.AUC()" in found.hint and "Recall" in found.hint
    assert "dead ReLUs in 'dense" in found.hint  # the hidden layers are ReLUs
    assert "saturated" not in found.hint
    assert "softmax" not in text and "from_logits" not in text


def test_p16_hint_leaves_out_what_the_user_already_did() -> None:
    """Scaled inputs, class weights and an AUC metric given: the hint does not repeat them."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 6)).astype("float32")
    y = (rng.random(400) < 0.15).astype("int32")  # labels with no signal: the model cannot learn
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(
        keras.optimizers.Adam(0.01),
        keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy(threshold=0.0), keras.metrics.AUC(from_logits=True)],
    )
    with tfnb_debug.record_gradients() as rec:
        model.fit(x, y, epochs=6, batch_size=32, verbose=0, class_weight={0: 1.0, 1: 1.0})
    found = _p16(rec.report)
    assert "binary_accuracy" in found.message
    assert "scale the inputs" not in found.hint
    assert "class_weight" not in found.hint
    assert "AUC" not in found.hint


def test_p16_silent_when_the_scaled_model_learns_the_minority() -> None:
    x, _, y = _tabular()
    model = _mlp((16,), keras.optimizers.Adam(0.01))
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] > 0.95
    assert "P16" not in rec.report.codes()


def test_p16_from_a_dataset_with_one_hot_labels_and_softmax() -> None:
    """Three classes 80/10/10 with labels the inputs do not predict: every prediction is 0."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(480, 5)).astype("float32")
    ids = rng.choice(3, size=480, p=[0.8, 0.1, 0.1])
    y = keras.utils.to_categorical(ids, 3)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((5,)), keras.layers.Dense(3, activation="softmax", name="probs")]
    )
    model.compile(keras.optimizers.Adam(0.05), "categorical_crossentropy", metrics=["accuracy"])
    with tfnb_debug.record_gradients() as rec:
        model.fit(ds, epochs=5, verbose=0)
    found = _p16(rec.report)
    text = found.to_text()
    assert "predictions on the first 8 batches of the dataset (256 examples)" in text
    assert "the other classes are" in text and "never predicted" in text
    assert "per-class recall" in found.hint and "keras.metrics.AUC()" not in found.hint


def test_p15_p16_p17_silent_on_a_healthy_cnn() -> None:
    """A small CNN on learnable synthetic images (which quadrant is bright, 4 classes), with a
    separate validation dataset."""
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 4, size=512)
    images = rng.normal(0, 0.3, size=(512, 12, 12, 1)).astype("float32")
    for i, c in enumerate(labels):
        r, col = divmod(int(c), 2)
        images[i, r * 6 : r * 6 + 6, col * 6 : col * 6 + 6, 0] += 1.0
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((12, 12, 1)),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(4, activation="softmax"),
        ]
    )
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((images[:448], labels[:448])).shuffle(448).batch(32)
    val = tf.data.Dataset.from_tensor_slices((images[448:], labels[448:])).batch(32)
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(ds, validation_data=val, epochs=3, verbose=0)
    assert history.history["accuracy"][-1] > 0.8
    assert not {"P15", "P16", "P17"} & set(rec.report.codes())


def test_predict_classes_restores_every_state_bit_for_bit() -> None:
    _, raw, y = _tabular()
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.BatchNormalization(),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.compile("adam", "binary_crossentropy")
    model.fit(raw[:64], y[:64], epochs=1, verbose=0)
    before = [np.array(v.numpy()) for v in model.variables + model.optimizer.variables]
    head = classifier_head(model)
    assert head == ClassifierHead(model.layers[-1].name, "binary", False, 1)
    found = predict_classes(model, (raw, y), head)
    assert found is not None and found.examples == 256 and found.labelled == 600
    assert found.scaling_layer == model.layers[0].name
    after = [np.array(v.numpy()) for v in model.variables + model.optimizer.variables]
    assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


class _Counted(keras.layers.Layer):
    """An identity layer that counts the calls that reach it."""

    calls = 0

    def call(self, x: Any) -> Any:
        _Counted.calls += 1
        return x


def test_labels_that_are_not_one_class_per_example_are_not_predicted_on() -> None:
    """A segmentation mask (or a sequence of labels) per example: P16 has nothing to count,
    so the model is never run for it (a U-Net's cell paid 0.6 s of eager forward passes)."""
    inputs = keras.Input((8, 8, 3))
    outputs = keras.layers.Conv2D(3, 1, activation="softmax")(_Counted()(inputs))
    model = keras.Model(inputs, outputs)
    model.compile("adam", "sparse_categorical_crossentropy")
    head = ClassifierHead(model.layers[-1].name, "sparse", False, 3)
    rng = np.random.default_rng(0)
    x = rng.random((80, 8, 8, 3), dtype=np.float32)
    masks = rng.integers(0, 3, (80, 8, 8, 1))
    _Counted.calls = 0
    assert predict_classes(model, (x, masks), head) is None
    dataset = tf.data.Dataset.from_tensor_slices((x, masks)).batch(16)
    assert predict_classes(model, dataset, head) is None
    assert _Counted.calls == 0
    labels = rng.integers(0, 3, 80)  # one class per example: read, on the same model
    flat = keras.Sequential(
        [
            keras.Input((8, 8, 3)),
            _Counted(),
            keras.layers.Flatten(),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )
    found = predict_classes(
        flat, (x, labels), ClassifierHead(flat.layers[-1].name, "sparse", False, 3)
    )
    assert found is not None and found.examples == 80 and _Counted.calls > 0


def test_tflint_data_reports_p16_for_a_trained_model_and_waits_for_training(
    shell: InteractiveShell,
) -> None:
    _, raw, y = _tabular()
    model = _mlp()
    shell.user_ns.update(model=model, raw=raw, y=y)
    untrained = run_magic(shell, "%tflint model --data raw,y -o").result
    assert "P16" not in untrained.codes()
    assert (
        "P16",
        "predictions vs the majority class",
        "not checked: the model has not trained yet",
    ) in untrained.checks
    model.fit(raw, y, epochs=8, batch_size=32, verbose=0)
    shown = run_magic(shell, "%tflint model --data raw,y -o")
    found = _p16(shown.result)
    assert "P16 majority-class" in shown.text
    # measured on the 256 sampled rows, against their own labels (221 of them class 0)
    assert (
        "its accuracy 0.863 (measured) is just the share of class 0 in the labels of those "
        "examples (86.3%)" in found.message
    )
    assert "scale the inputs" in found.hint and "norm.adapt(x)" in found.hint
    # --data may be any data: the finding does not call it training data
    assert "of 256 examples of --data" in found.message and "training" not in found.message


def test_tfgrad_magic_shows_p16(shell: InteractiveShell) -> None:
    _, raw, y = _tabular()
    shell.user_ns.update(model=_mlp(), raw=raw, y=y)
    shown = run_magic(shell, "%%tfgrad", "model.fit(raw, y, epochs=8, batch_size=32, verbose=0)")
    assert "P16 majority-class (warning)" in shown.text
    assert "class_weight={0: 0.59, 1: 3.33}" in shown.text


@pytest.mark.parametrize("magic", ["%%tfmem -o --no-live", "%%tfcheck -o --no-live"])
def test_tfmem_and_tfcheck_show_p16_read_at_the_end_of_the_cell(
    shell: InteractiveShell, magic: str
) -> None:
    """The same outcome as under %%tfgrad, its predictions read once the cell's recording
    has ended: labels the inputs do not predict (15% positives) collapse to class 0; the
    learnable twin stays silent."""
    x, _, y = _tabular()
    noise = (np.random.default_rng(1).random(600) < 0.15).astype("int32")
    shell.user_ns.update(model=_mlp((4,), keras.optimizers.Adam(0.01)), x=x, noise=noise, y=y)
    fit = "model.fit(x, noise, epochs=6, batch_size=32, verbose=0)"
    found = _p16(run_magic(shell, magic, fit).result)
    assert "predicts class 0 for 256 of 256 training examples" in found.message
    assert "(fit reported) is just the share of class 0 in the labels" in found.message
    assert "class_weight={0: " in found.hint and "keras.metrics.AUC()" in found.hint
    shell.user_ns.update(model=_mlp((16,), keras.optimizers.Adam(0.01)))
    twin = run_magic(shell, magic, "model.fit(x, y, epochs=10, batch_size=32, verbose=0)")
    assert "P16" not in twin.result.codes()


# -- the rule on hand-made facts -------------------------------------------------------


def _facts(labels: tuple[int, int], predicted: tuple[int, int], correct: int) -> Predictions:
    return Predictions(
        output="out",
        classes=("0", "1"),
        labels=labels,
        labelled=sum(labels),
        predicted=predicted,
        sampled=labels,
        correct=correct,
        examples=sum(predicted),
        first_output=(0.2,),
        spread=0.5,
        input_peak=1.0,
        scaling_layer=None,
        source="200 examples",
        binary=True,
    )


def test_p16_rule_silent_on_skill_a_rare_minority_and_an_accuracy_elsewhere() -> None:
    assert majority_class(_facts((170, 30), (200, 0), 170))  # the collapse itself
    assert not majority_class(_facts((170, 30), (175, 25), 190))  # two classes, with skill
    assert not majority_class(_facts((195, 5), (200, 0), 195))  # minority 2.5%: below 5%
    # the history says 0.95: not the majority share, whatever the sample shows
    assert not majority_class(_facts((170, 30), (200, 0), 170), accuracy=("accuracy", 0.95))
    assert not majority_class(_facts((17, 3), (20, 0), 17))  # too few examples to judge
    loose = OutcomeThresholds(collapsed=0.9)
    assert majority_class(_facts((170, 30), (185, 15), 175), thresholds=loose)


def test_p16_constant_output_hint_names_only_what_the_model_has() -> None:
    """The hint for an output that ignores its input reads the model's hidden layers: a tanh
    stack is not told about dead ReLUs, and a model with none of the kinds gets no guess."""
    from dataclasses import replace

    from tfnb_debug.collect.model_config import hidden_blockers

    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation="tanh", name="t1", kernel_initializer="zeros"),
            keras.layers.Dense(8, activation="tanh", name="t2"),
            keras.layers.Dense(1, activation="sigmoid", name="out"),
        ]
    )
    hidden = hidden_blockers(model)
    assert dict(hidden)["saturating"] == ("t1", "t2")  # the sigmoid output is not hidden
    assert "'t1'" in dict(hidden)["initializer"][0] and "relu" not in dict(hidden)
    flat = replace(_facts((170, 30), (200, 0), 170), spread=0.0, hidden=hidden)
    hint = majority_class(flat)[0].hint
    assert "saturated sigmoid/tanh units in 't1', 't2'" in hint
    assert "initializers that cannot start learning: 't1'" in hint
    assert "ReLU" not in hint
    plain = majority_class(replace(flat, hidden=()))[0].hint
    assert "check what each layer before it outputs" in plain and "ReLU" not in plain


def test_a_failing_after_fit_reader_leaves_fit_alone() -> None:
    from tfnb_debug.collect.fit_args import FitArgsRecorder

    x, _, y = _tabular()
    model = _mlp((4,))

    def broken(*args: Any) -> Any:
        raise RuntimeError("reader bug")

    with FitArgsRecorder(after_fit=broken) as recorder:
        history = model.fit(x[:64], y[:64], epochs=1, verbose=0)
    assert isinstance(history, keras.callbacks.History) and history.history["loss"]
    assert recorder.outcomes == [] and len(recorder.calls) == 1


def test_tflint_reads_p16_from_a_dataset(shell: InteractiveShell) -> None:
    _, raw, y = _tabular()
    model = _mlp()
    model.fit(raw, y, epochs=8, batch_size=32, verbose=0)
    shell.user_ns.update(model=model, ds=tf.data.Dataset.from_tensor_slices((raw, y)).batch(50))
    report = run_magic(shell, "%tflint model --data ds -o").result
    found = _p16(report)
    assert "the first 6 batches of the dataset (300 examples)" in found.evidence
    assert report.checks[-1][:2] == ("P16", "predictions vs the majority class")


def test_a_prediction_cut_short_by_time_still_samples_sorted_arrays_across(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tfnb_debug.collect import fit_outcome

    _, raw, y = _tabular()
    order = np.argsort(y, kind="stable")  # sorted by class: 510 zeros, then 90 ones
    model = _mlp()
    model.fit(raw[:64], y[:64], epochs=1, verbose=0)
    head = classifier_head(model)
    assert head is not None
    # calls of 16 rows (as for a large input): the budget is spent after the first call, and
    # predicting goes on to MIN_EXAMPLES, then stops
    monkeypatch.setattr(fit_outcome, "_CALL_ELEMENTS", 16 * raw.shape[1])
    found = predict_classes(model, (raw[order], y[order]), head, max_seconds=0.0)
    assert found is not None and found.examples == fit_outcome.MIN_EXAMPLES == 64
    assert found.sampled[1] > 0 and found.sampled[0] > 0  # not just the first, sorted rows
    assert found.labels == (510, 90)  # labels are still counted over all the arrays


def test_predictions_after_a_fit_take_a_share_of_the_fits_own_time() -> None:
    from tfnb_debug.collect.fit_outcome import MAX_SECONDS, MIN_SECONDS, fit_budget

    assert fit_budget(None) == MAX_SECONDS
    assert fit_budget(0.5) == MIN_SECONDS  # a short fit: at least MIN_SECONDS (and 64 rows)
    assert fit_budget(10.0) == pytest.approx(0.5)
    assert fit_budget(600.0) == MAX_SECONDS


def test_a_small_input_is_predicted_in_one_call_and_a_large_one_in_calls_of_at_least_16() -> None:
    from tfnb_debug.collect.fit_outcome import rows_per_call

    assert rows_per_call(np.zeros((512, 20), "float32")) == 256
    assert rows_per_call(np.zeros((512, 96, 96, 3), "float32")) == 37
    assert rows_per_call((np.zeros((8, 224, 224, 3)), np.zeros((8, 10)))) == 16
