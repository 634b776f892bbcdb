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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.gradients import LIVE_RULES, GradThresholds
from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.gradient_history import (
    HIST_EDGES,
    INF,
    NAN,
    NORM,
    STAT_COLUMNS,
    GradientHistory,
    LayerGradients,
    VariableMeta,
)
from tfnb_debug.reports import Finding, Report, Section, Table, sort_findings

__all__ = [
    "GradThresholds",
    "GradientRecording",
    "GradientReport",
    "LossSeries",
    "probe_gradients",
    "record_gradients",
]


@dataclass(frozen=True, eq=False)
class LossSeries:
    """The loss one optimizer/variable group stepped on, over its recorded steps.

    ``label``: the name the code gives it (the variable it was held in at the
    ``gradient`` call, the optimizer's or the model's variable), else ``loss N``.
    """

    label: str
    steps: np.ndarray
    values: np.ndarray


@dataclass(frozen=True, kw_only=True, repr=False)
class GradientReport(Report):
    """What ``%tfgrad``/``%%tfgrad`` show.  ``history`` holds the recorded numbers.

    ``model_name`` names the model the variables belong to (when known), so a
    layer inspector can link this report to the same model; use
    :meth:`for_layer` to fetch one layer's statistics.
    """

    model_name: str | None
    source: str
    history: GradientHistory
    total_steps: int
    every: int = 1
    max_steps: int = 0
    notes: tuple[str, ...] = ()
    layer_flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: one loss per optimizer/variable group, when more than one group recorded its own
    losses: tuple[LossSeries, ...] = ()
    #: the models the recorded steps train, when known: ``(model_name,)``, or several (a GAN's
    #: generator and discriminator, each with its optimizer) when ``model_name`` is None
    models: tuple[str, ...] = ()

    @property
    def recorded_steps(self) -> int:
        return self.history.n_records

    def layer_names(self) -> tuple[str, ...]:
        """Layer names as shown (model prefix stripped), in forward order."""
        return tuple(_label(self.model_name, layer) for layer in self.history.layers())

    def for_layer(self, name: str) -> LayerGradients:
        """One layer's statistics, by its path (``model/block/dense``), shown name or last part."""
        layers = self.history.layers()
        match = [layer for layer in layers if name in (layer, _label(self.model_name, layer))] or [
            layer for layer in layers if layer.rsplit("/", 1)[-1] == name
        ]
        if len(match) != 1:
            known = ", ".join(self.layer_names()) or "none"
            what = "no layer" if not match else "more than one layer"
            raise TfnbDebugError(f"the gradient report has {what} called {name!r}; layers: {known}")
        layer = match[0]
        j = layers.index(layer)
        h = self.history
        idx = h.layer_index()[layer]
        return LayerGradients(
            layer=_label(self.model_name, layer),
            model_name=self.model_name,
            variables=tuple(h.variables[i].path for i in idx),
            steps=h.steps,
            grad_norm=h.layer_grad_norms()[:, j],
            update_ratio=h.layer_update_ratios()[:, j],
            nonfinite=h.layer_nonfinite()[:, j],
            histogram=h.layer_hist(layer) if h.n_records else np.zeros(len(HIST_EDGES) - 1),
            hist_edges=HIST_EDGES,
            codes=self.layer_flags.get(layer, ()),
        )


def _label(model_name: str | None, layer: str) -> str:
    if model_name and layer.startswith(model_name + "/"):
        return layer[len(model_name) + 1 :]
    return layer


