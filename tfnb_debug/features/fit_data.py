"""Silent data bugs around ``Model.fit``: P13 validation-split-skew, P14 steps-exceed-data
(its arguments), P15 labels-unlearnable and P16 majority-class (what it left).

The magics that run training (``%%tfgrad``, ``%%tfmem``, ``%%tfcheck``) and
their functions (``record_gradients``, ``track_memory``, ``run_checked``)
record the arguments of every ``fit`` call in the block with
:func:`record_fit_args` and add the findings to their report with
:func:`with_fit_findings`.  ``%tflint --data (x, y) --validation-split F``
checks a split before training with :func:`split_skew_of_data`.  All three also
read what each ``fit`` left (``record_fit_args(outcomes=True)``; ``%%tfmem`` and
``%%tfcheck`` with ``at_end=True``, after their hooks are removed): validation that never
leaves chance while the model memorizes (P15, confirmed in :func:`with_fit_findings` by a
control run on shuffled labels, :mod:`tfnb_debug.collect.label_control`) and a classifier
whose predictions collapsed to the majority class (P16).

``record_gradients`` also reads the last ``fit``'s arrays again when its block ends
(:func:`with_target_findings`: N05, M03, M07) and tries the fixes its training faults
support on a copy of the model (:func:`with_fix_trial`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, TypeVar

import numpy as np

from tfnb_debug.collect.fit_args import FitArgsRecorder, FitCall, label_counts
from tfnb_debug.collect.fit_outcome import ClassifierHead, FitOutcome, describe_outcome
from tfnb_debug.diagnostics.fit_data import FitDataThresholds, fit_data_findings
from tfnb_debug.diagnostics.outcomes import OutcomeThresholds, outcome_findings
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report, sort_findings

__all__ = [
    "FitDataThresholds",
    "OutcomeThresholds",
    "classifier_head",
    "last_fit",
    "outcome_of_fit",
    "record_fit_args",
    "split_skew_of_data",
    "with_fit_findings",
]

R = TypeVar("R", bound=Report)


def record_fit_args(
    *,
    outcomes: bool = False,
    at_end: bool = False,
    label_control: bool | str = True,
    retrace_models: bool = False,
) -> FitArgsRecorder:
    """A context manager that records the arguments of every ``Model.fit`` call in its block.

    ``outcomes``: also read, after each ``fit`` returns, its history and what a
    classifier now predicts on a few hundred training examples (P15, P16; every model
    state restored), into ``recorder.outcomes``.  ``at_end``: read what the model predicts
    only when :func:`with_fit_findings` runs, after the block (and whatever else instruments
    it) has ended; a model fitted twice is then read as it ends.  ``label_control``: when
    P15's evidence holds, run its control on shuffled labels in :func:`with_fit_findings`
    (a few seconds); False, or a string saying why, skips it and P15 says so.
    ``retrace_models``: each fitted model's ``tf.function`` methods trace afresh for the
    call, and keep their own traces (a recording whose hooks are traced into the step).

    Example::

        with record_fit_args() as fits:
            model.fit(x, y, validation_split=0.2)
        fit_data_findings(fits.calls)
    """
    if isinstance(label_control, str) and not label_control:
        raise TfnbDebugError("label_control must be True, False or the reason it is skipped")
    return FitArgsRecorder(
        after_fit=_OutcomeReader(at_end, label_control) if outcomes else None,
        retrace_models=retrace_models,
    )


class _OutcomeReader:
    """The ``after_fit`` of :func:`record_fit_args` with outcomes: reads each fit's outcome
    (at once, or at the end) and keeps its model and arguments until :meth:`settle` has run
    P15's control; then lets go of them."""

    def __init__(self, at_end: bool, label_control: bool | str) -> None:
        self.at_end = at_end
        self.label_control = label_control
        self.pending: list[tuple[Any, dict[str, Any], Any, FitCall | None]] = []
        self.kept: list[tuple[FitOutcome, Any, dict[str, Any]]] = []
        #: the last fit's model and arguments, for a fix trial (:meth:`take_last_fit`)
        self.last_fit: tuple[Any, dict[str, Any]] | None = None

    def take_last_fit(self) -> tuple[Any, dict[str, Any]] | None:
        """The last fit's model and arguments, once (the reference is dropped)."""
        last, self.last_fit = self.last_fit, None
        return last

    def __call__(
        self, model: Any, arguments: dict[str, Any], result: Any, call: FitCall | None
    ) -> FitOutcome | None:
        self.last_fit = (model, arguments)
        if self.at_end:
            self.pending.append((model, arguments, result, call))
            return None
        outcome = outcome_of_fit(model, arguments, result, call)
        if outcome is not None:
            self.kept.append((outcome, model, arguments))
        return outcome

    def settle(
        self,
        recorder: FitArgsRecorder,
        thresholds: OutcomeThresholds | None,
        failed: bool,
    ) -> None:
        """Read the outcomes left for the end, run P15's control where its evidence holds
        (unless skipped, or the block failed), and drop every reference to the user's data."""
        from tfnb_debug.collect.fit_outcome import ControlRun
        from tfnb_debug.collect.label_control import run_label_control
        from tfnb_debug.diagnostics.outcomes import needs_label_control

        pending, self.pending = self.pending, []
        for model, arguments, result, call in pending:
            outcome = outcome_of_fit(model, arguments, result, call)
            if outcome is not None:
                recorder.outcomes.append(outcome)
                self.kept.append((outcome, model, arguments))
        kept, self.kept = self.kept, []
        for outcome, model, arguments in kept:
            if outcome.control is not None or not needs_label_control(outcome, thresholds):
                continue
            head = classifier_head(model)
            if failed:
                control = ControlRun(False, "the cell raised before it ended")
            elif self.label_control is True and head is not None:
                control = run_label_control(model, arguments, head)
            elif head is None:
                control = ControlRun(False, "the model's classifier output could not be read")
            else:
                reason = self.label_control
                control = ControlRun(False, reason if isinstance(reason, str) else "skipped")
            settled = dataclasses.replace(outcome, control=control)
            recorder.outcomes[:] = [settled if o is outcome else o for o in recorder.outcomes]


