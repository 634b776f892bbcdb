"""Plots for gradient reports: histograms per layer, a layers x steps heatmap, the loss.

Pure functions of NumPy arrays returning HTML, drawn without matplotlib: the
histogram panels of a few layers and the loss are inline SVG
(:mod:`tfnb_debug.render.svg`), the heatmap and the histograms of many layers
colour maps (:mod:`tfnb_debug.render.pixelmap`).  Each costs about a
millisecond; as matplotlib figures they cost 0.1-0.6 s each, paid again after
every training cell whose report is shown.  No TensorFlow here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tfnb_debug.ground.reports import Section
from tfnb_debug.records.gradients import HIST_BIN_NOTE
from tfnb_debug.render.pixelmap import pixel_maps_html, short_label
from tfnb_debug.render.svg import histogram_panels_svg, line_svg

__all__ = [
    "FigureSection",
    "gradient_sections",
    "heatmap_html",
    "histogram_maps_html",
]


class FigureSection(Section):
    """A :class:`~tfnb_debug.ground.reports.Section` whose HTML is rendered the first time it is
    read, then kept (a report that is only stored or read as text renders nothing)."""

    def __init__(self, title: str, *, render: Callable[[], str], text: str = "") -> None:
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_drawn", None)
        object.__setattr__(self, "_render", render)

    _drawn: str | None
    _render: Callable[[], str] | None

    @property
    def html(self) -> str:
        if self._drawn is None:
            render = self._render
            object.__setattr__(self, "_drawn", render() if render is not None else "")
            object.__setattr__(self, "_render", None)  # the arrays are no longer needed
        return str(self._drawn)

    @property
    def drawn(self) -> bool:
        """Whether the section has been rendered yet."""
        return self._drawn is not None


#: layers drawn as one histogram panel each at most; more go into one colour map (forty
#: panels are too many to compare)
PANELS_AT_MOST = 8


def histogram_shares(counts: np.ndarray) -> np.ndarray:
    """Each layer's (row's) counts as shares of its total; NaN where nothing was counted."""
    counts = np.asarray(counts, float)
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), np.nan)


def histogram_maps_html(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
) -> str:
    """Layers (rows, forward order) x |g| bins on a log10 axis (``edges``, in log10: bins of a
    factor 4 for gradients), coloured by the share of the layer's counted entries in each
    bin: the first recorded step beside the last, one scale."""
    shown = [("last recorded step", histogram_shares(last))]
    if first is not None:
        shown.insert(0, ("first recorded step", histogram_shares(first)))
    finite = [s[np.isfinite(s)] for _, s in shown]
    top = max((float(f.max()) for f in finite if f.size), default=1.0)
    lo, hi = float(edges[0]), float(edges[-1])
    step = max(1, math.ceil((hi - lo) / 8))
    ticks = [  # inside the edges: the maps stand side by side
        ((value - lo) / (hi - lo), f"{value:g}")
        for value in range(math.ceil(lo), math.floor(hi) + 1, step)
        if lo < value < hi
    ]
    return pixel_maps_html(
        layers,
        shown,
        lo=0.0,
        hi=max(top, 1e-9),
        ticks=ticks,
        x_label="log10 |g| (bins of a factor 4)",
        legend="share of the layer's entries per bin (black: none counted)",
        alt="gradient histograms",
    )


def heatmap_html(layers: Sequence[str], steps: np.ndarray, log_norms: np.ndarray) -> str:
    """Layers (rows, forward order) x recorded steps (columns) of log10 gradient norm.

    Non-finite cells are drawn black.
    """
    log_norms = np.asarray(log_norms, float)
    finite = log_norms[np.isfinite(log_norms)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    cols = len(steps)
    at = np.unique(np.linspace(0, cols - 1, min(cols, 8)).astype(int))
    ticks = [((i + 0.5) / cols, str(int(steps[i]))) for i in at]
    return pixel_maps_html(
        layers,
        [("", log_norms)],
        lo=lo,
        hi=hi,
        ticks=ticks,
        x_label="optimizer step",
        legend="log10 grad norm (black: NaN/Inf)",
        alt="gradient norm heatmap",
    )


def gradient_sections(
    *,
    layers: Sequence[str],
    steps: np.ndarray,
    layer_norms: np.ndarray,
    hist_last: np.ndarray,
    hist_first: np.ndarray | None,
    edges: Sequence[float],
    loss: np.ndarray,
    loss_known: np.ndarray,
    losses: Sequence[tuple[str, np.ndarray, np.ndarray]] = (),
) -> tuple[Section, ...]:
    """The report's plot sections, each with a short text form for ``text/plain``.

    ``losses``: (label, steps, values) of each group's own loss, when several
    optimizers stepped on losses of their own: one plot each, in place of the one loss.

    The figures are rendered when a section's ``html`` is first read (the report
    is shown, or its HTML asked for), never here: a report that is only
    stored (``-q``) or read as text draws nothing.
    """

    sections: list[Section] = []
    if layers:
        layers = list(layers)

        def histograms() -> str:
            if len(layers) > PANELS_AT_MOST:
                return histogram_maps_html(layers, hist_last, edges, first=hist_first)
            return histogram_panels_svg(layers, hist_last, edges, first=hist_first)

        first_shown = (
            ""
            if hist_first is None
            else "; beside it the first"
            if len(layers) > PANELS_AT_MOST
            else "; grey outline: the first"
        )
        sections.append(
            FigureSection(
                f"Gradient histograms (log10 |g| per layer, {HIST_BIN_NOTE}; "
                f"last recorded step{first_shown})",
                render=histograms,
            )
        )
    if layers and len(steps) > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.where(layer_norms > 0, np.log10(layer_norms), -12.0)
        logs = np.where(np.isfinite(layer_norms), logs, np.nan)

        def heatmap() -> str:
            return heatmap_html(layers, steps, logs.T)

        sections.append(
            FigureSection(
                "log10 gradient norm: layers x steps",
                render=heatmap,
                text=_heatmap_text(layers, layer_norms),
            )
        )
    known = np.asarray(loss_known, dtype=bool)
    series = list(losses) or [("loss", steps[known], loss[known])]
    for name, known_steps, values in series:
        if len(values) > 1:
            sections.append(_loss_section(name, known_steps, values, labelled=bool(losses)))
    return tuple(sections)


def _loss_section(name: str, steps: np.ndarray, values: np.ndarray, *, labelled: bool) -> Section:
    def loss_plot() -> str:
        return line_svg(
            steps,
            values,
            x_label="optimizer step",
            y_label=name,
            label=f"{name} over steps",
        )

    low = np.nanmin(values) if np.isfinite(values).any() else float("nan")
    return FigureSection(
        f"{name} over steps" if labelled else "Loss over steps",
        render=loss_plot,
        text=f"{name}: first {values[0]:.6g}, last {values[-1]:.6g}, min {low:.6g}",
    )


def _heatmap_text(layers: Sequence[str], norms: np.ndarray) -> str:
    lines = []
    for j, layer in enumerate(layers):
        col = norms[:, j]
        finite = col[np.isfinite(col)]
        if finite.size:
            lines.append(
                f"{short_label(layer)}: grad norm first {col[0]:.3g}, last {col[-1]:.3g}, "
                f"range [{finite.min():.3g}, {finite.max():.3g}]"
            )
        else:
            lines.append(f"{short_label(layer)}: no finite gradient norm")
    return "\n".join(lines)
