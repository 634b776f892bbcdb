"""The training-loss curve of ``%tfoverfit``: drawn only when the report is shown as HTML.

Pure functions of the logged losses; no TensorFlow.  The figure is a
:class:`matplotlib.figure.Figure` pyplot never sees, embedded as a PNG data URI.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfnb_debug.render.html import image_html
from tfnb_debug.render.plots import figure_data_uri, new_figure
from tfnb_debug.reports import Section

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["loss_figure", "loss_section", "loss_text"]


def loss_figure(losses: Sequence[float], key: str = "loss") -> Figure:
    """The logged training loss per step, on a log axis when every finite value is positive."""
    fig = new_figure(5.0, 2.6)
    ax = fig.add_subplot(1, 1, 1)
    finite = [v if math.isfinite(v) else float("nan") for v in losses]
    ax.plot(range(1, len(finite) + 1), finite, color="#1f77b4")
    if all(v > 0 for v in finite if math.isfinite(v)) and any(math.isfinite(v) for v in finite):
        ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel(f"training {key}" if key != "loss" else "training loss")
    ax.set_title("training loss on the examples")
    return fig


def loss_text(losses: Sequence[float]) -> str:
    return f"loss: {losses[0]:.4g} -> {losses[-1]:.4g} over {len(losses)} steps"


def loss_section(losses: Sequence[float], key: str = "loss", *, draw: bool = True) -> Section:
    """The ``loss`` section: the curve as a PNG (when ``draw``) and its one-line text form."""
    text = loss_text(losses)
    html = image_html(figure_data_uri(loss_figure(losses, key)), alt=text) if draw else ""
    return Section("loss", html, text)
