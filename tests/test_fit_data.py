"""P13 validation-split-skew and P14 steps-exceed-data: the rules over plain facts, the
recorder of ``fit`` arguments, and real ``fit`` calls driven through the real magics."""

from __future__ import annotations

import math
import threading
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as tf
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect.fit_args import FitArgsRecorder, FitCall, label_counts, original_fit
from tfnb_debug.diagnostics.fit_data import (
    FitDataThresholds,
    epoch_steps,
    fit_data_findings,
    hypergeometric_tail,
    steps_exceed_data,
    validation_split_skew,
)
from tfnb_debug.ground.errors import TfnbDebugError

SORTED = np.repeat(np.arange(4), 50)  # 200 labels sorted by class: the last 20% are all class 3


def _split_call(y: Any, split: float = 0.2) -> FitCall:
    split_at = int(len(y) * (1 - split))
    return FitCall(model="m", validation_split=split, labels=label_counts(y, split_at))


# -- labels --------------------------------------------------------------------------


def test_label_counts_reads_class_ids_one_hot_and_binary_columns() -> None:
    ids = label_counts(SORTED, 160)
    assert ids is not None and ids.encoding == "class ids"
    assert ids.classes == ("0", "1", "2", "3")
    assert ids.train == (50.0, 50.0, 50.0, 10.0) and ids.validation == (0.0, 0.0, 0.0, 40.0)

    one_hot = label_counts(keras.utils.to_categorical(SORTED, 4), 160)
    assert one_hot is not None and one_hot.encoding == "one-hot"
    assert (one_hot.train, one_hot.validation) == (ids.train, ids.validation)

    binary = label_counts((SORTED >= 2).astype("float32").reshape(-1, 1), 160)
    assert binary is not None and binary.encoding == "binary"
    assert binary.classes == ("0", "1") and binary.validation == (0.0, 40.0)


def test_label_counts_skips_regression_targets_and_multi_label_rows() -> None:
    rng = np.random.default_rng(0)
    assert label_counts(np.sort(rng.normal(size=200)), 160) is None  # continuous floats
    assert label_counts(np.arange(5000), 4000) is None  # more distinct values than classes
    multi_label = (rng.random((200, 3)) > 0.5).astype("float32")
    assert label_counts(multi_label, 160) is None
    assert label_counts(np.zeros(200, "int64"), 160) is None  # one class: nothing to compare


# -- P13 rule --------------------------------------------------------------------------


def test_p13_names_the_classes_on_one_side_and_their_shares() -> None:
    (found,) = validation_split_skew(_split_call(SORTED))
    text = found.to_text()
    assert found.code == "P13" and found.severity == "warning"
    assert "fit(validation_split=0.2) of model 'm'" in text
    assert "classes 0, 1, 2 only in training" in text
    assert "3: 6.2% vs 100.0%" in text  # 10/160 in training vs 40/40 in validation
    assert "np.random.permutation" in found.hint and "validation_data" in found.hint


def test_p13_reports_a_share_more_than_twice_apart() -> None:
    # class 1 makes up 25% of the training part and 75% of the validation part
    y = np.concatenate([np.tile([0, 0, 0, 1], 200), np.tile([0, 1, 1, 1], 50)])
    (found,) = validation_split_skew(_split_call(y))
    assert "classes 0, 1 more than 2x apart" in found.message
    assert "1: 25.0% vs 75.0%" in found.evidence


def test_p13_is_silent_on_shuffled_labels_and_on_rare_classes() -> None:
    rng = np.random.default_rng(1)
    for seed in range(20):  # many random splits of 10 classes: never a finding
        y = np.random.default_rng(seed).permutation(np.repeat(np.arange(10), 100))
        assert validation_split_skew(_split_call(y)) == []
    for seed in range(20):  # 500 classes of 5 examples: some class lands all on one side
        y = np.random.default_rng(seed).permutation(np.repeat(np.arange(500), 5))
        assert validation_split_skew(_split_call(y)) == []
    # 3 examples of class 2, all in the training part: a random split does that often
    y = rng.permutation(np.concatenate([np.repeat([0, 1], 100), [2, 2, 2]]))
    y = np.concatenate([y[y == 2], y[y != 2]])
    assert validation_split_skew(_split_call(y)) == []


