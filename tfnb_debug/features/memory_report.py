"""The memory report: :class:`MemoryReport` (``%%tfmem``), :class:`ModelMemoryReport`
(``estimate_model_memory``), and the memory section other magics add with ``--mem``.

:func:`build_memory_report` turns a finished recording (the sampler's series, the
steps it saw, the models' estimates) into the report: series per device, the steady
part of training, the device's capacity and the budget rules (R01-R03, M06).
:func:`memory_section` puts the same numbers under another feature's report
(:func:`tfnb_debug.features.memory.with_memory`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect.memory_estimate import ModelMemoryEstimate
from tfnb_debug.diagnostics.memory import (
    MemoryThresholds,
    budget_findings,
    capacity_findings,
    fit_trend,
    growth_finding,
    oom_finding,
)
from tfnb_debug.ground.reports import Finding, Report, Section, Table, sort_findings
from tfnb_debug.ground.values import format_bytes

__all__ = [
    "SAMPLED_STEPS",
    "MemoryReport",
    "MemorySeries",
    "ModelMemoryReport",
    "build_memory_report",
    "default_device_memory",
    "estimate_line",
    "estimate_table",
    "memory_budget",
    "memory_section",
]


@dataclass(frozen=True)
class MemorySeries:
    """One curve: a device's (or the host's) memory in bytes at each time (seconds)."""

    name: str
    kind: str  # "host" or "device"
    capacity: int | None
    times: tuple[float, ...]
    current: tuple[int, ...]
    allocator_peak: int | None  # the allocator's own peak (catches spikes between samples)

    @property
    def start(self) -> int:
        return self.current[0]

    @property
    def end(self) -> int:
        return self.current[-1]

    @property
    def peak(self) -> int:
        return max(max(self.current), self.allocator_peak or 0)

    @property
    def peak_time(self) -> float:
        best = max(self.current)
        return self.times[self.current.index(best)]

    @property
    def delta(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, kw_only=True, repr=False)
class MemoryReport(Report):
    """What ``%%tfmem`` shows: every series, the step times, estimates and findings."""

    interval_ms: float
    duration_s: float
    series: tuple[MemorySeries, ...]
    step_times: tuple[float, ...]
    step_sources: tuple[str, ...]
    gpu_count: int
    estimates: tuple[ModelMemoryEstimate, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None

    def series_named(self, name: str) -> MemorySeries:
        for series in self.series:
            if series.name == name:
                return series
        names = ", ".join(s.name for s in self.series)
        raise KeyError(f"no memory series {name!r} (series: {names})")

    @functools.cached_property
    def plot_html(self) -> str:
        """The memory plot (inline SVG), drawn the first time it is asked for."""
        from tfnb_debug.render.memory import memory_plot_html

        return memory_plot_html(self)

    def to_html(self) -> str:
        from tfnb_debug.render.html import render_report_html

        plot = Section(title="memory over time", html=self.plot_html)
        return render_report_html(dataclasses.replace(self, sections=(plot, *self.sections)))

    def samples_dataframe(self) -> Any:
        """Every reading as a long DataFrame: series, seconds, bytes."""
        import pandas as pd

        rows = [
            (s.name, t, v) for s in self.series for t, v in zip(s.times, s.current, strict=True)
        ]
        return pd.DataFrame(rows, columns=["series", "seconds", "bytes"])


@dataclass(frozen=True, kw_only=True, repr=False)
class ModelMemoryReport(Report):
    """What :func:`estimate_model_memory` returns: one estimate against one device."""

    estimate: ModelMemoryEstimate
    device: str
    capacity: int | None


def build_memory_report(
    recording: Any,
    *,
    interval_ms: float,
    thresholds: MemoryThresholds,
    estimates: Sequence[ModelMemoryEstimate] = (),
    error: BaseException | None = None,
    title: str = "tfnb_debug memory",
) -> MemoryReport:
    """Turn a :class:`~tfnb_debug.collect.memory.MemoryRecording` into a report with findings."""
    steps = recording.steps or _steps_from_samples(recording)
    records = [r for r in recording.series if r.times]  # a probe that failed at once has none
    series = tuple(_merge(record, recording.steps) for record in records)
    findings: list[Finding] = []
    per_step = len(steps) >= thresholds.growth_min_points
    for s in series:
        if per_step:
            points = [(m.index, m.reading(s.name)) for m in steps]
            xs = [float(x) for x, y in points if y is not None]
            ys = [float(y) for x, y in points if y is not None]
        else:
            xs, ys = _steady_samples(s, steps)
        trend = fit_trend(xs, ys, thresholds)
        grown = growth_finding(
            s.name, trend, per_step=per_step, thresholds=thresholds, steps_seen=len(steps)
        )
        if grown is not None:
            findings.append(grown)
        findings.extend(capacity_findings(s.name, s.peak, s.capacity, thresholds))
    if error is not None:
        oom = oom_finding(type(error).__name__, str(error))
        if oom is not None:
            findings.append(oom)
    device, capacity = _device_capacity(series)
    for estimate in estimates:
        findings.extend(memory_budget(estimate, device, capacity, thresholds))

    notes = list(recording.probe_notes)
    if recording.gpu_count == 0:
        shared = ""
        if recording.replicas > 1:  # logical CPU devices use the one host allocator
            shared = f", shared by the {recording.replicas} replicas (one allocator for all CPUs)"
        notes.append(f"no GPU is visible: host memory only{shared}")
    sources = tuple(sorted({m.source for m in steps}))
    shown = sources
    if recording.graph_steps is not None and SAMPLED_STEPS in sources:
        shown = tuple(x for x in sources if x != SAMPLED_STEPS)  # _steps_seen says it
    summary = [
        f"{recording.duration_s:.2f} s: "
        f"{len(recording.series[0].times) if recording.series else 0} samples "
        f"(every {interval_ms:g} ms), {_steps_seen(recording, steps)}"
        + (f" via {', '.join(shown)}" if shown else ""),
        *notes,
    ]
    if steps and not per_step:
        summary.append(
            f"R01 needs at least {thresholds.growth_min_points} steps: the trend is fitted over "
            f"time, from the end of the first step on ({steps[0].time:.2f} s; the start-up and "
            "tracing before it are left out)"
        )
    if error is not None:
        summary.append(
            f"the cell raised {type(error).__name__}: the report covers the run until then"
        )
    report = MemoryReport(
        title=title,
        summary=tuple(summary),
        findings=sort_findings(findings),
        tables=(_series_table(series), *((estimate_table(estimates),) if estimates else ())),
        interval_ms=interval_ms,
        duration_s=recording.duration_s,
        series=series,
        step_times=tuple(m.time for m in steps),
        step_sources=sources,
        gpu_count=recording.gpu_count,
        estimates=tuple(estimates),
        notes=tuple(notes),
        error=None if error is None else f"{type(error).__name__}: {error}".strip(),
    )
    return report


def memory_section(report: MemoryReport) -> Section:
    """The plot plus the start/end/peak table, for another magic's report (``--mem``)."""
    from tfnb_debug.render.html import render_table_html
    from tfnb_debug.render.text import render_table_text

    table = _series_table(report.series)
    return Section(
        title="memory over the cell's run",
        html=report.plot_html + render_table_html(table),
        text="\n".join([*report.summary, render_table_text(table)]),
    )


