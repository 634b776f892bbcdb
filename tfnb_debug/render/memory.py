"""The memory plot: one panel per kind of memory, peak marked, training steps as ticks.

A pure function of a :class:`~tfnb_debug.features.memory.MemoryReport` (duck-typed: it
reads ``series`` and ``step_times``), drawn as inline SVG
(:func:`tfnb_debug.render.svg.chart_svg`): a ``%%tfmem`` report is shown after
every cell it measures, and the same plot as a matplotlib figure took 0.2-0.4 s
to draw, more than the fit it measured in a workshop-sized cell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnb_debug.ground.values import format_bytes
from tfnb_debug.render.svg import CYCLE, RED, Line, Mark, chart_svg

__all__ = ["memory_plot_html"]

_MiB = 1024**2
_PANELS = (("host", "host memory"), ("device", "TensorFlow allocators"))


def memory_plot_html(report: Any) -> str:
    """Memory (MiB) over seconds, a panel per kind; the peak of each series marked; a tick
    per training step; the device's capacity dashed once a peak passes half of it."""
    panels = [
        (kind, title) for kind, title in _PANELS if any(s.kind == kind for s in report.series)
    ]
    if not panels:
        return '<div style="color:#6b7280">no memory readings</div>'
    alt = "memory over time: " + "; ".join(
        f"{s.name} peak {format_bytes(s.peak)}" for s in report.series
    )
    ends = [max(s.times, default=0.0) for s in report.series] + list(report.step_times)
    x_range = (0.0, max(ends, default=1.0) or 1.0)
    steps = list(report.step_times)
    charts = []
    for kind, title in panels:
        lines: list[Line] = []
        marks: list[Mark] = []
        for i, series in enumerate(s for s in report.series if s.kind == kind):
            color = CYCLE[i % len(CYCLE)]
            values = np.asarray(series.current, float) / _MiB
            lines.append(Line(series.name, np.asarray(series.times, float), values, color))
            peak_mib = float(values.max()) if values.size else 0.0
            text = f"peak {format_bytes(max(series.current, default=0))}"
            if series.allocator_peak is not None and series.allocator_peak > max(
                series.current, default=0
            ):
                text += f" (allocator peak {format_bytes(series.allocator_peak)})"
            marks.append(Mark(float(series.peak_time), peak_mib, text, color))
            if series.capacity and peak_mib > 0.5 * series.capacity / _MiB:
                capacity = series.capacity / _MiB
                lines.append(
                    Line("capacity", np.array(x_range), np.array([capacity] * 2), RED, dashed=True)
                )
        charts.append(
            chart_svg(
                lines,
                title=title,
                x_label="seconds since the cell started",
                y_label="MiB",
                label=f"{title}: {alt}",
                marks=marks,
                rug=steps,
                rug_label=f"training steps ({len(steps)})",
                x_range=x_range,
                y_floor=0.0,
                legend=True,
                width=600,
                height=190,
            )
        )
    return '<div style="display:flex;flex-direction:column;gap:2px">' + "".join(charts) + "</div>"
