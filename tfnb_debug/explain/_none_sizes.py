"""A static size of None where Python needs a number (T02): ``x.shape[0]`` of a tensor traced
with an unknown batch, given to NumPy, ``range`` or a shape argument.  Read from the failing
user line (AutoGraph's generated line too) and, when the line uses a name, the assignment
above it that read the size (``batch = z_mean.shape[0]``)."""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext

_NONE_INT = re.compile(
    r"'NoneType' object cannot be interpreted as an integer|NoneType' and 'int'"
    r"|None values not supported"
)
_CONVERT = re.compile(r"Failed to convert elements of \((?:None|\d+)[^)]*\) to Tensor")
_SIZE = re.compile(r"\b(\w+)\.shape\[(-?\d+)\]")


def none_axis(ctx: ErrorContext) -> tuple[str, str] | None:
    """(what, hint) for the static size that is None, or None when the line shows none."""
    converted = _CONVERT.search(ctx.text)
    if converted is None and not _NONE_INT.search(ctx.text):
        return None
    traced = [f for f in ctx.frames if "__autograph_generated" in f.filename]
    user = ctx.user_code_line() or ("", 0, "", "")
    statement = " ".join([user[3]] + [f.source for f in traced])
    statement = re.sub(r"ag__\.ld\((\w+)\)", r"\1", statement)  # AutoGraph's reads of names
    found, via = _SIZE.search(statement), ""
    for word in re.findall(r"\b([A-Za-z_]\w*)\b", statement) if found is None else ():
        made = _SIZE.fullmatch(assigned_before(word, user[0], user[1]))
        if made is not None:  # `batch = z.shape[0]` above the line that needs the number
            found, via = made, f" (`{word}` on this line)"
            break
    if found is None:  # a None on the line, and a static size read on it (or for a name on it)
        return None
    name, axis = found.group(1), found.group(2)
    return (
        f"`{name}.shape[{axis}]`{via} is None while the function is traced (the static shape "
        "has None for an axis that varies, such as the batch), and Python needs a number there",
        f"use the size at run time, `tf.shape({name})[{axis}]` (keras.ops.shape({name}) in a "
        "layer)"
        + (
            f", with TensorFlow ops in place of NumPy (e.g. `tf.random.normal(tf.shape({name}))`)"
            if re.search(r"\bnp\.|random", statement)
            else ""
        ),
    )
