"""Re-export of :mod:`tfnb_debug.ground.values` (value formatting lives at ground level, so rules can use it)."""

from __future__ import annotations

from tfnb_debug.ground.values import format_bytes, format_float, format_shape, format_value

__all__ = ["format_bytes", "format_float", "format_shape", "format_value"]
