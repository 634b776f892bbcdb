"""Gradient health: record gradients while training (``%%tfgrad``) or probe one batch (``%tfgrad``).

* :func:`record_gradients` is a context manager around a training cell: every
  optimizer step inside it (``model.fit``, ``train_on_batch``, custom
  ``GradientTape`` loops, eager or compiled, with or without XLA) is recorded
  on the device; the report is built when the block ends.
* :func:`probe_gradients` runs one forward and backward pass on a batch and
  takes no optimizer step: every model and optimizer variable is restored bit
  for bit afterwards.

Both return a :class:`GradientReport`: a per-variable table, histograms, a
layers x steps heatmap, the loss, findings G01-G07 and, for compiled models,
the loss/output pairing checks M01-M05, and the metrics and output chain (M07, M08).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.gradients import LIVE_RULES, GradThresholds
from tfnb_debug.features.gradient_data import (
    empty_history,
    group_title,
    loss_series,
    merged_history,
    optimizer_iterations,
    recorded_model_name,
    recorded_models,
)
from tfnb_debug.features.gradient_report import (
    GradientReport,
    LossSeries,
    build_report,
    layer_label,
)
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding
from tfnb_debug.records.gradients import GradientHistory

__all__ = [
    "GradThresholds",
    "GradientRecording",
    "GradientReport",
    "LossSeries",
    "probe_gradients",
    "record_gradients",
]


@dataclass
class GradientRecording:
    """The handle ``record_gradients`` yields; :attr:`report` is set when the block ends."""

    every: int
    max_steps: int
    report: GradientReport | None = None
    steps_taken: int = 0
    stale_functions: tuple[str, ...] = ()
    loss_not_differentiable: bool = False  # a step where no variable got a gradient (G04)
    _owner: Any = field(default=None, repr=False, compare=False)  # the block recording it

    def result(self) -> GradientReport:
        """The report, or a one-line error saying why there is none."""
        if self.report is not None:
            return self.report
        if self.stale_functions:
            raise TfnbDebugError(
                "the optimizer stepped inside a graph traced before recording began "
                f"({', '.join(self.stale_functions)}) that the gradient hook cannot enter (a "
                "concrete function, or a function loaded from a SavedModel): call the "
                "tf.function that takes the step itself in the recorded block"
            )
        raise TfnbDebugError(
            "the cell took no optimizer step, so there are no gradients to show: run "
            "model.fit(...), train_on_batch(...) or optimizer.apply_gradients(...) in it"
        )


def record_gradients(
    *,
    every: int = 1,
    max_steps: int = 1000,
    thresholds: GradThresholds | None = None,
    watch: Iterable[Any] = (),
    save_to: str | os.PathLike[str] | None = None,
    label_control: bool | str = True,
    fix_trial: bool | str = True,
) -> contextlib.AbstractContextManager[GradientRecording]:
    """Record gradient statistics at every ``every``-th optimizer step taken in the block.

    ``max_steps`` bounds the records (the device buffers hold that many).
    ``watch``: objects (models, optimizers) to check afterwards for optimizer
    steps that escaped the hook (a ``tf.function`` traced before the block).
    Every patch is removed when the block ends, also on error or interrupt;
    the report is then in ``recording.report`` (even when the block raised).
    The arguments of ``fit`` calls in the block are checked too (P13, P14), and what each
    ``fit`` left: a classifier predicting only the majority class (P16), labels its
    validation never learns (P15).  ``label_control``: when P15's evidence holds, confirm it
    with a control run on shuffled labels as the block ends (a few seconds; it trains
    copies of the model, so end any other recording around this block first); False, or
    a string saying why, skips it and P15 says so.  ``fix_trial``: when a training fault
    (G01-G07) is found in a ``fit``, try the fixes its evidence supports on a copy of the
    model as the block ends (a few seconds, the user's model restored bit for bit; see
    :mod:`tfnb_debug.collect.fix_trial`) and say in each finding whether one made the loss
    fall; False, or a string saying why, skips it and the findings say so.

    ``save_to``: a run folder (a local path, or ``gs://...``: anything
    ``tf.io.gfile`` opens).  When the block ends, this process writes its
    records to ``save_to/worker-N/`` (N from ``TF_CONFIG``; 0 without one):
    the statistics, per-step times and losses, the findings and a hash of
    the first input batches, as JSON and ``.npz``.  Open the run in a
    notebook with ``%tfrun`` or :func:`tfnb_debug.open_run`.

    Example::

        with tfnb_debug.record_gradients(every=10) as rec:
            model.fit(x, y, epochs=3)
        rec.report

        # in a script each worker runs
        with tfnb_debug.record_gradients(save_to="runs/exp1"):
            for batch in dist_dataset:
                train_step(batch)
    """
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise TfnbDebugError(f"every must be a positive integer, got {every!r}")
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
        raise TfnbDebugError(f"max_steps must be a positive integer, got {max_steps!r}")
    recording = _Recording(every, max_steps, thresholds, list(watch), label_control, fix_trial)
    if save_to is not None:
        from tfnb_debug.features.run_saving import run_saver

        recording.saver = run_saver(save_to)
    return recording


class _Recording(contextlib.AbstractContextManager[GradientRecording]):
    """Owns the capture of one recorded block; builds the report (partial, if it raised).

    A class, not a generator: the user's exception leaves ``__exit__`` with the
    traceback it would have without the recording (no hook frames in it).
    Besides the gradients, it records the arguments of ``fit`` calls (P13, P14)
    and watches what reaches the loss (S08, M02, M03).
    """

    def __init__(
        self,
        every: int,
        max_steps: int,
        thresholds: GradThresholds | None,
        watched: list[Any],
        label_control: bool | str = True,
        fix_trial: bool | str = True,
    ) -> None:
        from tfnb_debug.collect.gradients import GradientCapture
        from tfnb_debug.collect.loss_watch import watch_losses
        from tfnb_debug.features.fit_data import record_fit_args

        self._watched = watched
        self._thresholds = thresholds
        self._before: dict[int, tuple[str, int]] = {}
        self._recording = GradientRecording(every=every, max_steps=max_steps, _owner=self)
        self._capture = GradientCapture(every=every, max_steps=max_steps)
        # P15/P16 from what each fit left
        # the capture's hooks are traced into the step: a fitted model's own tf.function
        # methods trace afresh for each fit (a script names no objects to retrace up front)
        self._fits = record_fit_args(
            outcomes=True, label_control=label_control, retrace_models=True
        )
        self._fix_trial = fix_trial
        self._watch = watch_losses()
        self._losses: Any = None
        self.saver: Any = None  # a run folder's writer (record_gradients(save_to=...))
        self._sweep: Any = None  # the user's tf.functions called in the block trace afresh

    def __enter__(self) -> GradientRecording:
        self._before = optimizer_iterations(self._watched)
        with contextlib.ExitStack() as undo:  # unwinds only if a later step fails
            self._capture.__enter__()
            undo.push(self._capture)
            self._fits.__enter__()
            undo.push(self._fits)
            self._losses = self._watch.__enter__()
            if self.saver is not None:
                undo.push(self.saver.start(self._capture))
            # a custom loop's step traced before the block (a script that warms it up) is
            # traced again with the hooks when the block calls it, and gets its graphs back
            from tfnb_debug.collect.retrace import retraced

            self._sweep = retraced(())
            self._sweep.__enter__()
            undo.push(self._sweep)
            undo.pop_all()
        return self._recording

    def __exit__(self, *exc: Any) -> None:
        __tracebackhide__ = True
        from tfnb_debug.collect.loss_watch import nothing_watched
        from tfnb_debug.features.fit_data import (
            last_fit,
            with_depth_causes,
            with_fit_findings,
            with_fix_trial,
            with_hidden_findings,
            with_target_findings,
        )

        # the watch and the fit recorder first: the capture's exit tidies the traceback last
        try:
            if self._sweep is not None:
                self._sweep.__exit__(*exc)
            if self.saver is not None:
                self.saver.stop()
            self._watch.__exit__(*exc)
            # a kept train function is not traced again, so the loss watch would not see
            # it: keep it only when its trace gave the watch nothing to report
            self._capture.keep_functions = exc[1] is None and nothing_watched(self._losses)
        finally:
            try:
                self._fits.__exit__(*exc)
            finally:
                self._capture.__exit__(*exc)
        args = (self._recording, self._capture, self._watched, self._before, self._thresholds)
        if exc[1] is None:
            _finish(*args, losses=self._losses)
        else:
            # the partial report, without ever hiding the user's own exception
            with contextlib.suppress(Exception):
                _finish(*args, failed=True, losses=self._losses)
        self._recording._owner = None  # the report holds what is needed; not the capture
        report = self._recording.report
        if report is not None:
            with contextlib.suppress(Exception) if exc[1] is not None else contextlib.nullcontext():
                failed = exc[1] is not None
                self._recording.report = with_fit_findings(report, self._fits, failed=failed)
                fit = last_fit(self._fits)  # taken also when the cell failed: drops the data
                if not failed:
                    self._recording.report = _or_unchanged(
                        with_target_findings, self._recording.report, fit
                    )
                    self._recording.report = _or_unchanged(
                        with_hidden_findings, self._recording.report, fit
                    )
                    self._recording.report = _or_unchanged(
                        with_depth_causes, self._recording.report, fit
                    )
                    self._recording.report = _or_unchanged(
                        with_fix_trial, self._recording.report, fit, self._fix_trial
                    )
        if self.saver is not None and self._recording.report is not None:
            with contextlib.suppress(Exception) if exc[1] is not None else contextlib.nullcontext():
                self.saver.save(self._recording.report)


def _or_unchanged(step: Any, report: GradientReport, *args: Any) -> GradientReport:
    """``step(report, *args)``, or ``report`` with a note when the step itself failed: a
    check that reads the fit's data must never turn the user's finished cell into an error."""
    try:
        return step(report, *args)
    except Exception as err:
        note = f"{step.__name__} did not run ({type(err).__name__}: {str(err)[:120]})"
        return dataclasses.replace(report, notes=(*report.notes, note))


class GradientLive:
    """A gradient recording as a source of the live view (:mod:`tfnb_debug.features.live`).

    Each update copies the records written since the last one from the device
    (the recording's end then copies only the rest) and runs G02/G03/G05 on
    them, with ``growth_window`` records before them as context: a finding
    shows from the update that first sees it, and stays.
    """

    #: records shown in the heatmap strip
    RECENT = 60

    def __init__(self, recording: _Recording) -> None:
        self._capture = recording._capture
        self._watched = recording._watched
        self._thresholds = recording._thresholds or GradThresholds()
        self._records = 0  # records pulled so far
        self._seen: dict[str, int] = {}  # records each rule has looked at
        self._found: dict[str, Finding] = {}
        self._last_step: int | None = None
        self._stopped_at: int | None = None  # records when training was stopped

    def _label(self, data: list[Any]) -> Any:
        name = recorded_model_name(self._capture, data, self._watched)
        return lambda layer: layer_label(name, layer)

    def _refresh(self, codes: tuple[str, ...] = LIVE_RULES) -> None:
        """Pull the new records and run the rules ``codes`` on what they have not seen.

        ``--stop-on nan`` without a live display asks only for G03/G05 at every
        step; G02 (the costly one) then runs when the display or an
        ``explode`` stop asks, over every record it has not seen yet.
        """
        from tfnb_debug.diagnostics.gradients import live_findings

        self._records = records = self._capture.pull()
        todo = tuple(code for code in codes if self._seen.get(code, 0) < records)
        if not todo:
            return
        start = min(self._seen.get(code, 0) for code in todo)
        data = self._capture.recent(records - start + self._thresholds.growth_window + 1)
        history = merged_history(data)
        label = self._label(data)
        for found in live_findings(history, self._thresholds, label=label, codes=todo):
            self._found.setdefault(found.code, found)
        for code in todo:
            self._seen[code] = records
        self._last_step = int(history.steps[-1]) if history.n_records else None

    def live_part(self) -> Any:
        from tfnb_debug.features.live import LivePart, recent

        self._refresh()
        data = self._capture.recent(self.RECENT)
        if not data:
            return LivePart(lines=("gradients: no optimizer step recorded yet",))
        history = merged_history(data)
        label = self._label(data)
        norms = history.layer_grad_norms()
        norms = np.where(history.layer_nonfinite() > 0, np.inf, norms).T
        known = history.loss[history.loss_known]
        return LivePart(
            step=int(history.steps[-1]) + 1 if history.n_records else None,
            loss=float(known[-1]) if known.size else None,
            losses=recent(known, self.RECENT),
            layers=tuple(label(layer) for layer in history.layers()),
            norms=norms,
            findings=tuple(self._found.values()),
        )

    def stop_request(self, kind: str) -> Any:
        """The stop ``kind`` asks for, once per training step: after the first stop, each
        further recorded step (a second ``fit`` in the cell) is stopped too, but not a call
        that trains nothing (``evaluate``, ``predict``)."""
        from tfnb_debug.features.live import STOP_CODES, StopRequest

        codes = tuple(code for code in LIVE_RULES if code in STOP_CODES[kind])
        self._refresh(codes)
        if self._stopped_at is not None and self._records <= self._stopped_at:
            return None
        for code in ("G03", "G05", "G02"):
            found = self._found.get(code)
            if found is not None and code in codes:
                self._stopped_at = self._records
                return StopRequest(kind=kind, finding=found, step=self._last_step)
        return None


def live_source(recording: Any) -> GradientLive:
    """The live-view source of the ``record_gradients`` block that yielded ``recording``."""
    owner = recording._owner
    if owner is None:
        raise TfnbDebugError("this gradient recording has not started")
    return GradientLive(owner)


def _finish(
    recording: GradientRecording,
    capture: Any,
    watched: list[Any],
    before: dict[int, tuple[str, int]],
    thresholds: GradThresholds | None,
    *,
    failed: bool = False,
    losses: Any = None,
) -> None:
    data = [d for d in capture.data if d.total_steps > 0]
    recording.steps_taken = sum(d.total_steps for d in data)
    no_gradient = capture.no_gradient_step
    recording.loss_not_differentiable = no_gradient is not None
    if not data and no_gradient is None:
        after = optimizer_iterations(watched)
        recording.stale_functions = tuple(
            name for key, (name, n) in after.items() if n > before.get(key, (name, n))[1]
        )
        return
    history = merged_history(data) if data else empty_history(no_gradient.variables)
    after = optimizer_iterations(watched)
    stepped = [key for key, (_, n) in after.items() if n > before.get(key, ("", n))[1]]
    if stepped:  # did the cell train from initialization? (G07 reads the whole run then)
        fresh = all(before.get(key, ("", 0))[1] == 0 for key in stepped)
        history = dataclasses.replace(history, fresh=fresh)
    model_name = recorded_model_name(capture, data, watched) if data else no_gradient.model
    notes = []
    for info in capture.fit_models:
        if info.jit_compile:
            notes.append(
                f"model '{info.name}' trains with XLA (jit_compile): recorded inside the "
                "compiled step, XLA left on"
            )
        if info.replicas > 1:
            notes.append(
                f"model '{info.name}' trains on {info.replicas} replicas: statistics are of the "
                "summed (all-reduced) gradient and global loss"
            )
    if len(data) > 1:
        groups = ", ".join(
            f"{group_title(d, watched)} "
            f"({d.variables[0].optimizer if d.variables else '?'}): {d.total_steps}"
            for d in data
        )
        notes.append(
            f"{len(data)} optimizer/variable groups stepped, shown side by side: {groups} step(s); "
            f"{max(d.total_steps for d in data)} step(s) ({recording.steps_taken} optimizer "
            f"updates by {len(data)} optimizer/variable groups)"
        )
    scaled = sorted({s for d in data for s in d.loss_scaled_by})
    if scaled:
        notes.append("LossScaleOptimizer: gradients and loss are shown unscaled")
    if capture.read_error:
        notes.append(f"reading the recorded statistics failed: {capture.read_error}")
    extra = []
    from tfnb_debug.diagnostics.gradients import no_gradient_at_all
    from tfnb_debug.diagnostics.model import check_loss_pairing

    if no_gradient is not None:
        extra.append(
            no_gradient_at_all(
                loss=no_gradient.loss,
                model=no_gradient.model,
                variables=len(no_gradient.variables),
            )
        )

    from tfnb_debug.diagnostics.gradients import trainable_after_trace

    for stale in capture.stale_trainable:
        found = trainable_after_trace(stale)
        if found is not None:
            extra.append(found)
        if stale.frozen:
            notes.append(
                f"model '{stale.model}': layer(s) {', '.join(stale.frozen_layers) or '?'} set "
                "trainable=False after its training step was traced still train, as in Keras "
                "(the kept step trains what it was traced with) until compile() is called again"
            )
    from tfnb_debug.features.model_outputs import check_outputs

    for model in capture.fit_model_objects:
        extra.extend(check_loss_pairing(model))
        extra.extend(check_outputs(model))
    if losses is not None:
        from tfnb_debug.diagnostics.losses import check_losses

        extra.extend(check_losses(losses, already=extra))
    source = "model.fit" if capture.fit_models else "custom loop"
    recording.report = build_report(
        history,
        source=source,
        model_name=model_name,
        extra_findings=extra,
        thresholds=thresholds,
        every=recording.every,
        max_steps=recording.max_steps,
        notes=notes,
        failed=failed,
        losses=loss_series(data),
        models=recorded_models(capture, data, watched),
    )
    from tfnb_debug.features.replica_report import with_replicas

    objects = [*capture.fit_model_objects, *watched]
    objects += [getattr(m, "optimizer", None) for m in capture.fit_model_objects]
    recording.report = with_replicas(
        recording.report,
        data,
        [o for o in objects if o is not None],
        label=lambda layer: layer_label(model_name, layer),
        fit_models=[str(getattr(m, "name", "")) for m in capture.fit_model_objects],
    )


def probe_gradients(
    model: Any,
    x: Any,
    y: Any,
    *,
    loss: Any = None,
    thresholds: GradThresholds | None = None,
) -> GradientReport:
    """One forward and backward pass on ``(x, y)`` with ``training=True``; no optimizer step.

    Uses the model's compiled loss, or ``loss`` (a name such as
    ``"sparse_categorical_crossentropy"``, a function or a ``keras.losses.Loss``).
    Every model, metric and optimizer variable (BatchNorm moving statistics,
    Dropout seed state included) is snapshot first and restored in ``finally``.
    """
    from tfnb_debug.collect.gradient_probe import probe_batch

    if not hasattr(model, "trainable_variables") or not callable(model):
        raise TfnbDebugError(f"probe_gradients needs a Keras model, got {type(model).__name__}")
    from tfnb_debug.diagnostics.model import check_loss_pairing

    try:
        data, loss_fn = probe_batch(model, x, y, loss=loss)
    except TfnbDebugError as err:
        if "forward pass" not in str(err):
            raise
        causes = check_loss_pairing(model, y, loss=loss)
        if not causes:
            raise
        raise TfnbDebugError(f"{err}; likely cause: {causes[0].to_text()}") from None
    history: GradientHistory = data
    from tfnb_debug.features.model_outputs import check_outputs

    extra = [*check_loss_pairing(model, y, loss=loss), *check_outputs(model, loss=loss, y=y)]
    return build_report(
        history,
        source="probe",
        model_name=str(getattr(model, "name", "")) or None,
        extra_findings=extra,
        thresholds=thresholds,
        notes=(f"loss: {loss_fn}",),
    )