def build_report(
    history: GradientHistory,
    *,
    source: str,
    model_name: str | None,
    extra_findings: Iterable[Finding] = (),
    thresholds: GradThresholds | None = None,
    every: int = 1,
    max_steps: int = 0,
    notes: Iterable[str] = (),
    failed: bool = False,
    losses: Sequence[LossSeries] = (),
    models: Sequence[str] = (),
) -> GradientReport:
    """Turn a history into a report: rules, the per-variable table, the plot sections.

    ``failed``: the recorded code raised; the report says it is partial.  ``losses``:
    each group's own loss, when several optimizers stepped on losses of their own
    (shown each with its label instead of the one ``loss`` line).  ``models``: the models
    the groups train, one each, named in the title when there is no single ``model_name``.
    """
    losses = tuple(losses) if len(losses) > 1 else ()
    from tfnb_debug.diagnostics.gradients import check_gradients, check_losses
    from tfnb_debug.render.gradients import gradient_sections

    def label(layer: str) -> str:
        return _label(model_name, layer)

    result = check_gradients(history, thresholds, label=label)
    found = list(result.findings)
    if losses:  # G05 and G07 for each group's own loss, named, not for the one loss line
        found = [f for f in found if f.code not in ("G05", "G07")]
        found += check_losses([(s.label, s.steps, s.values) for s in losses], thresholds)
    findings = sort_findings([*found, *extra_findings])
    table = _variable_table(history, result.flags, label)
    layers = history.layers()
    sections: tuple[Section, ...] = ()
    if history.n_records:
        first = (
            np.stack([history.layer_hist(layer, 0) for layer in layers])
            if history.n_records > 1
            else None
        )
        sections = gradient_sections(
            layers=[label(layer) for layer in layers],
            steps=history.steps,
            layer_norms=history.layer_grad_norms(),
            hist_last=np.stack([history.layer_hist(layer) for layer in layers]),
            hist_first=first,
            edges=HIST_EDGES,
            loss=history.loss,
            loss_known=history.loss_known,
            losses=[(s.label, s.steps, s.values) for s in losses],
        )
    who = f"model '{model_name}'" if model_name else "the trained variables"
    if not model_name and len(models) > 1:  # several models, one optimizer each (a GAN)
        who = "models " + ", ".join(f"'{name}'" for name in models[:-1]) + f" and '{models[-1]}'"
    partial = (
        [f"partial report: the cell failed after {history.n_records} recorded step(s)"]
        if failed
        else []
    )
    if source == "probe":
        title = f"Gradient probe of {who}: one batch, no optimizer step"
        summary = [
            f"{len(history.variables)} trainable variable(s) in {len(layers)} layer(s); "
            "all weights and optimizer state restored bit for bit"
        ]
    else:
        title = f"Gradients of {who}: {history.n_records} recorded step(s)"
        summary = [
            *partial,
            f"{history.total_steps} optimizer step(s) taken ({source}), {history.n_records} "
            f"recorded (every {every}, at most {max_steps}); {len(history.variables)} "
            f"variable(s) in {len(layers)} layer(s)",
        ]
        if history.n_records >= max_steps and history.total_steps > history.n_records * every:
            summary.append(
                f"recording stopped after {max_steps} records: raise --max-steps or use --every"
            )
    for name, known in [(s.label, s.values) for s in losses] or [
        ("loss", history.loss[history.loss_known])
    ]:
        if known.size == 1:
            summary.append(f"{name}: {known[0]:.6g}")
        elif known.size:
            summary.append(f"{name}: first {known[0]:.6g}, last {known[-1]:.6g}")
    summary.extend(notes)
    return GradientReport(
        title=title,
        summary=tuple(summary),
        findings=findings,
        tables=(table,),
        sections=sections,
        model_name=model_name,
        source=source,
        history=history,
        total_steps=history.total_steps,
        models=tuple(models) if not model_name else (model_name,),
        every=every,
        max_steps=max_steps,
        notes=tuple(notes),
        layer_flags=result.flags,
        losses=losses,
    )


_SEVERE = {"G03": "error", "G05": "error"}


def _variable_table(
    history: GradientHistory, flags: dict[str, tuple[str, ...]], label: Any
) -> Table:
    rows = []
    marks = []
    norms = history.stats[:, :, NORM] if history.n_records else np.zeros((0, 0))
    no_grad = set(history.no_gradient)
    with np.errstate(all="ignore"):
        ratio = history.stats[:, :, 7] / history.stats[:, :, 6]
    for i, meta in enumerate(history.variables):
        codes = flags.get(meta.layer, ())
        if meta.path in no_grad:
            codes = tuple(dict.fromkeys([*codes, "G04"]))
            last = low = high = None
            ratio_last = None
            nonfinite = 0
        else:
            col = norms[:, i] if history.n_records else np.zeros(0)
            finite = col[np.isfinite(col)]
            last = float(col[-1]) if col.size else None
            low = float(finite.min()) if finite.size else None
            high = float(finite.max()) if finite.size else None
            r = ratio[:, i] if history.n_records else np.zeros(0)
            r = r[np.isfinite(r)]
            ratio_last = float(r[-1]) if r.size else None
            nonfinite = int(
                np.nansum(history.stats[:, i, NAN]) + np.nansum(history.stats[:, i, INF])
            )
        rows.append(
            (
                label(meta.layer),
                meta.name,
                meta.shape,
                last,
                low,
                high,
                ratio_last,
                nonfinite,
                " ".join(codes),
            )
        )
        severities = {_SEVERE.get(c, "warning") for c in codes}
        marks.append("error" if "error" in severities else ("warning" if codes else ""))
    return Table(
        "gradients",
        (
            "layer",
            "variable",
            "shape",
            "grad norm (last)",
            "grad norm (min)",
            "grad norm (max)",
            "update/weight (last)",
            "nan+inf",
            "flags",
        ),
        tuple(rows),
        tuple(marks),
    )


