"""The memory plot: one panel per kind of memory, peak annotated, training steps as ticks.

A pure function of a :class:`~tfnb_debug.memory.MemoryReport` (duck-typed: it
reads ``series`` and ``step_times``); a matplotlib ``Figure``, never pyplot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfnb_debug.render.html import image_html
from tfnb_debug.render.plots import figure_data_uri, new_figure
from tfnb_debug.values import format_bytes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["memory_plot_html", "plot_memory"]

_MiB = 1024**2
_PANELS = (("host", "host memory"), ("device", "TensorFlow allocators"))


def plot_memory(report: Any, *, width: float = 7.0, panel_height: float = 2.4) -> Figure:
    """Memory (MiB) over seconds; the peak of each series marked; a tick per training step."""
    panels = [
        (kind, title) for kind, title in _PANELS if any(s.kind == kind for s in report.series)
    ]
    fig = new_figure(width, panel_height * max(1, len(panels)))
    if not panels:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "no memory readings", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (kind, title) in zip(axes, panels, strict=True):
        for series in (s for s in report.series if s.kind == kind):
            _draw_series(ax, series)
        _draw_steps(ax, report.step_times)
        ax.set_title(title, fontsize=9, loc="left")
        ax.set_ylabel("MiB", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    axes[-1].set_xlabel("seconds since the cell started", fontsize=8)
    return fig


def memory_plot_html(report: Any) -> str:
    """The plot as a self-contained ``<img>`` (PNG data URI)."""
    fig = plot_memory(report)
    alt = "memory over time: " + "; ".join(
        f"{s.name} peak {format_bytes(s.peak)}" for s in report.series
    )
    return image_html(figure_data_uri(fig), alt=alt)


def _draw_series(ax: Any, series: Any) -> None:
    values = [v / _MiB for v in series.current]
    (line,) = ax.plot(series.times, values, lw=1.2, label=series.name)
    peak_mib = max(values)
    peak_t = series.peak_time
    ax.plot([peak_t], [peak_mib], "o", ms=4, color=line.get_color())
    text = f"peak {format_bytes(max(series.current))}"
    if series.allocator_peak is not None and series.allocator_peak > max(series.current):
        text += f" (allocator peak {format_bytes(series.allocator_peak)})"
    right = bool(series.times) and peak_t > 0.7 * max(series.times)  # keep the label inside
    ax.annotate(
        text,
        xy=(peak_t, peak_mib),
        xytext=(-4 if right else 4, 4),
        textcoords="offset points",
        ha="right" if right else "left",
        fontsize=7,
        color=line.get_color(),
    )
    if series.capacity and peak_mib > 0.5 * series.capacity / _MiB:
        ax.axhline(series.capacity / _MiB, ls="--", lw=0.8, color="#b91c1c", label="capacity")


def _draw_steps(ax: Any, step_times: Any) -> None:
    if not step_times:
        return
    ax.vlines(
        list(step_times),
        0,
        0.05,
        transform=ax.get_xaxis_transform(),
        colors="#6b7280",
        lw=0.6,
        label=f"training steps ({len(step_times)})",
    )