def test_p13_thresholds_are_overridable_and_validated() -> None:
    y = np.concatenate([np.tile([0, 0, 0, 1], 200), np.tile([0, 1, 1, 1], 50)])
    assert validation_split_skew(_split_call(y), FitDataThresholds(share_ratio=4.0)) == []
    # classes 0-2 (none of 50 in the validation part) have p = 4 x C(150, 40) / C(200, 40)
    (strict,) = validation_split_skew(_split_call(SORTED), FitDataThresholds(max_p=1e-6))
    assert "only in training" not in strict.message and "class 3 more than" in strict.message
    with pytest.raises(TfnbDebugError, match="share_ratio"):
        FitDataThresholds(share_ratio=1.0)
    with pytest.raises(TfnbDebugError, match="max_p"):
        FitDataThresholds(max_p=0.0)


# -- P14 rule --------------------------------------------------------------------------


def test_hypergeometric_tail_is_exact() -> None:
    # all 20 validation labels from one class of 50 in 100: C(50, 20) / C(100, 20)
    assert hypergeometric_tail(20, 100, 50, 20) == pytest.approx(
        math.comb(50, 20) / math.comb(100, 20)
    )
    assert hypergeometric_tail(0, 100, 50, 20) == pytest.approx(
        math.comb(50, 20) / math.comb(100, 20)
    )
    assert hypergeometric_tail(10, 100, 50, 20) > 0.5  # the mean itself is no evidence


def test_epoch_steps_follows_keras_iterator() -> None:
    assert epoch_steps(10, 4, 5) == [4, 4, 2, 4, 4]
    assert epoch_steps(10, 5, 4) == [5, 5, 5, 5]
    assert epoch_steps(10, 15, 2) == [10, 10]


def test_p14_says_batches_and_steps_and_fits_the_fix_to_the_cause() -> None:
    call = FitCall(model="m", x_name="train_ds", steps_per_epoch=4, epochs=5, batches=10)
    (found,) = steps_exceed_data(call)
    assert found.place == "fit(steps_per_epoch=4, epochs=5) of model 'm'"
    assert "dataset `train_ds` ends after 10 batches" in found.message
    assert "epoch 3: 2 of 4 steps" in found.message and "18 of the 20 steps" in found.message
    assert "steps_per_epoch that divides 10 (e.g. 5)" in found.hint

    more = FitCall(model="m", steps_per_epoch=15, epochs=2, batches=10)
    (found,) = steps_exceed_data(more)
    assert "every epoch stopped after 10 of 15 steps" in found.message
    assert found.hint.startswith("drop steps_per_epoch")

    assert steps_exceed_data(FitCall(model="m", steps_per_epoch=5, epochs=4, batches=10)) == []
    assert steps_exceed_data(FitCall(model="m", steps_per_epoch=5, epochs=4)) == []  # repeat


def test_the_same_finding_from_several_fit_calls_is_reported_once() -> None:
    call = FitCall(model="m", steps_per_epoch=15, epochs=2, batches=10)
    (found,) = fit_data_findings([call, call, call])
    assert found.message.endswith("(the same in 3 fit calls)")


# -- the recorder ----------------------------------------------------------------------


def _model(units: int = 4, name: str = "clf") -> keras.Model:
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(units, activation="softmax")], name=name
    )
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    return model


def test_fit_is_restored_after_an_error_and_an_interrupt() -> None:
    original = original_fit()
    model = _model()

    class Interrupt(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), FitArgsRecorder() as outer:
        assert keras.Model.fit is not original
        with pytest.raises(ValueError), FitArgsRecorder():
            raise ValueError("user error")
        assert keras.Model.fit is not original  # the outer recorder still holds the patch
        model.fit(np.zeros((4, 3)), np.zeros(4), verbose=0, callbacks=[Interrupt()])
    assert keras.Model.fit is original and original_fit() is original
    assert len(outer.calls) == 1 and outer.calls[0].model == "clf"


