"""What the values of a numeric array are: their range, and the few distinct values of a
label array (read by :mod:`tfnb_debug.explain._call`)."""

from __future__ import annotations

from typing import Any

_MAX_VALUES = 10_000_000  # arrays up to this size are scanned for their range


def array_range(
    value: Any, dims: tuple[int | None, ...]
) -> tuple[float | None, float | None, bool]:
    """(lowest, highest finite value, every finite value whole) of a numeric array."""
    import numpy as np

    if any(d is None for d in dims):
        return None, None, False
    size = 1
    for d in dims:
        size *= int(d or 0)
    if size == 0 or size > _MAX_VALUES:
        return None, None, False
    try:
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    except Exception:
        return None, None, False
    if array.dtype.kind not in "biuf":
        return None, None, False
    finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
    if finite.size == 0:
        return None, None, False
    whole = array.dtype.kind != "f" or bool(np.all(np.mod(finite, 1) == 0))
    return float(finite.min()), float(finite.max()), whole


def few_values(value: Any) -> tuple[float, ...]:
    """The distinct values of an array of at most 200,000 when there are at most 8."""
    import numpy as np

    try:
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        if array.size > 200_000:
            return ()
        distinct = np.unique(array)
    except Exception:
        return ()
    return tuple(float(v) for v in distinct) if distinct.size <= 8 else ()