# -- helpers ---------------------------------------------------------------------------------
SAMPLED_STEPS = "tf.function (counted at each sample)"


def _steps_seen(recording: Any, steps: Sequence[Any]) -> str:
    """``32 training step(s) seen``; steps inside a tf.function are counted from the optimizers'
    ``iterations``, and memory was read only at the samples where the count had moved."""
    sampled = sum(1 for m in steps if m.source == SAMPLED_STEPS)
    total = recording.graph_steps
    if not sampled or total is None:
        return f"{len(steps)} training step(s) seen"
    eager = len(steps) - sampled
    return (
        f"{eager + total} training step(s) seen ({total} inside tf.function, counted from the "
        f"optimizer; memory read at {sampled} of them, at the samples)"
    )


def _steps_from_samples(recording: Any) -> tuple[Any, ...]:
    """Steps taken inside a ``tf.function``, from the optimizers' ``iterations`` at each sample.

    One mark per sample at which the count went up, indexed by the count (so
    the R01 fit is over real step numbers), with that sample's readings.  The
    count starts from the optimizers' count before the cell's first step (a
    sample can come after the first steps ran), else from the first sample.
    """
    from tfnb_debug.collect.memory_steps import StepMark

    marks: list[StepMark] = []
    first = last = recording.graph_baseline
    for i, count in enumerate(recording.sample_steps):
        if count is None:
            continue
        if first is None or last is None:
            first = last = count
            continue
        if count > last:
            readings = tuple((r.name, r.current[i]) for r in recording.series)
            marks.append(
                StepMark(count - first, recording.series[0].times[i], SAMPLED_STEPS, readings)
            )
            last = count
    return tuple(marks)