def last_fit(recorder: FitArgsRecorder) -> tuple[Any, dict[str, Any]] | None:
    """The model and arguments of the last ``fit`` the recorder saw (with outcomes), once."""
    reader = recorder.after_fit
    return reader.take_last_fit() if isinstance(reader, _OutcomeReader) else None


def classifier_head(model: Any) -> ClassifierHead | None:
    """The single classifier output of ``model`` (from its compiled cross-entropy loss), or None."""
    from tfnb_debug.diagnostics.model import output_losses

    pairs = output_losses(model)
    if len(pairs) != 1:
        return None
    out, loss = pairs[0]
    if loss is None:
        return None
    units = out.units or 0
    if (loss.kind == "binary") != (units == 1):
        return None  # multi-label sigmoids, or a class axis a binary loss cannot read
    return ClassifierHead(out.layer, loss.kind, loss.from_logits, units)


def outcome_of_fit(
    model: Any, arguments: dict[str, Any], result: Any, call: FitCall | None = None
) -> FitOutcome | None:
    """What ``model.fit(**arguments)`` left: its history and, for a classifier, its
    predictions on the training examples (P16); whether its training and validation
    datasets split one reshuffling source (P17).  The ``after_fit`` of :func:`record_fit_args`."""
    from tfnb_debug.features.splits import fit_split

    x_name = call.x_name if call else None
    seconds = call.seconds if call else None
    outcome = describe_outcome(model, arguments, result, classifier_head(model), x_name, seconds)
    split = fit_split(arguments, call)
    if outcome is not None and split is not None:
        outcome = dataclasses.replace(outcome, splits=(split,))
    return outcome


def with_fit_findings(
    report: R,
    recorder: FitArgsRecorder,
    thresholds: FitDataThresholds | None = None,
    outcome_thresholds: OutcomeThresholds | None = None,
    *,
    failed: bool = False,
) -> R:
    """A copy of ``report`` with the P13/P14 findings of the recorded fit calls added (once),
    and P15/P16 from their outcomes when the recorder read them.  Call it after the block
    and every other recording around it have ended: P15's control trains copies of the model
    here.  ``failed``: the block raised (the control is then not run)."""
    if isinstance(recorder.after_fit, _OutcomeReader):
        recorder.after_fit.settle(recorder, outcome_thresholds, failed)
    found = fit_data_findings(recorder.calls, thresholds)
    found += outcome_findings(recorder.outcomes, outcome_thresholds)
    if not found:
        return report
    merged = dict.fromkeys((*report.findings, *found))  # a finding already there stays once
    return dataclasses.replace(report, findings=sort_findings(merged))


