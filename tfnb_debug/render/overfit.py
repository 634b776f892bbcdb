"""The training-loss curve of ``%tfoverfit``: drawn only when the report is shown as HTML.

Pure functions of the logged losses; no TensorFlow.  Shown as inline SVG
(:func:`tfnb_debug.render.svg.line_svg`, a string built in a millisecond);
:func:`loss_figure` builds the same curve as a :class:`matplotlib.figure.Figure`
for an explicit export (``OverfitReport.figure()``), never on display.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.ground.reports import Section
from tfnb_debug.render.plots import new_figure
from tfnb_debug.render.svg import BLUE, line_svg

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["loss_figure", "loss_section", "loss_svg", "loss_text"]


def loss_figure(losses: Sequence[float], key: str = "loss") -> Figure:
    """The logged training loss per step, on a log axis when every finite value is positive."""
    fig = new_figure(5.0, 2.6)
    ax = fig.add_subplot(1, 1, 1)
    finite = [v if math.isfinite(v) else float("nan") for v in losses]
    ax.plot(range(1, len(finite) + 1), finite, color="#1f77b4")
    if _log_scale(losses):
        ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel(f"training {key}" if key != "loss" else "training loss")
    ax.set_title("training loss on the examples")
    return fig


def _log_scale(losses: Sequence[float]) -> bool:
    finite = [v for v in losses if math.isfinite(v)]
    return bool(finite) and all(v > 0 for v in finite)


def loss_svg(losses: Sequence[float], key: str = "loss") -> str:
    """The logged training loss per step as inline SVG, on a log axis when every finite
    value is positive; non-finite steps are red crosses along the top."""
    return line_svg(
        np.arange(1, len(losses) + 1),
        np.asarray(losses, float),
        x_label="step",
        y_label=f"training {key}" if key != "loss" else "training loss",
        label=f"training {key} per step on the examples",
        title="training loss on the examples",
        log_y=_log_scale(losses),
        color=BLUE,
    )


def loss_text(losses: Sequence[float]) -> str:
    return f"loss: {losses[0]:.4g} -> {losses[-1]:.4g} over {len(losses)} steps"


def loss_section(losses: Sequence[float], key: str = "loss", *, draw: bool = True) -> Section:
    """The ``loss`` section: the curve as SVG (when ``draw``) and its one-line text form."""
    text = loss_text(losses)
    html = loss_svg(losses, key) if draw else ""
    return Section("loss", html, text)
