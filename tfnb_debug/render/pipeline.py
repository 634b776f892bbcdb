"""Figures for ``%tfpipeline``: image grids, the label bar chart, augmentation before/after.

Pure functions of NumPy arrays and plain values (no TensorFlow); figures are
:class:`matplotlib.figure.Figure` objects (never pyplot), embedded as PNG data URIs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfnb_debug.render.html import image_html
from tfnb_debug.render.plots import figure_data_uri, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "before_after_figure",
    "displayable",
    "figure_html",
    "image_grid_figure",
    "label_chart_figure",
    "label_name",
]


def label_name(value: Any, class_names: Sequence[str] | None) -> str:
    """A label as shown under an image: its class name when one is given for it."""
    try:
        index = int(value)
    except (TypeError, ValueError):
        return str(value)
    if class_names and 0 <= index < len(class_names) and float(value) == index:
        return str(class_names[index])
    return str(index) if float(value) == index else f"{float(value):.3g}"


def displayable(image: np.ndarray) -> tuple[np.ndarray, str | None]:
    """Scale one image for imshow: [0,1] as is, [0,255] / 255, [-1,1] shifted, else min-max.

    Returns the array (H, W) or (H, W, 3/4) and the colour map (gray for one channel).
    """
    img = np.asarray(image, dtype=np.float64)
    if img.ndim == 3 and img.shape[-1] == 1:
        img = img[..., 0]
    if img.ndim == 3 and img.shape[-1] not in (3, 4):
        img = img[..., 0]
    finite = img[np.isfinite(img)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if lo >= 0 and hi <= 1:
        out = img
    elif lo >= -1 and hi <= 1:
        out = (img + 1) / 2
    elif lo >= 0 and hi <= 255 and hi > 1:
        out = img / 255.0 if hi > 16 else img / max(hi, 1e-12)
    else:
        out = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
    out = np.clip(np.nan_to_num(out), 0, 1)
    return out, ("gray" if out.ndim == 2 else None)


def image_grid_figure(
    images: np.ndarray,
    labels: Sequence[Any] | None,
    *,
    class_names: Sequence[str] | None = None,
    columns: int = 8,
    title: str = "",
) -> Figure:
    n = len(images)
    cols = max(1, min(columns, n))
    rows = max(1, math.ceil(n / cols))
    fig = new_figure(width=1.3 * cols, height=1.45 * rows + (0.3 if title else 0))
    if title:
        fig.suptitle(title, fontsize=9)
    for i in range(n):
        ax = fig.add_subplot(rows, cols, i + 1)
        img, cmap = displayable(images[i])
        ax.imshow(img, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
        if labels is not None and i < len(labels):
            ax.set_title(label_name(labels[i], class_names), fontsize=8)
    return fig


def label_chart_figure(labels: np.ndarray, *, class_names: Sequence[str] | None = None) -> Figure:
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    fig = new_figure(width=max(3.0, min(10.0, 0.45 * len(values) + 1.5)), height=2.4)
    ax = fig.add_subplot(1, 1, 1)
    names = [label_name(v, class_names) for v in values]
    ax.bar(range(len(values)), counts, color="#4c78a8")
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(names, rotation=45 if len(values) > 8 else 0, fontsize=8)
    ax.set_ylabel("examples", fontsize=8)
    ax.set_title(f"labels in the sample ({int(counts.sum())} examples)", fontsize=9)
    return fig


def before_after_figure(before: np.ndarray, after: np.ndarray, *, title: str = "") -> Figure:
    n = len(before)
    fig = new_figure(width=1.3 * n + 0.8, height=3.0)
    if title:
        fig.suptitle(title, fontsize=9)
    for row, (name, images) in enumerate((("before", before), ("after", after))):
        for i in range(n):
            ax = fig.add_subplot(2, n, row * n + i + 1)
            img, cmap = displayable(images[i])
            ax.imshow(img, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if i == 0:
                ax.set_ylabel(name, fontsize=8)
    return fig


def figure_html(fig: Figure, *, alt: str) -> str:
    return image_html(figure_data_uri(fig), alt=alt)
