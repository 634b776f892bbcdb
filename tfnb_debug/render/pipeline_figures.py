"""``%tfpipeline``'s pictures as :class:`matplotlib.figure.Figure` objects, for an explicit export.

The report itself never draws these (it shows HTML grids and SVG, see
:mod:`tfnb_debug.render.pipeline`); they are for a user who wants a figure to
save or adjust.  Figures pyplot never sees, without constrained layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfnb_debug.render.html import image_html
from tfnb_debug.render.pipeline import label_name, mosaic
from tfnb_debug.render.plots import figure_data_uri

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "before_after_figure",
    "figure_html",
    "image_grid_figure",
    "label_chart_figure",
    "new_figure",
]


def new_figure(width: float, height: float, dpi: int = 80) -> Figure:
    """A figure pyplot never sees, without constrained layout (it dominates drawing time here)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=dpi)


def image_grid_figure(
    images: np.ndarray,
    labels: Sequence[Any] | None,
    *,
    class_names: Sequence[str] | None = None,
    columns: int = 8,
    title: str = "",
) -> Figure:
    """One picture of the images in a grid, each with its label (class name) above it.

    Drawn as a single mosaic with one ``imshow`` (many subplots are slow to lay out).
    """
    n = len(images)
    cols = max(1, min(columns, n))
    rows = max(1, math.ceil(n / cols))
    height = images[0].shape[0] if n else 8
    header = max(3, height // 3) if labels is not None else 0
    canvas = mosaic(list(images), cols, pad=max(1, height // 8), header=header)
    fig = new_figure(width=1.1 * cols + 0.2, height=1.45 * rows + (0.3 if title else 0.1))
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.9 if title else 0.98))
    ax.imshow(canvas, interpolation="nearest")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=9)
    if labels is not None:
        cell_h = canvas.shape[0] / rows
        cell_w = canvas.shape[1] / cols
        for i in range(min(n, len(labels))):
            r, c = divmod(i, cols)
            ax.text(
                (c + 0.5) * cell_w,
                r * cell_h + header / 2,
                label_name(labels[i], class_names),
                ha="center",
                va="center",
                fontsize=7,
            )
    return fig


def label_chart_figure(labels: np.ndarray, *, class_names: Sequence[str] | None = None) -> Figure:
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    fig = new_figure(width=max(3.0, min(10.0, 0.45 * len(values) + 1.5)), height=2.4)
    ax = fig.add_axes((0.12, 0.22, 0.85, 0.66))
    names = [label_name(v, class_names) for v in values]
    ax.bar(range(len(values)), counts, color="#4c78a8")
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(names, rotation=45 if len(values) > 8 else 0, fontsize=8)
    ax.set_ylabel("examples", fontsize=8)
    ax.set_title(f"labels in the sample ({int(counts.sum())} examples)", fontsize=9)
    return fig


def before_after_figure(before: np.ndarray, after: np.ndarray, *, title: str = "") -> Figure:
    """Two rows: the examples entering a stage (top) and what it made of them (bottom)."""
    n = len(before)
    canvas = mosaic([*before, *after], n, pad=max(1, before[0].shape[0] // 8) if n else 1)
    fig = new_figure(width=1.1 * n + 0.6, height=2.6)
    ax = fig.add_axes((0.08, 0.02, 0.9, 0.86 if title else 0.96))
    ax.imshow(canvas, interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([canvas.shape[0] * 0.25, canvas.shape[0] * 0.75])
    ax.set_yticklabels(["before", "after"], fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def figure_html(fig: Figure, *, alt: str) -> str:
    return image_html(figure_data_uri(fig), alt=alt)
