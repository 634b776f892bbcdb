"""The tables and charts of a run report (``%tfrun``): every worker side by side."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np

from tfnb_debug.diagnostics.runs import WorkerTimes
from tfnb_debug.features.run_records import WorkerRecord
from tfnb_debug.ground.reports import Section, Table
from tfnb_debug.render.svg import Line, chart_svg

__all__ = ["gradient_table", "run_sections", "workers_table"]

#: one colour per worker (cycled)
COLORS = ("#2563eb", "#d97706", "#059669", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#111827")
#: most points a chart line draws (longer series are shown as medians of buckets)
MAX_POINTS = 400


def _ms(value: float) -> float | None:
    return None if not np.isfinite(value) else round(value * 1000.0, 3)


def workers_table(
    workers: Sequence[WorkerRecord], times: Sequence[WorkerTimes], slow: Mapping[str, str]
) -> Table:
    """One row per worker: steps, median time per step and outside the step, straggler, the
    codes of its findings, then the 90th-percentile step time, the timed steps, first and last
    loss, peak memory (what a narrow text form cuts off comes last); stragglers marked."""
    rows, marks = [], []
    for w, t in zip(workers, times, strict=True):
        seconds = w.step_seconds()
        p90 = (
            float(np.percentile(seconds[1:] if seconds.size > 1 else seconds, 90))
            if seconds.size
            else float("nan")
        )
        known = w.history.loss[w.history.loss_known]
        codes = " ".join(dict.fromkeys(f.code for f in w.findings))
        rows.append(
            (
                w.name,
                w.task,
                w.history.total_steps,
                _ms(t.step),
                _ms(t.outside) if w.call_end.size > 1 else None,
                "straggler" if w.name in slow else "",
                codes,
                _ms(p90),
                int(w.call_steps.sum()),
                float(known[0]) if known.size else None,
                float(known[-1]) if known.size else None,
                _peak_mib(w, "host"),
                _peak_mib(w, "device"),
            )
        )
        marks.append("warning" if w.name in slow else "")
    return Table(
        "workers",
        (
            "worker",
            "task",
            "optimizer steps",
            "step ms (median)",
            "outside step ms (median)",
            "straggler",
            "findings",
            "step ms (p90)",
            "timed steps",
            "loss (first)",
            "loss (last)",
            "peak host MiB",
            "peak device MiB",
        ),
        tuple(rows),
        tuple(marks),
    )


def _peak_mib(w: WorkerRecord, kind: str) -> float | None:
    """The highest peak of the worker's memory series of ``kind`` (host RSS, a device's
    allocator), in MiB; None without memory records."""
    if w.memory is None:
        return None
    peaks = [s.peak for s in w.memory.series if s.kind == kind]
    return round(max(peaks) / 1024**2, 1) if peaks else None


def gradient_table(workers: Sequence[WorkerRecord]) -> Table:
    """Per layer, each worker's median and last gradient norm side by side."""
    layers: dict[str, None] = {}
    for w in workers:
        for layer in w.history.layers():
            layers.setdefault(layer, None)
    per_worker = []
    for w in workers:
        names = w.history.layers()
        norms = w.history.layer_grad_norms()
        column = {}
        for j, layer in enumerate(names):
            values = norms[:, j]
            finite = values[np.isfinite(values)]
            column[layer] = (
                float(np.median(finite)) if finite.size else None,
                float(values[-1]) if values.size else None,
            )
        per_worker.append(column)
    rows = []
    for layer in layers:
        row: list[object] = [layer]
        row += [col.get(layer, (None, None))[0] for col in per_worker]
        row += [col.get(layer, (None, None))[1] for col in per_worker]
        rows.append(tuple(row))
    columns = (
        "layer",
        *(f"{w.name} median" for w in workers),
        *(f"{w.name} last" for w in workers),
    )
    return Table("gradient norms", columns, tuple(rows))


def _thin(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most MAX_POINTS points: the median of each bucket of a longer series."""
    if x.size <= MAX_POINTS:
        return x, y
    edges = np.linspace(0, x.size, MAX_POINTS + 1).astype(int)
    xs = np.array([x[a:b].mean() for a, b in zip(edges[:-1], edges[1:], strict=True)])
    with np.errstate(all="ignore"):
        ys = np.array([np.nanmedian(y[a:b]) for a, b in zip(edges[:-1], edges[1:], strict=True)])
    return xs, ys


def run_sections(workers: Sequence[WorkerRecord]) -> tuple[Section, ...]:
    """Step time over the steps and the loss over the recorded steps, a line per worker."""
    step_lines, loss_lines, memory_lines = [], [], []
    for i, w in enumerate(workers):
        color = COLORS[i % len(COLORS)]
        seconds = w.step_seconds()
        if seconds.size:
            x = np.cumsum(w.call_steps).astype(float)
            xs, ys = _thin(x, seconds * 1000.0)
            step_lines.append(Line(w.name, xs, ys, color=color))
        known = w.history.loss_known
        if known.any():
            xs, ys = _thin(w.history.steps[known].astype(float), w.history.loss[known])
            loss_lines.append(Line(w.name, xs, ys, color=color))
        host = [s for s in w.memory.series if s.kind == "host"] if w.memory else []
        if host and host[0].times.size:
            xs, ys = _thin(host[0].times, host[0].current / 1024**2)
            memory_lines.append(Line(f"{w.name} {host[0].name}", xs, ys, color=color))
    sections = []
    if step_lines:
        svg = chart_svg(
            step_lines,
            x_label="optimizer step",
            y_label="ms per step",
            label="step time per worker",
            title="step time per worker",
            legend=True,
            y_floor=0.0,
        )
        sections.append(Section("step times", f"<div>{svg}</div>"))
    if loss_lines:
        svg = chart_svg(
            loss_lines,
            x_label="optimizer step",
            y_label="loss",
            label="loss per worker",
            title="loss per worker (as each worker recorded it)",
            legend=True,
        )
        sections.append(Section("loss", f"<div>{svg}</div>"))
    if memory_lines:
        svg = chart_svg(
            memory_lines,
            x_label="seconds since the block began",
            y_label="MiB",
            label="host memory per worker",
            title="host memory per worker",
            legend=True,
        )
        sections.append(Section("memory", f"<div>{svg}</div>"))
    if not sections:
        sections.append(
            Section("step times", f"<p>{html.escape('no timed step in the records')}</p>")
        )
    return tuple(sections)