def split_skew_of_data(
    model_name: str,
    data: Any,
    validation_split: float,
    thresholds: FitDataThresholds | None = None,
) -> tuple[list[Finding], str]:
    """P13 for ``fit(x, y, validation_split=...)`` before it runs: findings and a status line.

    ``data`` is an ``(x, y)`` tuple of arrays; only ``y`` is read.
    """
    if not isinstance(validation_split, int | float) or not 0.0 < validation_split < 1.0:
        raise TfnbDebugError(
            f"validation_split must be a fraction between 0 and 1, got {validation_split!r}"
        )
    if not isinstance(data, tuple | list) or len(data) < 2 or data[1] is None:
        raise TfnbDebugError(
            "--validation-split needs --data as (x, y) arrays, e.g. --data x_train,y_train: "
            "Keras splits only arrays, never a tf.data.Dataset"
        )
    y = data[1]
    if isinstance(y, list):
        y = np.asarray(y)
    samples = int(y.shape[0]) if getattr(y, "shape", None) else len(y)
    split_at = int(math.floor(samples * (1.0 - validation_split)))
    if not 0 < split_at < samples:
        return [], f"skipped: {samples} samples leave one side of the split empty"
    labels = label_counts(y, split_at)
    if labels is None:
        return [], "skipped: the labels are not class ids, 0/1 or one-hot (regression?)"
    call = FitCall(
        model=model_name, validation_split=float(validation_split), labels=labels, samples=samples
    )
    found = fit_data_findings([call], thresholds)
    status = f"ran (last {validation_split:.0%}: {samples - split_at} of {samples} labels)"
    return found, status


def with_target_findings(report: R, fit: tuple[Any, dict[str, Any]] | None) -> R:
    """``report`` with what the arrays of the last ``fit`` (``(model, arguments)``) show: NaN
    or Inf in them (N05), an output range that cannot reach the targets (M03), an accuracy
    on a regression (M07)."""
    from tfnb_debug.diagnostics.model import check_loss_pairing
    from tfnb_debug.features.model_outputs import check_fit_data, check_targets

    if fit is None or fit[1].get("y") is None:
        return report
    model, arguments = fit
    found = check_fit_data(arguments.get("x"), arguments["y"])
    found += check_targets(model, arguments["y"])
    # the loss/output pairing read again with the labels (softmax under a binary loss on
    # multi-label rows wants sigmoid, not categorical_crossentropy): its M03 replaces the one
    # read from the model alone
    kept = list(report.findings)
    with contextlib.suppress(Exception):
        paired = [f for f in check_loss_pairing(model, arguments["y"]) if f.code == "M03"]
        if paired:
            alone = [f for f in check_loss_pairing(model) if f.code == "M03"]
            kept = [f for f in kept if f not in alone]
            found += paired
    found = [f for f in found if f not in kept]
    if not found and len(kept) == len(report.findings):
        return report
    return dataclasses.replace(report, findings=sort_findings([*kept, *found]))


def with_hidden_findings(report: R, fit: tuple[Any, dict[str, Any]] | None) -> R:
    """``report`` with what the last ``fit``'s model (``(model, arguments)``) does with its
    own training inputs after training: hidden sigmoid/tanh units it keeps pinned at their
    bounds (N03, :mod:`tfnb_debug.diagnostics.hidden_activity`)."""
    from tfnb_debug.collect.hidden_activity import saturation_after_fit
    from tfnb_debug.diagnostics.hidden_activity import saturated_after_fit

    if fit is None or any(f.code == "N03" for f in report.findings):
        return report
    model, arguments = fit
    reading = saturation_after_fit(model, arguments.get("x"))
    found = saturated_after_fit(reading) if reading is not None else []
    if not found:
        return report
    return dataclasses.replace(report, findings=sort_findings([*report.findings, *found]))


