"""How plain values (numbers, shapes, None) are written in tables, text and HTML alike.

Ground level: TensorFlow-free and importing nothing of tfnb_debug, so rules and
renderers share one way of writing a value.
"""

from __future__ import annotations

import math
from typing import Any


def format_value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, tuple) and all(v is None or isinstance(v, int) for v in value):
        return format_shape(value)
    return str(value)


def format_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e5 or magnitude < 1e-3:
        return f"{value:.3e}"
    return f"{value:.4g}"


def format_shape(shape: tuple[int | None, ...]) -> str:
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    if len(shape) == 1:
        inner += ","
    return f"({inner})"


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")
