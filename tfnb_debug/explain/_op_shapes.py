"""Contracts of the shape of an op's operands: a matrix product's inner axes.

``keras.ops.matmul(x1, x2)``, ``tf.matmul(a, b)`` (``tf.linalg.matmul``) and their kin
multiply the last axis of the first operand with the second-to-last axis of the second
(``(..., n, k) @ (..., k, m)``).  When the two inner sizes differ but the operands would fit
with one of them transposed (attention scores ``q @ k`` with ``k`` of shape ``(..., m, k)``),
the fix is that transpose; ``transpose_a``/``transpose_b`` already given are read first, so
a transpose already in place is never advised again.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, fmt, shape_of


def matmul_inner(call: LiveCall, exc: BaseException) -> Violation | None:
    """The inner axes of a matrix product differ: name both operands and the transpose that
    makes them fit, when one does."""
    operands = [(n, v) for n, v in call.values.items() if v is not UNREAD][:2]
    if len(operands) < 2:
        return None
    (a_name, a), (b_name, b) = operands
    a_shape, b_shape = shape_of(a), shape_of(b)
    if a_shape is None or b_shape is None or len(a_shape) < 2 or len(b_shape) < 2:
        return None
    flags = (_flag(call, "transpose_a", "adjoint_a"), _flag(call, "transpose_b", "adjoint_b"))
    a_rows, a_inner = (a_shape[-1], a_shape[-2]) if flags[0] else (a_shape[-2], a_shape[-1])
    b_inner, b_cols = (b_shape[-1], b_shape[-2]) if flags[1] else (b_shape[-2], b_shape[-1])
    if None in (a_inner, b_inner) or a_inner == b_inner:
        return None
    a_text, b_text = call.text(a_name), call.text(b_name)
    a_axis = "second-to-last (transpose_a)" if flags[0] else "last"
    b_axis = "last (transpose_b)" if flags[1] else "second-to-last"
    problem = (
        f"a matrix product multiplies the {a_axis} axis of `{a_text}` {fmt(a_shape)} with the "
        f"{b_axis} axis of `{b_text}` {fmt(b_shape)}, and they differ ({a_inner} vs {b_inner})"
    )
    keras_op = call.api.startswith("keras")
    if b_cols == a_inner and not flags[1]:
        axes = _swap_last(len(b_shape))
        problem += f": `{b_text}` fits transposed"
        hint = (
            f"transpose `{b_text}`'s last two axes: `keras.ops.transpose({b_text}, {axes})` "
            f"(or `keras.ops.swapaxes({b_text}, -1, -2)`)"
            if keras_op
            else f"transpose `{b_text}`: `tf.matmul({a_text}, {b_text}, transpose_b=True)`"
        )
    elif a_rows == b_inner and not flags[0]:
        axes = _swap_last(len(a_shape))
        problem += f": `{a_text}` fits transposed"
        hint = (
            f"transpose `{a_text}`'s last two axes: `keras.ops.transpose({a_text}, {axes})`"
            if keras_op
            else f"transpose `{a_text}`: `tf.matmul({a_text}, {b_text}, transpose_a=True)`"
        )
    else:
        hint = (
            f"no transpose of either makes them fit: the {a_axis} axis of `{a_text}` and the "
            f"{b_axis} axis of `{b_text}` must be one size; change the one that is wrong where "
            "it is made"
        )
    return Violation("S07", a_text, problem, hint)


def _flag(call: LiveCall, *names: str) -> bool:
    return any(call.value(n) is True for n in names)


def _swap_last(rank: int) -> tuple[Any, ...]:
    return (*range(rank - 2), rank - 1, rank - 2)
