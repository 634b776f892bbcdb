"""P15 labels-unlearnable: ``random.shuffle(x)`` with ``y`` left in order keeps validation at
chance while the training accuracy rises, and the control (fresh copies trained on the real
and on shuffled labels) finds the real labels teach nothing more; under ``%%tfgrad``,
``%%tfmem`` and ``%%tfcheck``.  Clean twins: aligned labels, a hard but learnable task (the
history alone would fire; the control silences it), a single epoch.  The control leaves the
user's model, optimizer and random states as a run without it does, and ``-q`` skips it."""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.collect.fit_outcome import ControlRun, FitOutcome, Predictions
from tfnb_debug.diagnostics.outcomes import (
    control_margin,
    labels_unlearnable,
    needs_label_control,
)
from tfnb_debug.features.fit_data import record_fit_args, with_fit_findings
from tfnb_debug.ground.reports import Report


def _data(kind: str = "bug", seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """200 rows of 40 features.  ``ok``: y from two features; ``bug``: the same with x shuffled
    alone; ``hard``: y from one feature under heavy noise (learnable, but barely on 140 rows)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(200, 40)).astype("float32")
    if kind == "hard":
        return x, (x[:, 0] + 1.5 * rng.normal(size=200) > 0).astype("int32")
    y = (x[:, 0] + x[:, 1] > 0).astype("int32")
    if kind == "bug":
        random.Random(0).shuffle(x)  # type: ignore[arg-type]  # the bug: x shuffled, y not
    return x, y


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


def _p15(report: Any) -> Any:
    found = [f for f in report.findings if f.code == "P15"]
    assert len(found) == 1, report.codes()
    return found[0]


def _fit_settled(
    kind: str, *, epochs: int = 12, label_control: bool | str = True, seed: int = 0
) -> tuple[keras.Model, Any, Report]:
    """Fit under record_fit_args and settle the outcome as a recording does at its end."""
    x, y = _data(kind, seed)
    model = _model()
    with record_fit_args(outcomes=True, label_control=label_control) as fits:
        model.fit(x, y, epochs=epochs, batch_size=16, validation_split=0.3, verbose=0)
    return model, fits, with_fit_findings(Report(title="t"), fits)


@pytest.mark.slow
def test_p15_tfgrad_confirmed_by_the_control(shell: InteractiveShell) -> None:
    x, y = _data("bug")
    shell.user_ns.update(model=_model(), x=x, y=y)
    shown = run_magic(shell, "%%tfgrad -o", FIT)
    found = _p15(shown.result)
    assert "P15 labels-unlearnable (warning) at fit of model" in shown.text
    assert "validation accuracy stays at chance for all 12 epochs" in found.message
    assert "of the 60 validation labels, is 0.500" in found.message
    assert "while training accuracy rose from" in found.message
    assert "(in inference mode 0." in found.message
    assert "fresh copies of the model learn no more from the real labels than" in found.message
    assert "the labels carry no signal the model can find in the inputs" in found.message
    # the control's numbers: the runs (as many pairs as its time budget allowed), the rows
    # and the two accuracies
    assert re.search(
        r"control: [123] pairs? of fresh copies, \d+ steps of 16 on 140 training rows",
        found.evidence,
    )
    assert "scored on 60 validation rows: accuracy 0." in found.evidence
    assert "with shuffled ones (chance 0.500; learnable labels beat shuffled ones" in (
        found.evidence
    )
    assert "np.random.permutation(len(x)); x, y = x[idx], y[idx]" in found.hint
    assert "fit a fresh copy" not in found.hint  # the control ran: no do-it-yourself advice
    assert "P16" not in shown.result.codes()  # it does not collapse: it memorizes


@pytest.mark.slow
@pytest.mark.parametrize("magic", ["%%tfmem -o --no-live", "%%tfcheck -o --no-live"])
def test_p15_under_tfmem_and_tfcheck_and_silent_on_aligned_labels(
    shell: InteractiveShell, magic: str
) -> None:
    x, y = _data("bug")
    shell.user_ns.update(model=_model(), x=x, y=y)
    found = _p15(run_magic(shell, magic, FIT).result)
    assert "validation accuracy stays at chance for all 12 epochs" in found.message
    assert re.search(r"control: [123] pairs? of fresh copies", found.evidence)
    x, y = _data("ok")  # the clean twin: labels that belong to their rows
    shell.user_ns.update(model=_model(), x=x, y=y)
    assert "P15" not in run_magic(shell, magic, FIT).result.codes()


def test_p15_silent_when_validation_learns() -> None:
    x, y = _data("ok")
    model = _model()
    with tfnb_debug.record_gradients() as rec:
        history = model.fit(x, y, epochs=12, batch_size=16, validation_split=0.3, verbose=0)
    assert max(history.history["val_accuracy"]) > 0.75
    assert "P15" not in rec.report.codes()


@pytest.mark.slow
def test_p15_silent_on_a_hard_but_learnable_task_the_history_alone_would_flag() -> None:
    """Noisy labels: validation stays within the chance bound of 60 labels while the model
    memorizes, so the history alone points at the labels; the control shows the real labels
    teach more than shuffled ones."""
    _, fits, report = _fit_settled("hard")
    (outcome,) = fits.outcomes
    control = outcome.control
    assert control is not None and control.ran, control
    assert control.real - control.shuffled > control_margin(control)
    assert "P15" not in report.codes()
    # without the control the history's evidence holds: the finding would be given
    assert needs_label_control(outcome)
    skipped = ControlRun(False, "skipped for the test")
    (alone,) = labels_unlearnable(dataclasses.replace(outcome, control=skipped))
    assert "no control run on shuffled labels: skipped for the test" in alone.evidence


def test_p15_silent_after_one_epoch_and_no_control_runs() -> None:
    """An underfit single epoch of a learnable task: too few epochs to judge, no control cost."""
    _, fits, report = _fit_settled("ok", epochs=1)
    (outcome,) = fits.outcomes
    assert outcome.control is None
    assert "P15" not in report.codes()


@pytest.mark.slow
def test_the_control_leaves_model_optimizer_and_random_states_as_a_cell_without_it(
    shell: InteractiveShell,
) -> None:
    """The same cell twice from the same start, with the control and with -q (skipped): the
    model, its optimizer, its metrics, the global random states and the next layer name end
    the same, bit for bit; and within the first cell nothing changed after the fit."""
    from tfnb_debug.collect.snapshot import global_seed_generator

    def state(model: keras.Model) -> list[np.ndarray]:
        return [v.numpy() for v in model.variables + model.optimizer.variables] + [
            v.numpy() for v in model.metrics_variables
        ]

    cell = FIT + (
        "\nbefore = [v.numpy() for v in model.variables + model.optimizer.variables]"
        " + [v.numpy() for v in model.metrics_variables]"
        "\nname = keras.layers.Dense(1).name"  # e.g. dense_7: the next is dense_8, or not
    )

    def run(line: str) -> tuple[Any, ...]:
        x, y = _data("bug")
        shell.user_ns.update(model=_model(), x=x, y=y, keras=keras)
        report = run_magic(shell, line, cell).result
        model, name = shell.user_ns["model"], shell.user_ns["name"]
        after = state(model)
        for a, b in zip(shell.user_ns["before"], after, strict=True):
            np.testing.assert_array_equal(a, b)  # nothing moved after the fit
        following = keras.layers.Dense(1).name
        assert int(following.rsplit("_", 1)[1]) == int(name.rsplit("_", 1)[1]) + 1
        generator = global_seed_generator()  # Keras' (None until an unseeded op made it)
        seeds = None if generator is None else generator.state.numpy()
        rng = (np.random.get_state()[1].copy(), random.getstate(), seeds)
        return after, rng, _p15(report)

    with_control = run("%%tfgrad -o")
    without = run("%%tfgrad -q -o")
    assert "control: " in with_control[2].evidence
    assert "did not run: skipped with -q" in without[2].message
    for a, b in zip(with_control[0], without[0], strict=True):
        np.testing.assert_array_equal(a, b)  # weights, optimizer slots, metrics: bit for bit
    np.testing.assert_array_equal(with_control[1][0], without[1][0])  # NumPy's global state
    assert with_control[1][1] == without[1][1]  # Python's
    if with_control[1][2] is None or without[1][2] is None:
        assert with_control[1][2] is None and without[1][2] is None  # neither made one
    else:
        np.testing.assert_array_equal(with_control[1][2], without[1][2])  # Keras' generator


@pytest.mark.slow
def test_q_skips_the_control_and_says_so_unless_control_is_given(shell: InteractiveShell) -> None:
    x, y = _data("bug")
    shell.user_ns.update(model=_model(), x=x, y=y)
    quiet = _p15(run_magic(shell, "%%tfgrad -q -o", FIT).result)
    assert (
        "the control run on shuffled labels did not run: skipped with -q; add --control to "
        "run it" in quiet.message
    )
    assert "either the labels do not belong to their inputs or the model cannot generalize" in (
        quiet.message
    )
    assert "fit a fresh copy on a shuffled copy of the labels" in quiet.hint
    shell.user_ns.update(model=_model())
    asked = _p15(run_magic(shell, "%%tfmem -q -o --control", FIT).result)
    assert re.search(r"control: [123] pairs? of fresh copies", asked.evidence)


def _outcome(
    train: tuple[float, ...],
    val: tuple[float, ...],
    inference: int = 180,
    control: ControlRun | None = None,
) -> FitOutcome:
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
        control=control,
    )


def _control(real: float, shuffled: float) -> ControlRun:
    return ControlRun(
        True, real=real, shuffled=shuffled, chance=0.5, held_out=200, rows=600, steps=100,
        batch_size=32, pairs=3, seconds=2.0,
    )  # fmt: skip


def test_p15_rule_needs_epochs_a_fit_validation_at_chance_and_a_control_that_agrees() -> None:
    fits = ((0.5, 0.8, 0.95), (0.5, 0.49, 0.52))
    assert labels_unlearnable(_outcome(*fits))
    # in inference mode the training examples are at chance too: a train/inference gap
    assert not labels_unlearnable(_outcome(*fits, inference=102))
    assert not labels_unlearnable(_outcome((0.5, 0.8), (0.5, 0.49)))  # too few epochs
    assert not labels_unlearnable(_outcome((0.5, 0.8, 0.95), (0.5, 0.6, 0.7)))  # learns
    assert not labels_unlearnable(_outcome((0.5, 0.52, 0.55), (0.5, 0.49, 0.5)))  # a hard task
    # the control: 200 rows x 3 pairs at chance 0.5 give a margin of 1.5 * 0.0289 = 0.043
    assert control_margin(_control(0.5, 0.5)) == pytest.approx(0.0433, abs=1e-4)
    assert labels_unlearnable(_outcome(*fits, control=_control(0.52, 0.49)))  # within noise
    assert not labels_unlearnable(_outcome(*fits, control=_control(0.56, 0.50)))  # beats it
    assert not labels_unlearnable(_outcome(*fits, control=_control(0.70, 0.69)))  # above chance
    (skipped,) = labels_unlearnable(_outcome(*fits, control=ControlRun(False, "too slow")))
    assert "did not run: too slow" in skipped.message


def test_the_validation_labels_are_read_from_a_validation_dataset() -> None:
    import tensorflow as tf

    from tfnb_debug.features.fit_data import outcome_of_fit

    x, y = _data("ok")
    train = tf.data.Dataset.from_tensor_slices((x[:140], y[:140])).batch(32)
    val = tf.data.Dataset.from_tensor_slices((x[140:], y[140:])).batch(16)
    model = _model()
    history = model.fit(train, validation_data=val, epochs=1, verbose=0)
    outcome = outcome_of_fit(model, {"x": train, "validation_data": val}, history)
    assert outcome is not None
    assert outcome.validation_labels == tuple(np.bincount(y[140:], minlength=2).tolist())
    assert outcome.metric("val_accuracy") == tuple(history.history["val_accuracy"])


def test_the_control_reads_datasets_and_says_why_it_cannot_run() -> None:
    import tensorflow as tf

    from tfnb_debug.collect.label_control import run_label_control
    from tfnb_debug.features.fit_data import classifier_head

    x, y = _data("ok")
    model = _model()
    model.fit(x[:32], y[:32], epochs=1, verbose=0)
    head = classifier_head(model)
    assert head is not None
    train = tf.data.Dataset.from_tensor_slices((x[:140], y[:140])).batch(20)
    val = tf.data.Dataset.from_tensor_slices((x[140:], y[140:])).batch(16)
    ran = run_label_control(model, {"x": train, "validation_data": val, "epochs": 2}, head)
    assert ran.ran and ran.rows == 140 and ran.held_out == 60 and ran.batch_size == 20
    assert ran.steps == 14  # 2 epochs of 7 batches
    none = run_label_control(model, {"x": x, "y": y, "epochs": 2}, head)
    assert not none.ran and none.reason == "fit had no validation data to score it on"
    slow = run_label_control(
        model, {"x": x, "y": y, "epochs": 30, "validation_split": 0.3}, head, max_seconds=0.0
    )
    assert not slow.ran and "too slow for a quick control" in slow.reason


class WideNet(keras.Model):
    """A subclassed model whose constructor argument ``get_config`` cannot know."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.hidden = keras.layers.Dense(width, activation="relu")
        self.out = keras.layers.Dense(1, activation="sigmoid")

    def call(self, x: Any) -> Any:
        return self.out(self.hidden(x))


def test_the_control_says_when_the_model_cannot_be_copied() -> None:
    from tfnb_debug.collect.fit_outcome import ClassifierHead
    from tfnb_debug.collect.label_control import run_label_control

    x, y = _data("ok")
    model = WideNet(8)
    model.compile("adam", "binary_crossentropy")
    model.fit(x[:32], y[:32], epochs=1, verbose=0)
    before = [v.numpy() for v in model.variables]
    head = ClassifierHead("out", "binary", False, 1)
    found = run_label_control(model, {"x": x, "y": y, "epochs": 2, "validation_split": 0.3}, head)
    assert not found.ran
    assert found.reason == (
        "the model could not be copied with keras.models.clone_model (NotImplementedError)"
    )
    for a, b in zip(before, [v.numpy() for v in model.variables], strict=True):
        np.testing.assert_array_equal(a, b)
