"""Plots for gradient reports: histogram small multiples, a layers x steps heatmap, the loss.

Pure functions of NumPy arrays returning :class:`matplotlib.figure.Figure`
(never pyplot); :func:`gradient_sections` embeds them as PNG data URIs.
No TensorFlow here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfnb_debug.render.html import image_html
from tfnb_debug.render.plots import figure_data_uri, new_figure
from tfnb_debug.reports import Section

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "FigureSection",
    "gradient_sections",
    "heatmap_figure",
    "histogram_figure",
    "histogram_strip_figure",
    "loss_figure",
]


class FigureSection(Section):
    """A :class:`~tfnb_debug.reports.Section` whose figure is drawn the first time its
    ``html`` is read, then kept."""

    def __init__(
        self,
        title: str,
        html: str | None = None,
        text: str = "",
        *,
        draw: Callable[[], Figure] | None = None,
        alt: str = "",
    ) -> None:
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_drawn", html)
        object.__setattr__(self, "_draw", draw)
        object.__setattr__(self, "_alt", alt)

    _drawn: str | None
    _draw: Callable[[], Figure] | None
    _alt: str

    @property
    def html(self) -> str:
        if self._drawn is None:
            draw = self._draw
            drawn = image_html(figure_data_uri(draw()), alt=self._alt) if draw else ""
            object.__setattr__(self, "_drawn", drawn)
            object.__setattr__(self, "_draw", None)  # the arrays are no longer needed
        return str(self._drawn)

    @property
    def drawn(self) -> bool:
        """Whether the figure has been drawn yet."""
        return self._drawn is not None


def histogram_figure(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
    columns: int = 4,
) -> Figure:
    """One small panel per layer: the distribution of log10|g| (last step; first step outlined).

    With more than :data:`PANELS_AT_MOST` layers, one image instead (see
    :func:`histogram_strip_figure`): forty panels took three seconds to draw.
    """
    if len(layers) > PANELS_AT_MOST:
        return histogram_strip_figure(layers, last, edges, first=first)
    n = max(len(layers), 1)
    cols = min(columns, n)
    rows = math.ceil(n / cols)
    fig = new_figure(width=2.4 * cols, height=1.8 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    edges_arr = np.asarray(edges)
    centers = (edges_arr[:-1] + edges_arr[1:]) / 2
    for k, ax in enumerate(axes.flat):
        if k >= len(layers):
            ax.set_visible(False)
            continue
        # one filled outline per panel, the same picture as touching bars at a fraction of
        # the drawing time (a bar is an artist of its own: 32 per layer)
        ax.stairs(last[k], edges_arr, fill=True, color="#2563eb", alpha=0.8, label="last step")
        if first is not None:
            ax.step(centers, first[k], where="mid", color="#9ca3af", lw=1, label="first step")
        ax.set_title(_short(layers[k]), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("log10 |g|", fontsize=7)
    return fig


#: layers drawn as one histogram panel each at most; more go into one image
PANELS_AT_MOST = 8


def histogram_strip_figure(
    layers: Sequence[str],
    last: np.ndarray,
    edges: Sequence[float],
    *,
    first: np.ndarray | None = None,
) -> Figure:
    """Layers (rows, forward order) x log10|g| bins, coloured by the share of the layer's
    counted entries in each bin: the last recorded step, and beside it the first."""
    shown = [("last recorded step", np.asarray(last, float))]
    if first is not None:
        shown.insert(0, ("first recorded step", np.asarray(first, float)))
    fig = new_figure(width=3.6 * len(shown) + 1.6, height=max(1.8, 0.2 * len(layers) + 1.1))
    axes = fig.subplots(1, len(shown), squeeze=False, sharey=True)[0]
    lo, hi = float(edges[0]), float(edges[-1])
    shares = []
    for _, counts in shown:
        totals = counts.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            shares.append(np.where(totals > 0, counts / totals, np.nan))
    finite = [s[np.isfinite(s)] for s in shares]
    top = max((float(f.max()) for f in finite if f.size), default=1.0)  # one scale for both
    image = None
    for k, ((title, _), share) in enumerate(zip(shown, shares, strict=True)):
        ax = axes[k]
        image = ax.imshow(
            np.ma.masked_invalid(share),
            aspect="auto",
            interpolation="nearest",
            cmap=_colormap(),
            vmin=0.0,
            vmax=max(top, 1e-9),
            extent=(lo, hi, len(layers) - 0.5, -0.5),
        )
        ax.set_title(title, fontsize=8)
        ax.set_xlabel("log10 |g|", fontsize=7)
        ax.tick_params(labelsize=7)
        if k == 0:
            ax.set_yticks(range(len(layers)), [_short(n) for n in layers], fontsize=7)
    if image is not None:
        colorbar = fig.colorbar(image, ax=list(axes), fraction=0.04, aspect=40)
        colorbar.set_label("share of entries (black: none counted)", fontsize=7)
        colorbar.ax.tick_params(labelsize=7)
    return fig


def heatmap_figure(layers: Sequence[str], steps: np.ndarray, log_norms: np.ndarray) -> Figure:
    """Layers (rows, forward order) x recorded steps (columns) of log10 gradient norm.

    Non-finite cells are drawn black.
    """
    fig = new_figure(width=7.0, height=max(1.6, 0.28 * len(layers) + 1.0))
    ax = fig.add_subplot()
    data = np.ma.masked_invalid(log_norms)
    cmap = _colormap()
    image = ax.imshow(data, aspect="auto", interpolation="nearest", cmap=cmap)
    ax.set_yticks(range(len(layers)), [_short(n) for n in layers], fontsize=7)
    ticks = np.unique(np.linspace(0, len(steps) - 1, min(len(steps), 8)).astype(int))
    ax.set_xticks(ticks, [str(int(steps[t])) for t in ticks], fontsize=7)
    ax.set_xlabel("optimizer step", fontsize=8)
    colorbar = fig.colorbar(image, ax=ax)
    colorbar.set_label("log10 grad norm", fontsize=8)
    colorbar.ax.tick_params(labelsize=7)
    return fig


def loss_figure(steps: np.ndarray, loss: np.ndarray) -> Figure:
    fig = new_figure(width=5.0, height=2.2)
    ax = fig.add_subplot()
    finite = np.isfinite(loss)
    ax.plot(
        steps[finite], loss[finite], color="#111827", lw=1.2, marker="." if len(loss) < 40 else None
    )
    bad = ~finite
    if bad.any():
        top = float(np.nanmax(loss[finite])) if finite.any() else 1.0
        ax.scatter(
            steps[bad],
            np.full(int(bad.sum()), top),
            color="#b91c1c",
            marker="x",
            label="non-finite",
        )
        ax.legend(fontsize=7)
    ax.set_xlabel("optimizer step", fontsize=8)
    ax.set_ylabel("loss", fontsize=8)
    ax.tick_params(labelsize=7)
    return fig


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
) -> tuple[Section, ...]:
    """The report's plot sections, each with a short text form for ``text/plain``.

    The figures are drawn when a section's ``html`` is first read (the report
    is shown, or its HTML asked for), never here: a report that is only
    stored (``-q``) or read as text draws nothing.
    """

    sections: list[Section] = []
    if layers:
        layers = list(layers)

        def histograms() -> Figure:
            return histogram_figure(layers, hist_last, edges, first=hist_first)

        sections.append(
            FigureSection(
                "Gradient histograms (log10 |g| per layer, last recorded step)",
                draw=histograms,
                alt="gradient histograms",
            )
        )
    if layers and len(steps) > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.where(layer_norms > 0, np.log10(layer_norms), -12.0)
        logs = np.where(np.isfinite(layer_norms), logs, np.nan)

        def heatmap() -> Figure:
            return heatmap_figure(layers, steps, logs.T)

        sections.append(
            FigureSection(
                "log10 gradient norm: layers x steps",
                draw=heatmap,
                alt="gradient norm heatmap",
                text=_heatmap_text(layers, layer_norms),
            )
        )
    known = np.asarray(loss_known, dtype=bool)
    if known.sum() > 1:
        values = loss[known]
        known_steps = steps[known]

        def loss_plot() -> Figure:
            return loss_figure(known_steps, values)

        sections.append(
            FigureSection(
                "Loss over steps",
                draw=loss_plot,
                alt="loss over steps",
                text=f"loss: first {values[0]:.6g}, last {values[-1]:.6g}, "
                f"min {np.nanmin(values) if np.isfinite(values).any() else float('nan'):.6g}",
            )
        )
    return tuple(sections)


def _heatmap_text(layers: Sequence[str], norms: np.ndarray) -> str:
    lines = []
    for j, layer in enumerate(layers):
        col = norms[:, j]
        finite = col[np.isfinite(col)]
        if finite.size:
            lines.append(
                f"{_short(layer)}: grad norm first {col[0]:.3g}, last {col[-1]:.3g}, "
                f"range [{finite.min():.3g}, {finite.max():.3g}]"
            )
        else:
            lines.append(f"{_short(layer)}: no finite gradient norm")
    return "\n".join(lines)


def _short(name: str, limit: int = 28) -> str:
    return name if len(name) <= limit else "…" + name[-(limit - 1) :]


def _colormap() -> Any:
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad="black")