# -- recording a training cell ------------------------------------------------


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
        from tfnb_debug.run_saving import run_saver

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
        from tfnb_debug.fit_data import record_fit_args

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
        self._before = _iterations(self._watched)
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
        from tfnb_debug.fit_data import (
            last_fit,
            with_fit_findings,
            with_fix_trial,
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
    """A gradient recording as a source of the live view (:mod:`tfnb_debug.live`).

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
        name = _model_name(self._capture, data, self._watched)
        return lambda layer: _label(name, layer)

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
        history = _merge(data)
        label = self._label(data)
        for found in live_findings(history, self._thresholds, label=label, codes=todo):
            self._found.setdefault(found.code, found)
        for code in todo:
            self._seen[code] = records
        self._last_step = int(history.steps[-1]) if history.n_records else None

    def live_part(self) -> Any:
        from tfnb_debug.live import LivePart, recent

        self._refresh()
        data = self._capture.recent(self.RECENT)
        if not data:
            return LivePart(lines=("gradients: no optimizer step recorded yet",))
        history = _merge(data)
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
        from tfnb_debug.live import STOP_CODES, StopRequest

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
        after = _iterations(watched)
        recording.stale_functions = tuple(
            name for key, (name, n) in after.items() if n > before.get(key, (name, n))[1]
        )
        return
    history = _merge(data) if data else _empty_history(no_gradient.variables)
    after = _iterations(watched)
    stepped = [key for key, (_, n) in after.items() if n > before.get(key, ("", n))[1]]
    if stepped:  # did the cell train from initialization? (G07 reads the whole run then)
        fresh = all(before.get(key, ("", 0))[1] == 0 for key in stepped)
        history = dataclasses.replace(history, fresh=fresh)
    model_name = _model_name(capture, data, watched) if data else no_gradient.model
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
            f"{_group_title(d, watched)} "
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
    from tfnb_debug.model_outputs import check_outputs

    for model in _fit_models(capture, watched):
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
        losses=_loss_series(data),
        models=_trained_models(capture, data, watched),
    )
    from tfnb_debug.replica_report import with_replicas

    objects = [*capture.fit_model_objects, *watched]
    objects += [getattr(m, "optimizer", None) for m in capture.fit_model_objects]
    recording.report = with_replicas(
        recording.report,
        data,
        [o for o in objects if o is not None],
        label=lambda layer: _label(model_name, layer),
        fit_models=[str(getattr(m, "name", "")) for m in capture.fit_model_objects],
    )


def _loss_series(data: list[Any]) -> list[LossSeries]:
    """Each group's own loss with the best name the evidence gives it, when more than one
    group recorded a loss (a GAN's two optimizers); none otherwise.

    A name two groups would share is passed over for the next one each has (the
    optimizer's variable, the model's), then ``loss N``.
    """
    with_loss = [d for d in data if d.loss_known.any()]
    if len(with_loss) < 2:
        return []
    names = [tuple(getattr(d, "loss_names", ())) for d in with_loss]
    level = [0] * len(names)
    while True:
        picked = [n[i] if i < len(n) else None for n, i in zip(names, level, strict=True)]
        shared = {p for p in picked if p is not None and picked.count(p) > 1}
        if not shared:
            break
        level = [i + 1 if p in shared else i for p, i in zip(picked, level, strict=True)]
    taken = {p for p in picked if p is not None}
    series = []
    for j, (d, label) in enumerate(zip(with_loss, picked, strict=True), start=1):
        if label is None:
            label = f"loss {j}"
            while label in taken:
                label += "'"
        series.append(LossSeries(label, d.steps[d.loss_known], d.loss[d.loss_known]))
    return series


def _empty_history(variables: tuple[VariableMeta, ...]) -> GradientHistory:
    """No recorded step yet: the variables only (a step failed before any was recorded)."""
    n = len(variables)
    return GradientHistory(
        variables=variables,
        steps=np.zeros(0, dtype=np.int64),
        loss=np.zeros(0),
        loss_known=np.zeros(0, dtype=bool),
        stats=np.zeros((0, n, len(STAT_COLUMNS))),
        hist=np.zeros((0, n, len(HIST_EDGES) - 1)),
    )


def _iterations(objects: Iterable[Any]) -> dict[int, tuple[str, int]]:
    out: dict[int, tuple[str, int]] = {}
    for obj in objects:
        opt = getattr(obj, "optimizer", None) if not hasattr(obj, "apply_gradients") else obj
        if opt is None or not hasattr(opt, "iterations"):
            continue
        try:
            out[id(opt)] = (str(getattr(opt, "name", "optimizer")), int(opt.iterations.numpy()))
        except Exception:
            continue
    return out


def _merge(data: list[Any]) -> GradientHistory:
    if len(data) == 1:
        return data[0]
    records = max(len(d.steps) for d in data)

    def pad(array: np.ndarray, fill: float) -> np.ndarray:
        shape = (records, *array.shape[1:])
        out = np.full(shape, fill, dtype=np.float64)
        out[: len(array)] = array
        return out

    with_loss = next((d for d in data if d.loss_known.any()), data[0])
    base = max(data, key=lambda d: len(d.steps))
    variables: list[VariableMeta] = [v for d in data for v in d.variables]
    return GradientHistory(
        variables=tuple(variables),
        steps=base.steps,
        loss=pad(with_loss.loss, np.nan),
        loss_known=pad(with_loss.loss_known.astype(float), 0.0).astype(bool),
        stats=np.concatenate([pad(d.stats, np.nan) for d in data], axis=1),
        hist=np.concatenate([pad(d.hist, 0.0) for d in data], axis=1),
        no_gradient=tuple(p for d in data for p in d.no_gradient),
        total_steps=max(d.total_steps for d in data),
    )


def _model_name(capture: Any, data: list[Any], watched: list[Any]) -> str | None:
    """The one model the recorded steps train, or None when there is no such single model
    (several, or one not found): a layer's name is never taken for a model's."""
    models = _trained_models(capture, data, watched)
    return models[0] if len(models) == 1 else None


def _trained_models(capture: Any, data: list[Any], watched: list[Any]) -> tuple[str, ...]:
    """The models the recorded steps train, each once: the fitted ones, else each group's
    model; () when a group's model is not known."""
    if capture.fit_models:
        return tuple(dict.fromkeys(str(info.name) for info in capture.fit_models))
    names = [_group_model(d, watched) for d in data]
    if None in names:
        return ()
    return tuple(dict.fromkeys(n for n in names if n is not None))


def _group_title(group: Any, watched: list[Any]) -> str:
    """One optimizer/variable group as the notes name it: its model, else its first variable."""
    model = _group_model(group, watched)
    if model is not None:
        return f"model '{model}'"
    return f"'{group.variables[0].path}'..." if group.variables else "?"


def _group_model(group: Any, watched: list[Any]) -> str | None:
    """The model one optimizer/variable group trains: found by identity where the step was
    taken (``CaptureData.models``), else the one notebook model whose trainable variables
    have exactly the group's paths."""
    found = tuple(dict.fromkeys(getattr(group, "models", ())))
    if found:
        return found[0] if len(found) == 1 else None
    paths = {meta.path for meta in group.variables}
    names = []
    for obj in watched:
        name = getattr(obj, "name", None)
        if not name or not hasattr(obj, "trainable_variables") or hasattr(obj, "apply_gradients"):
            continue
        try:
            own = {str(getattr(v, "path", "")).split(":")[0] for v in obj.trainable_variables}
        except Exception:
            continue
        if own == paths:
            names.append(str(name))
    names = list(dict.fromkeys(names))
    return names[0] if len(names) == 1 else None


def _fit_models(capture: Any, watched: list[Any]) -> list[Any]:
    return list(capture.fit_model_objects)


# -- the dry probe --------------------------------------------------------------


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
    from tfnb_debug.model_outputs import check_outputs

    extra = [*check_loss_pairing(model, y, loss=loss), *check_outputs(model, loss=loss, y=y)]
    return build_report(
        history,
        source="probe",
        model_name=str(getattr(model, "name", "")) or None,
        extra_findings=extra,
        thresholds=thresholds,
        notes=(f"loss: {loss_fn}",),
    )
