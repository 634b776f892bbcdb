"""How a shape report is laid out: summary lines, tables per traced call, the failure section.

Pure functions of plain rows; no TensorFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.reports import Section, Table
from tfnb_debug.ground.values import format_bytes, format_shape, format_value
from tfnb_debug.records.shapes import LayerCall, TensorInfo, calls_frame
from tfnb_debug.render.html import MONO

if TYPE_CHECKING:
    from tfnb_debug.features.shape_report import ShapeReport

SHAPE_COLUMNS = (
    "#",
    "layer",
    "class",
    "input shape",
    "output shape",
    "dtype",
    "params (train / non-train)",
    "output bytes",
    "inputs from",
)
STAT_COLUMNS = ("#", "layer", "mean", "std", "min", "max", "zeros", "NaN/Inf")
_MODE_NOTE = {
    "eager": "",
    "graph": "traced inside tf.function: shapes only, values are not available",
    "symbolic": "symbolic call (model construction): shapes only, no values",
}


def shapes_text(infos: Sequence[TensorInfo]) -> str:
    parts = ["(?)" if t.shape is None else format_shape(t.shape) for t in infos]
    return ", ".join(parts) if parts else "-"


def dtype_text(row: LayerCall) -> str:
    ins = _unique(t.dtype for t in row.inputs)
    outs = _unique(t.dtype for t in row.outputs)
    if not outs:
        return "/".join(ins) or "-"
    if ins == outs or not ins:
        return "/".join(outs)
    return f"{'/'.join(ins)}→{'/'.join(outs)}"


def _unique(items: Any) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def params_text(row: LayerCall) -> str:
    if row.trainable_params is None or row.non_trainable_params is None:
        return f"(call {row.call + 1}, shared)" if row.call else "-"
    return f"{row.trainable_params:,} / {row.non_trainable_params:,}"


def producers_text(row: LayerCall) -> str:
    names = []
    for t in row.inputs:
        if t.producer is None:
            names.append("?")
        elif t.producer == "input":
            names.append("input")
        else:
            names.append(t.producer.rsplit("/", 1)[-1])
    return ", ".join(names) if names else "-"


def _groups(calls: Sequence[LayerCall]) -> list[list[LayerCall]]:
    """Rows grouped by outermost call; consecutive top-level symbolic calls share one group."""
    groups: list[list[LayerCall]] = []
    for row in calls:
        if row.parent is None:
            merge = (
                groups
                and row.mode == "symbolic"
                and not row.has_children
                and groups[-1][0].mode == "symbolic"
                and not groups[-1][0].is_model
            )
            if not merge:
                groups.append([])
        if not groups:
            groups.append([])
        groups[-1].append(row)
    return groups


def _group_title(group: list[LayerCall]) -> str:
    root = group[0]
    if root.mode == "symbolic" and not root.is_model and len({r.root for r in group}) > 1:
        return "symbolic layer calls (model construction): shapes only"
    title = f"{root.path} ({root.class_name})"
    note = _MODE_NOTE[root.mode]
    if root.call:
        title += f", call {root.call + 1}"
    return f"{title}: {note}" if note else title


def report_tables(report: ShapeReport) -> tuple[Table, ...]:
    warned = {
        m.target.path
        for f in report.findings
        if f.severity == "warning"
        for m in f.members
        if m.target is not None and m.target.kind == "layer"
    }
    tables = []
    for group in _groups(report.calls):
        title = _group_title(group)
        marks = tuple(
            "error" if r.status == "failed" else ("warning" if r.path in warned else "")
            for r in group
        )
        rows = tuple(
            (
                r.index,
                ("  " * r.depth) + r.path,
                f"{r.class_name} ({r.steps} steps)" if r.steps else r.class_name,
                shapes_text(r.inputs),
                shapes_text(r.outputs)
                if r.status == "ok"
                else f"FAILED: {r.error_type}"
                if r.status == "failed"
                else "(aborted)",
                dtype_text(r),
                params_text(r),
                format_bytes(r.output_bytes) if r.output_bytes is not None else "-",
                producers_text(r),
            )
            for r in group
        )
        tables.append(Table(title, SHAPE_COLUMNS, rows, marks))
        stat_rows = tuple(
            (
                r.index,
                ("  " * r.depth) + r.path,
                r.stats.mean,
                r.stats.std,
                r.stats.min,
                r.stats.max,
                f"{r.stats.zero_fraction:.1%}",
                r.stats.nonfinite,
            )
            for r in group
            if r.stats is not None
        )
        if stat_rows:
            stat_marks = tuple(
                "error" if r.stats.nonfinite else ("warning" if r.path in warned else "")
                for r in group
                if r.stats is not None
            )
            tables.append(
                Table(f"{title} · output statistics", STAT_COLUMNS, stat_rows, stat_marks)
            )
    return tuple(tables)


def report_summary(report: ShapeReport) -> tuple[str, ...]:
    lines = []
    if report.failed:
        failing = report.failing_call
        if failing is not None and "S01" in report.codes():
            # the error's sentence is in S01 below: say it once
            lines.append(
                f"FAILED in '{failing.path}' ({failing.class_name}): {report.error_type}, "
                "see the failing layer and S01 below"
            )
        else:
            where = f" in '{failing.path}'" if failing else ""
            lines.append(f"FAILED{where}: {report.error_type}: {report.error}")
    n = len(report.calls)
    lines.append(f"{n} layer call(s) recorded" + (" (truncated)" if report.truncated else ""))
    if report.input_note:
        lines.append(report.input_note)
    if report.total_params is not None:
        lines.append(
            f"parameters: {report.total_params:,} total "
            f"({report.trainable_params or 0:,} trainable, "
            f"{report.non_trainable_params or 0:,} non-trainable) = model.count_params()"
        )
    for m in report.memory:
        lines.append(memory_line(m))
    lines.extend(replica_lines(report))
    for name, count in report.repeated_calls:
        lines.append(
            f"'{name}' was called {count} more time(s) with the same shapes (rows shown once)"
        )
    if not report.calls and not report.findings:
        lines.append(
            "no Keras layer call was recorded: an already traced model.predict/fit runs its "
            "cached graph; call the model directly (model(x)) or use `%tfshape model x`"
        )
    return tuple(lines)


def replica_lines(report: ShapeReport) -> list[str]:
    """``per replica: (8, 28, 28, 1) on 2 replicas ...`` for each model built under a strategy
    with more than one replica: the global batch is split along its first axis."""
    lines = []
    for model, replicas, inside in report.replicas:
        root = next((c for c in report.calls if c.parent is None and c.path == model), None)
        shapes = [t.shape for t in root.inputs] if root is not None else []
        batch = shapes[0][0] if shapes and shapes[0] else None
        if inside:
            lines.append(
                f"per replica: the rows of model '{model}' were recorded inside each of its "
                f"{replicas} replicas, so they hold one replica's share of the global batch"
                + (f" ({batch} of {batch * replicas} examples)" if batch is not None else "")
            )
            continue
        if batch is None:
            lines.append(
                f"model '{model}' runs on {replicas} replicas: each gets 1/{replicas} of the "
                "global batch (the table shows global shapes)"
            )
            continue
        sizes = sorted({batch // replicas + (i < batch % replicas) for i in range(replicas)})
        per = " or ".join(
            ", ".join(format_shape((size, *(s or ())[1:])) for s in shapes) for size in sizes[::-1]
        )
        lines.append(
            f"per replica: {per} on {replicas} replicas (model '{model}' was built under a "
            f"tf.distribute strategy: the table shows the global batch, "
            f"{', '.join(format_shape(s) for s in shapes if s is not None)})"
        )
    return lines


def memory_line(m: Any) -> str:
    if m.bytes_per_param is None:
        acts = (
            f"; activations {format_bytes(m.activation_bytes)} at batch {m.batch_size}"
            if m.activation_bytes is not None
            else ""
        )
        return f"training memory of '{m.model}': unknown: {m.note}{acts}"
    if m.total_bytes is None:
        return (
            f"training memory of '{m.model}': parameters {format_bytes(m.param_bytes or 0)} "
            f"({m.bytes_per_param} B per trainable parameter with {m.optimizer}); {m.note}"
        )
    return (
        f"training memory of '{m.model}' ≈ {format_bytes(m.total_bytes)}: parameters "
        f"{format_bytes(m.param_bytes or 0)} ({m.bytes_per_param} B per trainable parameter: "
        f"weight, gradient and {m.optimizer} state) + activations "
        f"{format_bytes(m.activation_bytes or 0)} at batch {m.batch_size}"
    )


def report_sections(report: ShapeReport) -> tuple[Section, ...]:
    row = report.failing_call
    if row is None:
        return ()
    lines = [f"{row.path} ({row.class_name}) raised {row.error_type} on these inputs:"]
    for i, t in enumerate(row.inputs):
        shape = "(?)" if t.shape is None else format_shape(t.shape)
        lines.append(f"  input {i}: {shape} {t.dtype} from {t.producer or 'code outside a layer'}")
    html = "".join(
        f'<div style="{MONO}{"color:#b91c1c;font-weight:600;" if i == 0 else ""}">'
        f"{escape(line)}</div>"
        for i, line in enumerate(lines)
    )
    return (Section("failing layer", html, "\n".join(lines)),)


__all__ = [
    "calls_frame",
    "dtype_text",
    "format_value",
    "memory_line",
    "report_sections",
    "report_summary",
    "report_tables",
]
