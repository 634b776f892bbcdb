"""``%%tfcheck``: run code with in-graph NaN/Inf checks and stop at the first bad number.

:func:`run_checked` runs a callable under
:class:`~tfnb_debug.collect.check.NumericsChecks`: the input batch (N05), every
layer output in execution order (N01), the loss (G05) and the gradients before
they are applied (G03) are checked inside ``tf.function`` and ``model.fit``.
The first failure stops the run; the failing layer is re-run alone with
``tf.debugging.enable_check_numerics`` to name the op and its source line.
``tf.function`` retracing during the run is counted (T01).  The compiled
models that trained, evaluated or predicted get the metric and output-chain
checks M07 and M08 (:mod:`tfnb_debug.features.model_outputs`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report, Table, sort_findings

__all__ = ["CheckReport", "CheckThresholds", "run_checked"]


@dataclass(frozen=True)
class CheckThresholds:
    """``retrace_limit`` (T01): traces of one ``tf.function`` allowed in one run (default 5)."""

    retrace_limit: int = 5

    def __post_init__(self) -> None:
        if self.retrace_limit < 1:
            raise TfnbDebugError("--retrace-limit must be at least 1")


@dataclass(frozen=True, kw_only=True, repr=False)
class CheckReport(Report):
    """What ``%%tfcheck`` shows; every field is a plain value."""

    stopped: bool  # a check failed and the run stopped there
    failure: Any = None  # CheckFailure | None
    layers_checked: tuple[str, ...] = ()
    losses_checked: tuple[str, ...] = ()
    gradients_checked: tuple[str, ...] = ()
    #: gradients applied that no check could read, as "variable path (kind)"
    gradients_unchecked: tuple[str, ...] = ()
    steps: int = 0  # training steps (batches): updates of the optimizer that stepped most
    updates: int = 0  # optimizer updates, all optimizers together (2 per step in a GAN)
    checked_nothing: bool = False  # no layer output, loss or gradient went through a check
    xla_switched_off: tuple[str, ...] = ()
    traces: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = field(default=())


def run_checked(
    fn: Callable[[], Any],
    *,
    models: Sequence[Any] = (),
    functions: Sequence[Any] = (),
    retrace: Sequence[Any] = (),
    thresholds: CheckThresholds | None = None,
    op_detail: bool = True,
    on_error: Callable[[CheckReport], None] | None = None,
    live: Any = None,
    label_control: bool | str = True,
) -> tuple[Any, CheckReport]:
    """Run ``fn()`` with finiteness checks; return its value and the report.

    Every Keras model that builds a train/test/predict function during the run
    (``fit``, ``evaluate``, ``predict``) has its cached one dropped, so it
    retraces with the checks, and its XLA switched off (XLA silently drops the
    checks); both restored afterwards.  ``models`` get this treatment up front.
    ``functions``: ``tf.function`` objects the code may call, only to warn when
    they were traced before (their cached graph has no checks) or use XLA.
    ``retrace``: ``tf.function`` objects traced before that the code calls:
    they trace again under the checks, and get their own traces back afterwards.
    A failed check stops ``fn`` and is reported, not raised.  Any other
    exception propagates unchanged, after ``on_error(partial_report)``.
    The arguments of ``fit`` calls made by ``fn`` are checked too (P13, P14), and what
    each ``fit`` left (P15, P16), read after the checks are removed; ``label_control`` as
    for :func:`tfnb_debug.record_gradients`.
    ``live``: a :class:`~tfnb_debug.features.live.LiveView` shown while ``fn`` runs (the
    steps checked so far).
    """
    __tracebackhide__ = True  # the user's code raises through here: IPython leaves it out
    import tensorflow as tf

    from tfnb_debug.collect.check import NumericsChecks
    from tfnb_debug.collect.loss_watch import LossWatch, watch_losses
    from tfnb_debug.features.fit_data import record_fit_args, with_fit_findings

    thresholds = thresholds or CheckThresholds()
    notes = _function_notes(functions, retrace)
    checks = NumericsChecks(models, op_detail=op_detail, retrace=retrace)
    # P13/P14 from the fit calls' arguments; P15/P16 from what each left, read at the end
    fits = record_fit_args(outcomes=True, at_end=True, label_control=label_control)
    value = None
    failed: BaseException | None = None
    losses: LossWatch | None = None
    if live is not None:
        live.add(CheckLive(checks))
    try:
        with checks, fits, watch_losses() as losses, live or contextlib.nullcontext():
            value = fn()
    except tf.errors.OpError as err:
        if not checks.owns(err):
            _call(on_error, checks, thresholds, notes, losses)
            raise
        failed = err
    except BaseException:
        _call(on_error, checks, thresholds, notes, losses)
        raise
    if failed is not None:
        checks.record_failure(failed)
    _keep_checked_function(checks, losses)
    report = build_report(checks, thresholds, notes, losses)
    return value, with_fit_findings(report, fits, failed=failed is not None)


def _keep_checked_function(checks: Any, losses: Any) -> None:
    """Keep the run's checked functions for the next cell, and give the loss watch the
    facts of the kept functions' traces (this cell did not trace them).

    Kept only when the watch saw nothing to report: a kept function is not
    traced again, so the watch would not see its loss in the next cell.
    """
    from tfnb_debug.collect.loss_watch import nothing_watched

    if losses is not None:
        seen = {(f.function, f.where, f.loss) for f in losses.cross_entropies}
        for kept in checks.reused:
            for fact in kept.loss_facts:
                if (fact.function, fact.where, fact.loss) not in seen:
                    seen.add((fact.function, fact.where, fact.loss))
                    losses.cross_entropies.append(fact)
    if checks.failure is None and nothing_watched(losses):
        checks.keep_functions(losses.cross_entropies)


class CheckLive:
    """The checks as a source of the live view: the steps whose numbers were all finite so
    far (the check's own step counters, read at each update, not per step)."""

    def __init__(self, checks: Any) -> None:
        self._checks = checks

    def live_part(self) -> Any:
        from tfnb_debug.features.live import LivePart

        checks = self._checks
        steps = checks.steps_taken()
        checked = (
            f"checked: {len(checks.checked_outputs)} layer output(s), "
            f"{len(checks.checked_losses)} loss(es), {len(checks.checked_gradients)} gradient(s); "
            "no NaN/Inf so far"
        )
        return LivePart(step=steps or None, lines=(checked,))

    def stop_request(self, kind: str) -> Any:
        return None


def _call(
    on_error: Callable[[CheckReport], None] | None,
    checks: Any,
    thresholds: CheckThresholds,
    notes: list[str],
    losses: Any = None,
) -> None:
    if on_error is not None:
        on_error(
            build_report(checks, thresholds, [*notes, "the code raised: partial report"], losses)
        )


def _function_notes(functions: Sequence[Any], retrace: Sequence[Any] = ()) -> list[str]:
    notes = []
    for fn in [*retrace, *(f for f in functions if all(f is not r for r in retrace))]:
        name = getattr(fn, "__name__", None) or getattr(fn, "name", "tf.function")
        if not callable(getattr(fn, "experimental_get_tracing_count", None)):
            continue  # not a tf.function
        if getattr(fn, "_jit_compile", False):
            notes.append(
                f"tf.function '{name}' uses jit_compile=True: XLA drops the checks inside it; "
                "use jit_compile=False while debugging"
            )
        elif any(fn is r for r in retrace):
            notes.append(
                f"tf.function '{name}' was traced before this cell: traced again under the "
                "checks for this cell; its own traces are back afterwards"
            )
    # one the cell's names do not lead to is traced again, checked, if the cell calls it
    return notes


def _compiled_outputs(checks: Any) -> list[Finding]:
    """M07 and M08 for the compiled models that ran in the cell (their metrics as Keras built them)."""
    from tfnb_debug.features.model_outputs import check_outputs

    found: list[Finding] = []
    for model in checks.models_run():
        if getattr(model, "compiled", False):
            found += check_outputs(model)
    return found


def build_report(
    checks: Any, thresholds: CheckThresholds, notes: Sequence[str], losses: Any = None
) -> CheckReport:
    """``losses``: the :class:`~tfnb_debug.collect.loss_watch.LossWatch` of the run (S08, M02, M03)."""
    from tfnb_debug.diagnostics.check import first_nonfinite
    from tfnb_debug.diagnostics.losses import check_losses
    from tfnb_debug.diagnostics.shapes import ShapeFacts, ShapeThresholds, retracing
    from tfnb_debug.records.shapes import TraceCount

    findings: list[Finding] = []
    failure = checks.failure
    if failure is not None:
        findings += first_nonfinite(failure)
    counts = tuple(
        TraceCount(name=name, traces=len(signatures), signatures=signatures)
        for name, signatures in checks.traces.entries()
    )
    findings += retracing(
        ShapeFacts(traces=counts), ShapeThresholds(retrace_limit=thresholds.retrace_limit)
    )
    if losses is not None:
        findings += check_losses(losses)
    findings += _compiled_outputs(checks)
    from tfnb_debug.diagnostics.gradients import trainable_after_trace

    findings += [f for f in map(trainable_after_trace, checks.stale_trainable) if f is not None]
    steps = checks.steps_taken()
    updates, optimizers = checks.updates_taken()
    checked_nothing = failure is None and not (
        checks.checked_outputs or checks.checked_losses or checks.checked_gradients
    )
    summary = [_headline(checks, steps_text(steps, updates, optimizers), checked_nothing)]
    if checks.xla_switched_off:
        summary.append(
            "XLA switched off for this cell (it drops NaN checks) for: "
            + ", ".join(checks.xla_switched_off)
            + "; restored afterwards"
        )
    if checks.reused_models:
        summary.append(
            "the checked functions of "
            + ", ".join(f"'{name}'" for name in checks.reused_models)
            + " were traced in an earlier cell and are used again (same model, optimizer, "
            "compile configuration and options): their checks are the same"
        )
    summary.extend(notes)
    rows = _check_rows(checks, counts)
    if losses is not None:
        rows.append(
            (
                "what reaches the loss (S08, M02, M03)",
                f"{len(losses.cross_entropies)} cross-entropy call site(s), broadcasts outside layers",
                "watched",
            )
        )
    ran = [str(m.name) for m in checks.models_run() if getattr(m, "compiled", False)]
    if ran:
        rows.append(
            (
                "metrics vs output scale, output activations (M07, M08)",
                ", ".join(ran),
                "read from the compiled models",
            )
        )
    tables = [Table("checks", ("what", "where", "how"), tuple(rows))]
    if failure is not None:
        op = failure.op
        detail = [
            ("check", failure.kind),
            ("place", failure.place),
            ("layer class", failure.layer_class or "-"),
            ("step", "-" if failure.step is None else failure.step + 1),
            ("mode", "eager" if failure.eager else "graph (tf.function / fit)"),
            ("op", (op.op_type or op.error) if op is not None else "-"),
            ("source", op.source if op is not None and op.source else "-"),
        ]
        tables.insert(
            0, Table("first failure", ("item", "value"), tuple(detail), ("error",) + ("",) * 6)
        )
    return CheckReport(
        title="tfnb_debug NaN/Inf check",
        summary=tuple(summary),
        findings=sort_findings(findings),
        tables=tuple(tables),
        stopped=failure is not None,
        failure=failure,
        layers_checked=tuple(checks.checked_outputs),
        losses_checked=tuple(checks.checked_losses),
        gradients_checked=tuple(checks.checked_gradients),
        gradients_unchecked=tuple(checks.unchecked_gradients),
        steps=steps,
        updates=updates,
        checked_nothing=checked_nothing,
        xla_switched_off=tuple(checks.xla_switched_off),
        traces=tuple((c.name, c.traces) for c in counts),
        notes=tuple(notes),
    )


def steps_text(steps: int, updates: int, optimizers: int) -> str:
    """``8 optimizer step(s)``, or with several optimizers ``8 step(s) (16 optimizer updates
    by 2 optimizers)``: a step is one training batch, whatever the number of optimizers."""
    if optimizers > 1:
        return f"{steps} step(s) ({updates} optimizer updates by {optimizers} optimizers)"
    return f"{steps} optimizer step(s)"


def _check_rows(checks: Any, counts: Sequence[Any]) -> list[tuple[str, str, str]]:
    """What each check covered in this run: "checked" only where something went through it."""

    def how(count: int, none: str) -> str:
        return "checked" if count else none

    outputs, losses = len(checks.checked_outputs), len(checks.checked_losses)
    gradients, unchecked = len(checks.checked_gradients), list(checks.unchecked_gradients)
    where = f"{gradients} variables"
    if unchecked:
        where += f"; not checked: {', '.join(unchecked[:3])}" + (
            " ..." if len(unchecked) > 3 else ""
        )
    return [
        ("input batches (N05)", "outermost layer/model call", how(outputs, "no layer call ran")),
        ("layer outputs (N01)", f"{outputs} layer call sites", how(outputs, "no layer call ran")),
        ("losses (G05)", ", ".join(checks.checked_losses) or "none seen", how(losses, "none ran")),
        (
            "gradients (G03)",
            where,
            how(gradients, "not checked" if unchecked else "no optimizer update ran"),
        ),
        ("tf.function traces (T01)", f"{sum(c.traces for c in counts)} traces", "counted"),
    ]


def _headline(checks: Any, steps: str, checked_nothing: bool) -> str:
    failure = checks.failure
    if checked_nothing:
        return (
            "NOTHING CHECKED: no Keras layer call, loss or optimizer update ran under the checks "
            "in this cell, so no NaN/Inf could be found"
        )
    if failure is not None:
        return f"STOPPED at the first NaN/Inf: {failure.kind} check at '{failure.place}'"
    outputs = len(checks.checked_outputs)
    if (
        not checks.checked_losses
        and not checks.checked_gradients
        and not checks.unchecked_gradients
    ):
        return (
            f"no NaN/Inf: {outputs} layer outputs checked (no loss and no optimizer update ran "
            "in this cell)"
        )
    unchecked = checks.unchecked_gradients
    missed = (
        f"; {len(unchecked)} gradient(s) NOT checked: {', '.join(unchecked[:3])}"
        + (" ..." if len(unchecked) > 3 else "")
        if unchecked
        else ""
    )
    return (
        f"no NaN/Inf: {outputs} layer outputs, "
        f"{len(checks.checked_losses)} loss(es) and {len(checks.checked_gradients)} gradients "
        f"checked over {steps}{missed}"
    )
