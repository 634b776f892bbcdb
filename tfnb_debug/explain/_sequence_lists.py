"""Python lists given to ``fit``/``evaluate``/``predict``: of sequences (S13), of numbers (S12).

Keras takes arrays, tensors, DataFrames, datasets and generators; a plain Python list of
lists (token ids from a tokenizer, one list per text) is refused as "Unrecognized data
type".  When the lists have different lengths they cannot become one array: they need
padding to one length (``keras.utils.pad_sequences``), the same fix as ``batch()`` of
variable-length elements (S13).  When they all have one length, ``np.array`` stacks them.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation

_SAMPLE = 2000  # lists read at most (a corpus of reviews can be long)


def _replaced(text: str, converted: str) -> str:
    """The conversion as code: assigned back to a name (``x = np.asarray(x)``), or in place of
    a literal or an expression the call was given (``[10.0]`` is no name to assign to)."""
    if text.isidentifier():
        return f"`{text} = {converted}`"
    return f"`{converted}` in place of `{text}`"


def sequence_lists(call: LiveCall) -> Violation | None:
    """S13: an argument is a list of sequences, which Keras does not convert."""
    for name in ("x", "y", "validation_data"):
        value = call.value(name)
        lengths = _lengths(value)
        if lengths is None and _numbers(value):
            text = call.text(name) or name
            return Violation(
                "S12",
                text,
                f"`{text}` is a Python list of {len(value)} numbers; Keras takes arrays "
                "(or tensors, DataFrames, datasets), not lists, for x and y",
                f"convert it once: {_replaced(text, f'np.asarray({text})')} (one value per "
                f"sample; `np.asarray({text}, 'float32')` for float targets)",
            )
        if lengths is None:
            continue
        text = call.text(name) or name
        distinct = sorted(set(lengths))
        if len(distinct) > 1:
            shown = ", ".join(str(n) for n in lengths[:5]) + (", ..." if len(lengths) > 5 else "")
            return Violation(
                "S13",
                text,
                f"`{text}` is a Python list of {len(lengths)} sequences of different lengths "
                f"({distinct[0]} to {distinct[-1]}), which Keras cannot stack into one array",
                "pad them to one length first: "
                + _replaced(text, f"keras.utils.pad_sequences({text}, padding='post')")
                + " (0 as padding; `maxlen=` to cut long ones; with an Embedding, "
                "`mask_zero=True` keeps the padding out)",
                f"lengths {shown}",
            )
        return Violation(
            "S13",
            text,
            f"`{text}` is a Python list of {len(lengths)} sequences, which Keras does not "
            "convert: it takes arrays",
            f"stack them into one array: {_replaced(text, f'np.array({text})')} (they all have "
            f"length {distinct[0]})",
            f"{len(lengths)} lists of length {distinct[0]}",
        )
    return None


def _lengths(value: Any) -> list[int] | None:
    """The lengths of a list whose items are all lists or tuples (not arrays), else None."""
    if value is UNREAD or not isinstance(value, list) or not value:
        return None
    items = value[:_SAMPLE]
    if not all(isinstance(item, list | tuple) for item in items):
        return None
    return [len(item) for item in items]


def _numbers(value: Any) -> bool:
    """A non-empty Python list of plain numbers (labels collected in a loop)."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value[:_SAMPLE])
    )