def test_only_the_thread_that_entered_records() -> None:
    model = _model()
    x, y = np.zeros((4, 3)), np.zeros(4)
    with FitArgsRecorder() as recorder:
        other = threading.Thread(target=lambda: model.fit(x, y, verbose=0))
        other.start()
        other.join()
        assert recorder.calls == []
        model.fit(x, y, verbose=0)
    assert len(recorder.calls) == 1


@pytest.mark.slow
def test_epoch_steps_matches_the_steps_keras_runs() -> None:
    model = _model()
    data = tf.data.Dataset.from_tensor_slices((np.zeros((40, 3)), np.zeros(40))).batch(4)

    class Count(keras.callbacks.Callback):
        def __init__(self) -> None:
            super().__init__()
            self.counted: list[int] = []

        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            self.counted.append(0)

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            self.counted[-1] += 1

    for steps, epochs in [(4, 5), (3, 4), (15, 2)]:
        count = Count()
        with pytest.warns(UserWarning, match="ran out of data"):
            model.fit(data, steps_per_epoch=steps, epochs=epochs, verbose=0, callbacks=[count])
        assert count.counted == epoch_steps(10, steps, epochs), (steps, epochs)


# -- through the magics, with real fit calls -------------------------------------------

SETUP = """
import numpy as np, keras, tensorflow as tf
x = np.random.default_rng(0).random((200, 3)).astype("float32")
y = np.repeat(np.arange(4), 50)                      # sorted by class
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="softmax")],
                         name="clf")
model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
train_ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(20)   # 10 batches, no repeat()
"""


def _setup(shell: InteractiveShell) -> None:
    assert shell.run_cell(SETUP).success


@pytest.mark.slow
def test_tfgrad_reports_p13_for_a_sorted_validation_split(shell: InteractiveShell) -> None:
    _setup(shell)
    shown = run_magic(
        shell, "%%tfgrad -o", cell="model.fit(x, y, validation_split=0.2, epochs=1, verbose=0)"
    )
    (found,) = [f for f in shown.result.findings if f.code == "P13"]
    assert found.place == "fit(validation_split=0.2) of model 'clf'"
    assert "labels of `y`" in found.message and "classes 0, 1, 2 only in training" in found.message
    assert "x, y = x[p], y[p]" in found.hint
    assert "P13 validation-split-skew (warning)" in shown.text


@pytest.mark.slow
def test_tfgrad_is_silent_after_a_shuffle_and_with_validation_data(
    shell: InteractiveShell,
) -> None:
    _setup(shell)
    cell = (
        "p = np.random.permutation(len(y))\n"
        "xs, ys = x[p], y[p]\n"
        "model.fit(xs, ys, validation_split=0.2, epochs=1, verbose=0)\n"
        "model.fit(x[:160], y[:160], validation_data=(x[160:], y[160:]), validation_split=0.2,"
        " epochs=1, verbose=0)\n"
    )
    shown = run_magic(shell, "%%tfgrad -o", cell=cell)
    assert "P13" not in shown.result.codes()
    assert "P13" not in shown.text


@pytest.mark.slow
def test_tfmem_reports_p14_and_a_repeated_dataset_stays_silent(shell: InteractiveShell) -> None:
    _setup(shell)
    shown = run_magic(
        shell, "%%tfmem -o", cell="model.fit(train_ds, steps_per_epoch=4, epochs=5, verbose=0)"
    )
    (found,) = [f for f in shown.result.findings if f.code == "P14"]
    assert "dataset `train_ds` ends after 10 batches" in found.message
    assert "18 of the 20 steps asked ran" in found.message
    assert "P14 steps-exceed-data (warning)" in shown.text

    clean = (
        "model.fit(train_ds.repeat(), steps_per_epoch=4, epochs=5, verbose=0)\n"
        "model.fit(train_ds, steps_per_epoch=5, epochs=2, verbose=0)\n"
        "model.fit(train_ds.filter(lambda a, b: True), steps_per_epoch=4, epochs=1, verbose=0)\n"
    )
    shown = run_magic(shell, "%%tfmem -o", cell=clean)
    assert "P14" not in shown.result.codes()


