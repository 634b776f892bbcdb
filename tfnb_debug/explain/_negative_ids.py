"""The integer arrays of the user's frames that hold the negative values an
``assert_non_negative`` inside traced code caught: there TensorFlow prints the batch it
checked, not where it came from (``train_step(xb, yb)`` over a dataset of ``labels``).

Only arrays whose names the cell's source reads are looked at, and only integer ones (class
ids, token ids); nothing runs.
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass
from typing import Any

from tfnb_debug.ground.files import is_user_file

__all__ = ["NegativeIds", "read_negative_ids"]


@dataclass(frozen=True)
class NegativeIds:
    """``name`` holds ``count`` negative values (``values``), first at ``rows``."""

    name: str
    count: int
    values: tuple[int, ...]
    rows: tuple[int, ...]
    size: int


def read_negative_ids(exc: BaseException, limit: int = 500) -> tuple[NegativeIds, ...]:
    """The integer NumPy arrays and tensors named in the user's code that hold negatives."""
    import numpy as np

    found: dict[str, NegativeIds] = {}
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            source = "".join(linecache.getlines(frame.f_code.co_filename))
            for space in (frame.f_locals, frame.f_globals):
                for key, value in list(space.items())[:limit]:
                    if key.startswith("_") or key in found:
                        continue
                    if not re.search(rf"\b{re.escape(key)}\b", source):
                        continue
                    array = _integers(value, np)
                    if array is None:
                        continue
                    negative = array < 0
                    if negative.any():
                        flat = np.flatnonzero(negative.reshape(len(array), -1).any(axis=1))
                        found[key] = NegativeIds(
                            key,
                            int(negative.sum()),
                            tuple(sorted({int(v) for v in array[negative]}))[:4],
                            tuple(int(r) for r in flat[:5]),
                            int(array.shape[0]),
                        )
        tb = tb.tb_next
    return tuple(found.values())


def _integers(value: Any, np: Any) -> Any:
    if type(value).__name__ == "EagerTensor":
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.dtype.kind == "i" and value.ndim >= 1:
        return value
    return None