def with_depth_causes(report: R, fit: tuple[Any, dict[str, Any]] | None) -> R:
    """``report`` with each G01 at a layer naming only the causes the last ``fit``'s model
    has: its hidden sigmoid/tanh layers from the vanishing one on, its initializers too
    small or constant.  G01 through the depth (a gradient that collapses on its way back)
    says so when the model has neither; the median rule's G01 keeps its own hint then."""
    from tfnb_debug.collect.model_config import hidden_saturating, suspicious_initializers
    from tfnb_debug.diagnostics.gradients import THROUGH_DEPTH, collapse_hint

    vanishing = [f for f in report.findings if f.code == "G01" and f.target is not None]
    if fit is None or not vanishing:
        return report
    model = fit[0]
    names = [str(layer.name) for layer in getattr(model, "layers", [])]
    initializers = suspicious_initializers(model)
    changed = {}
    for f in vanishing:
        name = str(getattr(f.target, "path", "")).rpartition("/")[2]
        start = names.index(name) if name in names else 0
        saturating = [
            f"'{layer.name}' ({layer.activation.__name__})"
            for layer in hidden_saturating(model)
            if str(layer.name) in names[start:]
        ]
        if saturating or initializers or THROUGH_DEPTH in f.message:
            changed[id(f)] = dataclasses.replace(f, hint=collapse_hint(saturating, initializers))
    findings = tuple(changed.get(id(f), f) for f in report.findings)
    return dataclasses.replace(report, findings=findings)


def with_fix_trial(report: R, fit: tuple[Any, dict[str, Any]] | None, allowed: bool | str) -> R:
    """``report`` with its training faults' fixes tried on a copy of the last ``fit``'s
    model (``fit``: ``(model, arguments)``; :mod:`tfnb_debug.collect.fix_trial`), each fault
    saying what the trial showed, and the runs' losses as the "fix trials" table; ``report``
    itself when no finding is a training fault with a fix to try.  ``allowed``: False or a
    reason skips the trial."""
    from tfnb_debug.collect.fix_trial import (
        hidden_saturating_layers,
        run_fix_trial,
        suspicious_initializers,
    )
    from tfnb_debug.collect.model_config import optimizer_settings, schedule_over_run
    from tfnb_debug.diagnostics.trials import planned_changes, trial_table, with_trial
    from tfnb_debug.records.trials import Trial

    if fit is None or allowed is False:
        return report  # no fit to copy (a custom loop), or the trial is off
    model, arguments = fit
    changes = planned_changes(
        report.findings,
        _learning_rate(model),
        hidden_saturating_layers(model),
        _default_rate(model),
        _target_scale(model, arguments.get("y")),
        suspicious_initializers(model),
        optimizer_settings(model),
        getattr(report, "history", None),
        schedule_over_run(model, int(getattr(report, "total_steps", 0) or 0)),
    )
    if not changes:
        return report
    if isinstance(allowed, str):
        trial = Trial(False, allowed)
    else:
        trial = run_fix_trial(model, arguments, changes)
    table = trial_table(trial)
    return dataclasses.replace(
        report,
        findings=tuple(with_trial(report.findings, changes, trial)),
        tables=(*report.tables, table) if table is not None else report.tables,
    )


def _target_scale(model: Any, y: Any) -> tuple[str, float] | None:
    """The compiled loss's name and the scale of numeric targets ``y`` (the larger of
    |mean| and std), or None."""
    from tfnb_debug.ground.text import loss_name

    loss = getattr(model, "loss", None)
    if loss is None or y is None or isinstance(y, dict | list | tuple):
        return None
    try:
        values = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if values.size == 0 or not np.all(np.isfinite(values)):
        return None
    return loss_name(loss), float(max(abs(values.mean()), values.std()))


def _default_rate(model: Any) -> float | None:
    """The default learning rate of the model's optimizer class (``SGD``: 0.01, ``Adam``:
    0.001), or None."""
    from tfnb_debug.collect.model_config import optimizer_defaults

    return optimizer_defaults(model).get("learning_rate")


def _learning_rate(model: Any) -> float | None:
    """The optimizer's learning rate as a number; None for a schedule or none at all."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        return None
    rate = optimizer.get_config().get("learning_rate")
    return float(rate) if isinstance(rate, int | float) else None
