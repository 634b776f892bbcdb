"""Per-layer shape tables (``%tfshape``): :func:`trace_shapes`, :func:`record_shapes`, :class:`ShapeReport`.

``trace_shapes(model, x)`` calls the model once, eagerly, and records every
Keras layer call: path, class, input and output shapes and dtypes, the layer
that produced each input, parameters, output bytes and output statistics.
When a layer raises, the report keeps the rows up to it, marks it, and adds
finding S01; the user's exception is returned in the report's place or
re-raised unchanged (``reraise=True``).

``with record_shapes() as rec: ...`` records every layer call made by a block
(eager calls, symbolic calls while a Functional model is built or while Keras
builds a Sequential that then fails, calls traced inside ``tf.function``), and ``rec.report`` holds the tables afterwards, also
when the block raised.

:func:`layer_for_path` maps a row's ``path`` back to the layer object.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from tfnb_debug.diagnostics.shape_hints import GENERIC_FAILURE_HINT
from tfnb_debug.diagnostics.shapes import ShapeFacts, ShapeThresholds, run_rules
from tfnb_debug.features.shape_report import ShapeReport
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Target, finding, sort_findings
from tfnb_debug.ground.text import key_sentence
from tfnb_debug.records.shapes import LayerCall, TensorStats

_EXPORTED = (TensorStats,)

__all__ = [
    "LayerCall",
    "ShapeRecording",
    "ShapeReport",
    "ShapeThresholds",
    "TensorStats",
    "layer_for_path",
    "record_shapes",
    "trace_shapes",
]


class ShapeRecording:
    """Records the layer calls of a block; ``report`` is ready after the block, even when it raised.

    Use through :func:`record_shapes`.  The block's exception propagates
    unchanged; ``error`` keeps it for the caller.
    """

    def __init__(
        self,
        *,
        stats: bool = True,
        thresholds: ShapeThresholds | None = None,
        title: str = "tfnb_debug shape trace",
        max_calls: int = 20_000,
    ) -> None:
        self.thresholds = thresholds or ShapeThresholds()
        self.stats = stats
        self.title = title
        self.max_calls = max_calls
        self.error: BaseException | None = None
        self._report: ShapeReport | None = None
        self._collector: Any = None
        self._stack: contextlib.ExitStack | None = None
        self.models: list[Any] = []

    def __enter__(self) -> ShapeRecording:
        from tfnb_debug.collect._patching import layer_call_hook, trace_hook
        from tfnb_debug.collect.shapes import ShapeCollector

        self._collector = ShapeCollector(
            stats=self.stats,
            max_calls=self.max_calls,
            saturation_epsilon=self.thresholds.saturation_epsilon,
        )
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(layer_call_hook(self._collector))
            stack.enter_context(trace_hook(self._collector.on_trace))
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        assert self._stack is not None
        try:
            self._stack.close()  # every patch is restored here, whatever happened
        finally:
            self._stack = None
            self.error = exc
            self._report = None
        # the exception (if any) propagates: __exit__ returns None

    @property
    def report(self) -> ShapeReport:
        if self._report is None:
            if self._collector is None:
                raise TfnbDebugError("record_shapes() has not run yet: use it in a `with` block")
            self._report = build_report(
                self._collector,
                title=self.title,
                thresholds=self.thresholds,
                error=self.error,
                models=self.models,
            )
            self._collector = None  # drop the layer references
        return self._report


def record_shapes(
    *, stats: bool = True, thresholds: ShapeThresholds | None = None, max_calls: int = 20_000
) -> ShapeRecording:
    """Record every Keras layer call made inside a ``with`` block.

    Example::

        with tfnb_debug.record_shapes() as rec:
            model(x)
        rec.report.to_dataframe()
    """
    return ShapeRecording(stats=stats, thresholds=thresholds, max_calls=max_calls)


def trace_shapes(
    model: Any,
    inputs: Any = None,
    *,
    input_shape: str | Sequence[Any] | None = None,
    training: bool = False,
    stats: bool = True,
    thresholds: ShapeThresholds | None = None,
    reraise: bool = False,
    on_failure: Callable[[ShapeReport], object] | None = None,
    name: str | None = None,
) -> ShapeReport:
    """Call ``model`` once, eagerly, and return the table of every layer call.

    ``inputs``: an array/tensor, or a list or dict of them.  Without it, a
    synthetic batch (batch 2, random normal floats, the model's dtypes) is
    built from the model's input spec, or from ``input_shape`` (batch first,
    e.g. ``(2, 28, 28, 1)``).  An unbuilt subclassed model with neither gives
    a report with finding S04.  ``name`` is how the model is called in
    messages (the magic passes the expression typed).

    ``training=True`` calls the model in training mode; the variables it
    moves (BatchNormalization statistics, seed states) are restored afterwards.
    Statistics are computed for eager calls only; parameters are each layer's
    own weights on its first call, so that column sums to ``model.count_params()``.

    If the call raises, the report has the rows up to the failing layer and
    S01; ``on_failure(report)`` is called, then the exception is re-raised
    unchanged when ``reraise`` is true (else the report is returned).
    """
    from tfnb_debug.collect.keras_access import check_model, creation_scope
    from tfnb_debug.collect.shape_inputs import (
        batch_from_shapes,
        check_callable,
        input_spec_of,
        parse_input_shape,
        synthetic_batch,
        validate_inputs,
    )

    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    thresholds = thresholds or ShapeThresholds()
    check_model(model)
    label = name or str(model.name)
    check_callable(model, label)
    spec = input_spec_of(model)
    note = ""
    if inputs is not None and input_shape is not None:
        raise TfnbDebugError("give either an input or --input-shape, not both")
    if inputs is not None:
        validate_inputs(model, inputs, spec)
    elif input_shape is not None:
        inputs = batch_from_shapes(parse_input_shape(input_shape), spec)
        note = "input: synthetic batch of the given shape (random normal floats)"
    elif spec is not None:
        inputs = synthetic_batch(spec)
        note = "input: synthetic batch built from the model's input spec (batch 2, random normal floats)"
    else:
        return unbuilt_report(model, label, thresholds)

    recording = ShapeRecording(
        stats=stats, thresholds=thresholds, title=f"Shape trace of '{model.name}'"
    )
    recording.models.append(model)
    try:
        # an unbuilt model is built under the strategy it was created in, as its first call
        # in the user's training would be
        with creation_scope(model), recording, _restored_variables(model, enabled=training):
            model(inputs, training=training)
    except BaseException as err:
        report = replace(recording.report, input_note=note)
        if isinstance(err, Exception):
            if on_failure is not None:
                on_failure(report)
            if reraise:
                raise
            return report
        raise  # KeyboardInterrupt, SystemExit: never swallowed
    return replace(recording.report, input_note=note)


@contextlib.contextmanager
def _restored_variables(model: Any, *, enabled: bool) -> Iterator[None]:
    """A ``training=True`` call moves BatchNorm statistics and seed states: put them back."""
    if not enabled:
        yield
        return
    from tfnb_debug.collect._patching import preserved

    with preserved(model, optimizer=False, metrics=False):
        yield


def unbuilt_report(model: Any, label: str, thresholds: ShapeThresholds) -> ShapeReport:
    """The S04 report: the model has no input shape and none was given."""
    line = f"%tfshape {label} --input-shape 2,<sizes of one example>"
    found = finding(
        "S04",
        f"{type(model).__name__} '{model.name}' is not built and has no input shape, so "
        "tfnb_debug cannot make an input for it",
        place=str(model.name),
        evidence="no Input layer, no build(input_shape) and no call yet",
        hint=f"pass an input: `%tfshape {label} x_batch`, or a shape: `{line}` "
        f"(e.g. `%tfshape {label} --input-shape 2,28,28,1`), or in Python "
        f"`trace_shapes({label}, input_shape=(2, 28, 28, 1))`",
    )
    return ShapeReport(
        title=f"Shape trace of '{model.name}'",
        summary=("not traced: the model has no known input shape (S04)",),
        findings=(found,),
        models=(str(model.name),),
        thresholds=thresholds,
    )


def build_report(
    collector: Any,
    *,
    title: str,
    thresholds: ShapeThresholds,
    error: BaseException | None,
    models: Sequence[Any] = (),
) -> ShapeReport:
    """Freeze what a collector saw into a :class:`ShapeReport` and run the rules."""
    from tfnb_debug.collect.shape_inputs import estimate_memory
    from tfnb_debug.collect.shape_rows import rows_of

    calls = rows_of(collector)
    roots = _root_layers(collector, models)
    trainable = frozen = None
    memory = []
    for model in roots:
        own = [f for f in collector.calls if f.parent is None and f.layer is model]
        eager = [f for f in own if f.mode == "eager"]
        first = (eager or own)[0].index if own else None
        leaves = [c for c in calls if c.root == first and not c.has_children and c.mode == "eager"]
        complete = leaves and all(c.status == "ok" for c in leaves)
        activations = sum(c.output_bytes or 0 for c in leaves) if complete else None
        memory.append(estimate_memory(model, activations, _first_batch(calls, first)))
    if len(roots) == 1:
        trainable = memory[0].trainable_params
        frozen = memory[0].params - memory[0].trainable_params
    failed = error is not None
    error_type = type(error).__name__ if error is not None else ""
    error_text = (key_sentence(str(error)) or type(error).__name__) if error is not None else ""
    report = ShapeReport(
        title=title,
        calls=calls,
        models=tuple(str(m.name) for m in roots),
        total_params=None if trainable is None or frozen is None else trainable + frozen,
        trainable_params=trainable,
        non_trainable_params=frozen,
        memory=tuple(memory),
        traces=collector.trace_counts(),
        thresholds=thresholds,
        failed=failed,
        error_type=error_type,
        error=error_text,
        repeated_calls=tuple(sorted(collector.repeats.items())),
        truncated=collector.truncated,
        replicas=_replica_rows(collector, calls, roots),
    )
    report = finish_report(report)
    report = with_output_chain(report, roots)
    return with_explanation(report, error) if error is not None else report


def _replica_rows(
    collector: Any, calls: Sequence[LayerCall], roots: Sequence[Any]
) -> tuple[tuple[str, int, bool], ...]:
    """``(model, replicas, per_replica)`` for each traced model built under a strategy with more
    than one replica; ``per_replica``: its first recorded call ran inside a replica (``fit``,
    ``strategy.run``), so its rows hold one replica's shapes, else the global batch's."""
    found = []
    for model in roots:
        try:
            replicas = int(model.distribute_strategy.num_replicas_in_sync)
        except Exception:  # not a TensorFlow-backend Keras model
            continue
        first = next((c for c in calls if c.parent is None and c.path == str(model.name)), None)
        if replicas > 1:
            inside = first is not None and first.index in collector.replica_roots
            found.append((str(model.name), replicas, inside))
    return tuple(found)


def with_output_chain(report: ShapeReport, models: Sequence[Any]) -> ShapeReport:
    """M08 for each traced model whose output is squashed twice in a row, with the output
    range this trace measured (the model's own row); nothing when the trace failed."""
    if report.failed:
        return report
    from tfnb_debug.collect.output_chain import double_activations
    from tfnb_debug.diagnostics.outputs import double_activation

    found = []
    for model in models:
        facts = double_activations(model)
        if not facts:
            continue
        row = next(
            (c for c in report.calls if c.parent is None and c.is_model and c.name == model.name),
            None,
        )
        ranges = {
            i: (t.stats.min, t.stats.max)
            for i, t in enumerate(row.outputs if row is not None else ())
            if t.stats is not None and t.stats.min is not None and t.stats.max is not None
        }
        # the trace's rows are named from the traced model down: point at its row
        found += [
            replace(f, target=Target("layer", f"{model.name}/{f.target.path}"))
            if f.target is not None
            else f
            for f in double_activation(facts, ranges)
        ]
    if not found:
        return report
    return replace(report, findings=sort_findings([*report.findings, *found]))


def with_explanation(report: ShapeReport, error: BaseException) -> ShapeReport:
    """The failure's finding as the diagnosis under a failing cell gives it.

    The trace's S01 keeps its place, evidence and inspector target; its hint
    becomes the evidence-derived one of :func:`tfnb_debug.explain_exception`
    when that explains the error as S01 too, and the finding becomes the
    explanation's (M05, S09, S10, S12, ...) when that names another cause.  One
    problem, one finding; the rules are the same in every magic.
    """
    from tfnb_debug.explain import explain_exception

    try:
        explained = explain_exception(error, fallback=False)
    except Exception:
        return report
    if explained is None or not explained.findings:
        return report
    better = explained.findings[0]
    failure = next((f for f in report.findings if f.code == "S01"), None)
    if failure is None:
        extra = tuple(f for f in explained.findings if f.code not in report.codes())
        merged = list(sort_findings([*report.findings, *extra]))
    elif better.code == "S01" and failure.hint.startswith(GENERIC_FAILURE_HINT):
        merged = [replace(f, hint=better.hint) if f is failure else f for f in report.findings]
    elif better.code == "S01":
        return report  # the trace's own hint reads the same evidence from its rows
    else:
        moved = replace(better, target=failure.target)
        merged = list(sort_findings([moved if f is failure else f for f in report.findings]))
    from tfnb_debug.render.shapes import report_sections, report_summary

    report = replace(report, findings=tuple(merged), explained=True)
    return replace(report, summary=report_summary(report), sections=report_sections(report))


def finish_report(report: ShapeReport) -> ShapeReport:
    """Run the rules over the rows and lay out summary, tables and sections (no TensorFlow)."""
    from tfnb_debug.render.shapes import report_sections, report_summary, report_tables

    facts = ShapeFacts(calls=report.calls, traces=report.traces)
    report = replace(report, findings=sort_findings(run_rules(facts, report.thresholds)))
    return replace(
        report,
        summary=report_summary(report),
        tables=report_tables(report),
        sections=report_sections(report),
    )


def _first_batch(calls: Sequence[LayerCall], root: int | None) -> int | None:
    if root is None:
        return None
    row = calls[root]
    for t in row.inputs:
        if t.shape and isinstance(t.shape[0], int):
            return t.shape[0]
    return None


def _root_layers(collector: Any, models: Sequence[Any]) -> list[Any]:
    """The models whose totals the report gives: those passed in, else the outermost models called."""
    if models:
        return list(models)
    seen: dict[int, Any] = {}
    for frame in collector.calls:
        if frame.parent is None and hasattr(frame.layer, "optimizer"):
            seen.setdefault(id(frame.layer), frame.layer)
    return list(seen.values())


def layer_for_path(model: Any, path: str) -> Any:
    """The layer object of ``model`` that a row's ``path`` names (``model/block/conv``, ``name#2``).

    The first segment is the model's own name (it may be left out); each
    further segment is the name of a direct sublayer of the previous one, with
    ``#k`` for the k-th of several direct sublayers sharing a name.
    """
    from tfnb_debug.collect.keras_access import all_sublayers, check_model, direct_sublayers

    check_model(model)
    parts = [p for p in path.split("/") if p]
    if parts and parts[0] == model.name:
        parts = parts[1:]
    layer = model
    walked = [str(model.name)]
    for part in parts:
        name, _, k = part.partition("#")
        same = [c for c in direct_sublayers(layer) if str(c.name) == name]
        index = int(k) - 1 if k.isdigit() else 0
        if index >= len(same):
            deeper = [
                c for c in all_sublayers(layer) if str(c.name) == name
            ]  # a layer called by, but not owned by, its caller
            if len(deeper) == 1 and index == 0:
                layer = deeper[0]
                walked.append(part)
                continue
            raise TfnbDebugError(
                f"no layer {part!r} under {'/'.join(walked)!r} in '{model.name}': "
                f"its sublayers are {[str(c.name) for c in direct_sublayers(layer)]}"
            )
        layer = same[index]
        walked.append(part)
    return layer
