"""Hints for an op that failed on two shapes, read from the shapes alone.

:func:`batch_axis_hint`: two shapes that differ only on the first axis (something fixes
the batch size), or two flat operands of different sizes (a metric or loss flattened
values of different shapes: nothing says their one axis is the batch).
:func:`matmul_hint`: a matrix product whose inner sizes disagree.
"""

from __future__ import annotations

import linecache
import re

from tfnb_debug.explain._batch_literals import literal_batch
from tfnb_debug.explain._context import ErrorContext, parse_shape

__all__ = ["batch_axis_hint", "matmul_hint"]


def batch_axis_hint(ctx: ErrorContext, *shapes: str) -> str:
    """The hint when two shapes differ on the batch (first) axis only; "" otherwise."""
    if len(shapes) != 2:
        return ""
    a, b = parse_shape(shapes[0]), parse_shape(shapes[1])
    if a is not None and b is not None and (a == (*b, 1) or b == (*a, 1)) and len(a) + len(b) > 2:
        return (
            f"one operand has a trailing axis of 1 that the other lacks ({shapes[0]} vs "
            f"{shapes[1]}); for labels (or masks) against a model's output, the labels lack the "
            "channel axis the output has: add it where they are made (`y[..., None]`, "
            "`tf.expand_dims(y_true, -1)`), or drop it from the output (`tf.squeeze(y_pred, -1)`)"
        )
    if a is None or b is None or len(a) != len(b) or not a or None in (a[0], b[0]):
        return ""
    if a[0] == b[0] or any(x != y for x, y in zip(a[1:], b[1:], strict=True)):
        return ""
    if len(a) == 1:
        return _iou_hint(ctx, int(a[0] or 0), int(b[0] or 0)) or _flat_sizes_hint(
            int(a[0] or 0), int(b[0] or 0)
        )
    written = literal_batch(ctx, (int(a[0] or 0), int(b[0] or 0)))
    if written is not None:
        line, source, size = written
        return (
            f"the shapes differ only on the batch axis ({a[0]} vs {b[0]}): `{source}` (line "
            f"{line}) writes the batch size {size} as a constant, while the batches fit gives "
            "are another size (batch_size, or a smaller last batch): take the size from the "
            "data, `tf.shape(x)[0]` of the batch it goes with (or -1 in a reshape)"
        )
    return (
        f"the shapes differ only on the batch axis ({a[0]} vs {b[0]}): the two operands come "
        "from batches of different sizes; follow each one back to where its first axis is "
        "set, and make both take it from the same batch (`tf.shape(x)[0]`, not a constant)"
    )


def _flat_sizes_hint(a: int, b: int) -> str:
    """Two flat (rank 1) operands of different sizes: nothing says the one axis is the batch
    (metrics and losses flatten y_true and y_pred before comparing them)."""
    small, big = sorted((a, b))
    if small <= 0 or big % small:
        return (
            f"both operands are flat ({a} vs {b} values): they were flattened from tensors of "
            "different shapes; print the shapes of the two values given to this call"
        )
    k = big // small
    return (
        f"both operands are flat and one holds {k}x as many values ({small} vs {big}): the "
        f"larger came from a tensor with an extra axis of size {k}, e.g. class probabilities "
        f"(..., {k}) given where class ids are taken (tf.argmax(probs, axis=-1)), or ids where "
        "one-hot rows are taken; or the two values cover different numbers of examples"
    )


_IOU = re.compile(r"\b(MeanIoU|IoU)\(")


def _iou_hint(ctx: ErrorContext, a: int, b: int) -> str:
    """A MeanIoU/IoU metric (made in the cell of the failing line) whose flattened predictions
    hold k values per label: per-class probabilities where it takes class ids."""
    small, big = sorted((a, b))
    place = ctx.defined_at() or ctx.user_code_line()
    if small <= 0 or big % small or big == small or place is None:
        return ""
    # the metric is made where it is compiled or created, often lines above the failing one:
    # the cell that holds the failing line, read whole
    found = _IOU.search("".join(linecache.getlines(place[0])))
    if found is None:
        return ""
    k = big // small
    return (
        f"keras.metrics.{found.group(1)} compares class ids, and the predictions hold {k} values "
        f"per label (per-class probabilities): create it with "
        f"`{found.group(1)}(num_classes={k}, sparse_y_pred=False)` so it takes the argmax "
        "itself (or give it `tf.argmax(y_pred, axis=-1)`)"
    )


def matmul_hint(a: str, b: str) -> str:
    left, right = parse_shape(f"[{a}]"), parse_shape(f"[{b}]")
    if not left or not right or len(left) < 2 or len(right) < 2:
        return ""
    return (
        f"a matrix product needs the inner sizes to agree: [{a}] x [{b}] needs {left[-1]} == "
        f"{right[-2]}; transpose one operand (transpose_a=/transpose_b=) or fix the side "
        "whose size is wrong"
    )
