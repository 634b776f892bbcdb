"""Contracts of the pieces of a custom training loop: ``GradientTape.batch_jacobian`` given a
weight (it pairs the rows of the target and the source: both need the batch axis), and a
gradient-accumulation buffer list built from other variables than the gradients are for
(``model.weights`` holds the non-trainable ones too, so zip pairs a buffer with another
variable's gradient).  The arguments and the lines that made them are read; nothing runs."""

from __future__ import annotations

import linecache
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._assignments import assigned_from
from tfnb_debug.explain._violation import Violation, fmt, shape_of


def batch_jacobian_source(call: LiveCall, exc: BaseException) -> Violation | None:
    """S07: batch_jacobian's source is a weight without the target's batch axis."""
    target, source = call.value("target"), call.value("source")
    if target is UNREAD or source is UNREAD or "first dimension" not in str(exc):
        return None
    t, s = shape_of(target), shape_of(source)
    weight = type(source).__name__.endswith("Variable") or hasattr(source, "trainable")
    if not (t and s) or not weight:
        return None
    text_t, text_s = call.text("target"), call.text("source")
    return Violation(
        "S07",
        text_s,
        f"`tape.batch_jacobian({text_t}, {text_s})` pairs row i of the target with row i of "
        f"the source, and `{text_s}` {fmt(s)} is a weight, with no batch axis (the target "
        f"{fmt(t)} has {t[0]} rows)",
        f"for the gradient of each example's value with respect to a weight, use "
        f"`tape.jacobian({text_t}, {text_s})` (shape {fmt((*t, *s))}); batch_jacobian is for "
        "a source with the same batch rows, such as the inputs",
    )


def accumulated_variables(call: LiveCall, exc: BaseException) -> Violation | None:
    """S07: ``buf.assign_add(g)`` over zip(buffers, grads), the buffers made from other
    variables than the gradients' (``model.weights`` against ``model.trainable_variables``)."""
    if "Cannot update variable with shape" not in str(exc) or not call.filename:
        return None
    lines = linecache.getlines(call.filename)[: max(call.lineno - 1, 0)]
    loop = next(
        (
            m
            for line in reversed(lines)
            if (m := re.match(r"\s*for .+ in zip\((\w+), (\w+)\)", line))
        ),
        None,
    )
    if loop is None:
        return None
    buffers, grads = loop.group(1), loop.group(2)
    made_b, made_g = assigned_from(buffers, lines), assigned_from(grads, lines)
    kinds = {
        n: re.search(r"\.(trainable_variables|trainable_weights|weights|variables)\b", m)
        for n, m in ((buffers, made_b), (grads, made_g))
    }
    a, b = kinds[buffers], kinds[grads]
    if a is None or b is None or a.group(1) == b.group(1):
        return None
    return Violation(
        "S07",
        buffers,
        f"`{buffers}` is built from `.{a.group(1)}` and `{grads}` is taken for "
        f"`.{b.group(1)}`: the two lists hold other variables (the non-trainable ones, such "
        "as BatchNormalization's moving statistics, are only in the first), so zip pairs "
        "buffers with other variables' gradients",
        f"build `{buffers}` from the variables the gradients are for, `.{b.group(1)}`",
        f"`{buffers} = {made_b}`; `{grads} = {made_g}`",
    )


def filter_after_batch(call: LiveCall, exc: BaseException) -> Violation | None:
    """S07: ``Dataset.filter`` on a batched dataset: its predicate sees a batch and returns one
    bool per example, where filter takes one bool per element."""
    if "must return a `tf.bool` scalar" not in str(exc):
        return None
    spec = getattr(call.receiver, "element_spec", None)
    first = spec[0] if isinstance(spec, tuple) and spec else spec
    shape = shape_of(first)
    if not shape or shape[0] is not None:
        return None  # the elements are not batches (no leading unknown batch axis)
    return Violation(
        "S07",
        call.source or "filter",
        f"filter runs once per element, and the elements of this dataset are batches "
        f"{fmt(shape)}: the predicate returns one bool per example, where filter takes one "
        "per element",
        "filter the examples before they are batched, `.filter(predicate).batch(n)`; "
        "reducing the predicate to one bool would drop or keep whole batches",
    )


#: this module's contracts, as ``Contract`` arguments (apis, check, explains)
LOOP_CONTRACTS: tuple[tuple[Any, ...], ...] = (
    (("GradientTape.batch_jacobian",), batch_jacobian_source, (r"Need first dimension",)),
    (("assign_add", "assign_sub", "assign"), accumulated_variables, (r"Cannot update variable",)),
    (("Dataset.filter",), filter_after_batch, (r"must return a `tf.bool` scalar",)),
)
