"""What a 2-D array of 0/1 values shows about the labels it encodes: rows with more than one
1 (multi-hot, several labels per example) and columns that hold no 1 (an id that never
occurs: column 0 of a one-hot table made from ids that start at 1)."""

from __future__ import annotations

from typing import Any


def binary_columns(value: Any) -> tuple[int, tuple[int, ...]]:
    """(the rows with more than one 1, the first columns with no 1); (0, ()) when unread."""
    import numpy as np

    try:
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        multi = int(np.count_nonzero(array.sum(axis=1) > 1))
        empty = tuple(int(i) for i in np.flatnonzero(array.max(axis=0) == 0)[:8])
    except Exception:
        return 0, ()
    return multi, empty
