"""Figures through :class:`matplotlib.figure.Figure` (never pyplot), embedded as PNG data URIs."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def new_figure(width: float = 6.0, height: float = 3.0, dpi: int = 90) -> Figure:
    """A figure that pyplot does not know about, so it never leaks or re-displays."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=dpi, layout="constrained")


def figure_png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def figure_data_uri(fig: Figure) -> str:
    return png_data_uri(figure_png(fig))
