"""A ``keras.utils.PyDataset`` (or ``Sequence``) whose batches pair inputs and labels of
different lengths (S12).

``fit`` reads the batches ``__getitem__`` returns and fails deep in the loss ("logits and
labels must have the same first dimension, got [8, 3] and [0]").  The dataset is the user's
own class: its batches are read again here, as Keras reads them (by index, in any order), at
most eight and for at most half a second, and the first whose parts differ in length is
shown with the line of ``__getitem__`` that returns it.
"""

from __future__ import annotations

import inspect
import re
import textwrap
import time
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, shape_of

_LENGTHS = r"same first dimension|Incompatible shapes|[Dd]ata cardinality|must have the same"


def py_dataset_batches(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: a batch of the user's PyDataset whose inputs and labels differ in length."""
    data = call.values.get("x", UNREAD)
    if data is UNREAD or not re.search(_LENGTHS, str(exc)):
        return None
    if not any(k.__name__ in ("PyDataset", "Sequence") for k in type(data).__mro__[1:]):
        return None
    try:
        count = min(len(data), 8)
    except Exception:
        return None
    start = time.perf_counter()
    for index in range(count):
        if time.perf_counter() - start > 0.5:
            break
        try:
            batch = data[index]
        except Exception:
            return None
        if not isinstance(batch, tuple) or len(batch) < 2:
            return None
        lengths = [(shape_of(part) or (None,))[0] if shape_of(part) else None for part in batch[:2]]
        if None in lengths or lengths[0] == lengths[1]:
            continue
        kind = type(data).__name__
        returned = _return_line(type(data))
        return Violation(
            "S12",
            call.text("x"),
            f"`{kind}.__getitem__({index})` returns inputs with {lengths[0]} rows and labels "
            f"with {lengths[1]}: each batch needs one label per example",
            "slice the inputs and the labels with the same bounds in `__getitem__` "
            "(`lo = idx * self.batch_size; hi = lo + self.batch_size`, then "
            "`self.x[lo:hi], self.y[lo:hi]`)",
            f"batch {index}: x {shape_of(batch[0])}, y {shape_of(batch[1])}"
            + (f"; `{returned}`" if returned else ""),
        )
    return None


def _return_line(cls: Any) -> str:
    """The ``return`` line of the class's own ``__getitem__``, as written."""
    try:
        source = textwrap.dedent(inspect.getsource(cls.__getitem__))
    except (OSError, TypeError):
        return ""
    lines = [line.strip() for line in source.splitlines() if line.strip().startswith("return")]
    return lines[-1] if len(lines) == 1 else ""