def _steady_samples(series: MemorySeries, steps: Sequence[Any]) -> tuple[list[float], list[float]]:
    """The readings over time R01 judges when too few steps were seen to fit per step: those
    from the end of the first training step on (``series``: the samples and step readings).

    Before it a process climbs once while TensorFlow starts up and the first step traces,
    builds the optimizer's variables and fills the input pipeline: on a freshly started
    kernel or worker that climb is most of a short cell's samples, and not a leak.  With
    no step seen at all, every sample (the fit skips its warm-up fraction as always).
    """
    start = steps[0].time if steps else float("-inf")
    pairs = [(t, float(v)) for t, v in zip(series.times, series.current, strict=True) if t >= start]
    return [t for t, _ in pairs], [v for _, v in pairs]


def _merge(record: Any, steps: Sequence[Any]) -> MemorySeries:
    """The sampler's readings plus the readings taken at each step, in time order."""
    pairs = list(zip(record.times, record.current, strict=True))
    for mark in steps:
        value = mark.reading(record.name)
        if value is not None:
            pairs.append((mark.time, value))
    pairs.sort(key=lambda p: p[0])
    peaks = [p for p in record.peak if p is not None]
    return MemorySeries(
        name=record.name,
        kind=record.kind,
        capacity=record.capacity,
        times=tuple(t for t, _ in pairs),
        current=tuple(int(v) for _, v in pairs),
        allocator_peak=max(peaks) if peaks else None,
    )


def _series_table(series: Sequence[MemorySeries]) -> Table:
    rows = tuple(
        (
            s.name,
            format_bytes(s.start),
            format_bytes(s.end),
            format_bytes(s.peak),
            ("+" if s.delta > 0 else "") + format_bytes(s.delta),
            "-" if s.capacity is None else format_bytes(s.capacity),
        )
        for s in series
    )
    return Table("memory", ("series", "start", "end", "peak", "delta", "capacity"), rows)


def estimate_table(estimates: Sequence[ModelMemoryEstimate]) -> Table:
    def mib(n: int | None) -> str:
        return "-" if n is None else format_bytes(n)

    rows = tuple(
        (
            e.model,
            e.optimizer,
            e.parameters,
            None if e.bytes_per_parameter is None else round(e.bytes_per_parameter, 1),
            mib(e.weight_bytes),
            mib(e.gradient_bytes),
            mib(e.optimizer_bytes),
            e.batch_size,
            e.activation_dtype,
            mib(e.activation_bytes),
            mib(e.training_bytes),
        )
        for e in estimates
    )
    return Table(
        "model memory estimate",
        (
            "model",
            "optimizer",
            "parameters",
            "B/param",
            "weights",
            "gradients",
            "optimizer state",
            "batch",
            "activations dtype",
            "activations",
            "total (at least)",
        ),
        rows,
    )


def estimate_line(e: ModelMemoryEstimate) -> str:
    parts = [f"{e.parameters:,} parameters, optimizer {e.optimizer}"]
    if e.optimizer_bytes is None:
        parts.append("optimizer state unknown")
    if e.activation_bytes is None:
        parts.append(
            "activations not counted ("
            + ("no batch size given" if e.batch_size is None else "layer output shapes unknown")
            + ")"
        )
    return "; ".join(parts) + f": at least {format_bytes(e.training_bytes)} to train"


def memory_budget(
    e: ModelMemoryEstimate, device: str, capacity: int | None, thresholds: MemoryThresholds
) -> list[Finding]:
    breakdown = (
        f"weights {format_bytes(e.weight_bytes)} + gradients {format_bytes(e.gradient_bytes)}"
        f" + optimizer {format_bytes(e.optimizer_bytes or 0)} ({e.optimizer})"
        f" + activations {format_bytes(e.activation_bytes or 0)}"
        + (f" (batch {e.batch_size}, {e.activation_dtype})" if e.activation_bytes else "")
    )
    return budget_findings(e.model, e.training_bytes, capacity, device, breakdown, thresholds)


def _device_capacity(series: Sequence[MemorySeries]) -> tuple[str, int | None]:
    devices = [s for s in series if s.kind == "device" and s.capacity]
    if devices:
        return devices[0].name.replace(" allocator", ""), devices[0].capacity
    hosts = [s for s in series if s.kind == "host"]
    return ("host memory", hosts[0].capacity) if hosts else ("device", None)


def default_device_memory() -> tuple[str, int | None]:
    from tfnb_debug.collect.memory import host_probe, tensorflow_probes

    probes, _, _ = tensorflow_probes()
    gpus = [p for p in probes if p.capacity]
    if gpus:
        return gpus[0].name.replace(" allocator", ""), gpus[0].capacity
    return "host memory", host_probe().capacity