@pytest.mark.slow
def test_tfcheck_reports_p14_for_validation_steps_and_p13(shell: InteractiveShell) -> None:
    _setup(shell)
    cell = (
        "val_ds = train_ds.take(3)\n"
        "model.fit(train_ds, epochs=1, validation_data=val_ds, validation_steps=5, verbose=0)\n"
        "model.fit(x, y, validation_split=0.2, epochs=1, verbose=0)\n"
    )
    shown = run_magic(shell, "%%tfcheck -o", cell=cell)
    by_code = {f.code: f for f in shown.result.findings}
    assert set(by_code) >= {"P13", "P14"}
    assert by_code["P14"].place == "fit(validation_steps=5) of model 'clf'"
    assert "validation dataset `val_ds` ends after 3 batches" in by_code["P14"].message

    clean = "model.fit(train_ds, epochs=1, validation_data=train_ds.take(3), verbose=0)\n"
    shown = run_magic(shell, "%%tfcheck -o", cell=clean)
    assert not {"P13", "P14"} & set(shown.result.codes())


@pytest.mark.slow
def test_tfgrad_with_mem_shows_p13_once(shell: InteractiveShell) -> None:
    _setup(shell)
    shown = run_magic(
        shell,
        "%%tfgrad --mem -o",
        cell="model.fit(x, y, validation_split=0.2, epochs=1, verbose=0)",
    )
    assert shown.result.codes().count("P13") == 1


@pytest.mark.slow
def test_tflint_validation_split_reports_p13_and_a_shuffled_twin_stays_silent(
    shell: InteractiveShell,
) -> None:
    _setup(shell)
    shown = run_magic(shell, "%tflint -o model --data x,y --validation-split 0.2")
    (found,) = [f for f in shown.result.findings if f.code == "P13"]
    assert "3: 6.2% vs 100.0%" in found.evidence
    assert ("P13", "labels of validation_split=0.2", "ran (last 20%: 40 of 200 labels)") in (
        shown.result.checks
    )
    shell.run_cell("p = np.random.permutation(len(y)); xs, ys = x[p], y[p]")
    shown = run_magic(shell, "%tflint -o model --data xs,ys --validation-split 0.2")
    assert "P13" not in shown.result.codes()


def test_tflint_validation_split_needs_arrays(shell: InteractiveShell) -> None:
    _setup(shell)
    with pytest.raises(UsageError, match="needs --data as \\(x, y\\) arrays"):
        run_magic(shell, "%tflint model --data train_ds --validation-split 0.2")
    with pytest.raises(UsageError, match="between 0 and 1"):
        run_magic(shell, "%tflint model --data x,y --validation-split 1.5")


@pytest.mark.slow
def test_recording_adds_no_retrace() -> None:
    from tfnb_debug.collect._patching import trace_hook

    model = _model()
    x, y = np.zeros((8, 3), "float32"), np.zeros(8, "int64")

    def fits() -> None:
        model.fit(x, y, validation_split=0.25, verbose=0)
        model.fit(x, y, verbose=0)

    fits()  # traces the train and test functions once
    plain: list[str] = []
    recorded: list[str] = []
    with trace_hook(lambda name, key, signature: plain.append(name)):
        fits()  # Keras traces its own input pipeline (dataset maps) at every fit
    with trace_hook(lambda name, key, signature: recorded.append(name)), FitArgsRecorder() as rec:
        fits()
    assert len(rec.calls) == 2
    assert sorted(recorded) == sorted(plain)
    assert not [name for name in recorded if "function" in name or "step" in name], recorded


def test_tfmem_restores_fit_when_the_cell_raises(shell: InteractiveShell) -> None:
    original = original_fit()
    with pytest.raises(ZeroDivisionError):
        run_magic(shell, "%%tfmem -q", cell="1 / 0")
    assert keras.Model.fit is original
