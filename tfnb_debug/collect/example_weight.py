"""The total weight a replica's loss gives its examples in a traced step (D01's evidence).

:func:`example_weight`, from the optimizer hook (:mod:`tfnb_debug.collect.gradient_recorder`,
through :class:`tfnb_debug.collect.replicas.ReplicaBuffer`): the loss's graph
is walked back along scalar values to the reduction over the examples (a
``Mean`` or ``Sum`` whose input reads the step's data), and ``d loss /
d per-example loss`` is summed there with ``tf.gradients`` (a few element-wise
ops).  Where the scalar comes out of a function graph (the branches of a
``tf.cond`` or ``tf.switch_case``, a nested ``tf.function``), the walk goes on
inside it: the slice of each branch that makes the scalar is rebuilt in the
step's graph from the call's inputs (stateless ops only; a slice that reads a
variable or draws random numbers is left alone), its weight taken there,
multiplied by ``d loss / d call output``, and the branch that ran chosen by the
call's predicate or index.  That sum is the total weight the replica's loss
gives its examples: 1 for a mean over the replica's own batch
(``tf.reduce_mean``), ``examples / global batch`` for a loss averaged over the
global batch (``tf.nn.compute_average_loss``, or a ``keras.losses.Loss``
object, which scales by ``1 / replicas`` in a replica context).  Summed over
the replicas it is 1 for a global mean and N for N replica means (D01).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

__all__ = ["ExampleWeight", "example_weight", "no_examples"]

#: ops that hand a traced step its data
_DATA_OPS = frozenset(
    {
        "IteratorGetNext",
        "IteratorGetNextSync",
        "OptionalGetValue",
        "MultiDeviceIteratorGetNextFromShard",
    }
)
_REDUCTIONS = frozenset({"Mean", "Sum"})
#: ops that run function graphs on their inputs (the first input of If/Case chooses the branch)
_CALLS = frozenset(
    {"If", "StatelessIf", "Case", "StatelessCase", "PartitionedCall", "StatefulPartitionedCall"}
)
_SELECTORS = frozenset({"If", "StatelessIf", "Case", "StatelessCase"})
#: function graphs followed inside each other at most
_MAX_NESTING = 4
_INLINE_SCOPE = "tfnb_inline"
#: ops looked at, at most, per walk (the loss's own chain is a few dozen)
_WALK_LIMIT = 5000
#: the name scopes of the replicas and of the copies of function-graph slices, in an op's name
_SCOPES = re.compile(r"(replica_\d+|tfnb_inline(_\d+)?)/")


@dataclass(frozen=True)
class ExampleWeight:
    """In the traced step: the replica's examples, the total weight its loss gives them, and
    the reduction found (its label)."""

    examples: tf.Tensor
    weight: tf.Tensor
    reduction: str


def no_examples() -> ExampleWeight:
    """The examples and weight of a replica whose loss has no elements: it saw no example."""
    zero = tf.constant(0.0, tf.float32)
    return ExampleWeight(zero, zero, "")


def example_weight(loss: Any) -> ExampleWeight | None:
    """The examples and total example weight of ``loss`` (the one this replica's gradients
    came from), for the step being traced.

    Only in a traced step under a strategy with more than one replica, and only when the
    loss is a tensor of the graph being built; anything else (eager, one replica, a loss
    from an enclosing graph, no reduction over data found) gives None.
    """
    if loss is None or tf.executing_eagerly():
        return None
    ctx = tf.distribute.get_replica_context()
    if ctx is None or int(ctx.num_replicas_in_sync) < 2:
        return None
    if not isinstance(loss, tf.Tensor) or loss.shape.rank != 0 or not loss.dtype.is_floating:
        return None
    if getattr(loss, "graph", None) is not tf.compat.v1.get_default_graph():
        return None
    try:
        found = _weight(loss, 0)
    except Exception:  # a fact less, never the user's step
        return None
    return None if found is None else ExampleWeight(*found)


def _weight(
    scalar: tf.Tensor, depth: int, inside: str = ""
) -> tuple[tf.Tensor, tf.Tensor, str] | None:
    """``(examples, weight, reduction)`` of ``scalar``: the examples of its first reduction
    over the step's data, the largest total ``d scalar / d per-example loss`` over its
    reductions (also those inside the function graphs it comes out of), and that reduction
    (``inside``: the function graph ``scalar`` was copied from, for its label)."""
    reductions, calls = _example_reductions(scalar)
    parts: list[tuple[tf.Tensor, tf.Tensor, str]] = []
    if reductions:
        grads = tf.gradients(scalar, [inp for inp, _ in reductions])
        for (inp, op), g in zip(reductions, grads, strict=True):
            if g is not None:  # a reduction the loss does not depend on (stop_gradient)
                examples = tf.cast(tf.shape(inp)[0], tf.float32)
                weight = tf.reduce_sum(tf.cast(g, tf.float32))
                parts.append((examples, weight, _label(op, inside)))
    if calls and depth < _MAX_NESTING:
        grads = tf.gradients(scalar, [t for t, _ in calls])
        for (t, op), g in zip(calls, grads, strict=True):
            inner = _call_weight(t, op, depth) if g is not None else None
            if inner is not None:
                parts.append((inner[0], tf.cast(g, tf.float32) * inner[1], inner[2]))
    if not parts:
        return None
    return parts[0][0], tf.reduce_max(tf.stack([w for _, w, _ in parts])), parts[0][2]


def _label(op: Any, inside: str = "") -> str:
    """``Mean op 'Mean'``, and where it runs when that is inside a function graph."""
    name = _SCOPES.sub("", op.name)
    return f"{op.type} op '{name}'" + (f" inside {inside}" if inside else "")


def _inside(op: Any) -> str:
    """The function graph of ``op`` as the user wrote it: a tf.cond branch, a tf.function."""
    if op.type in ("If", "StatelessIf"):
        return "a tf.cond branch"
    if op.type in ("Case", "StatelessCase"):
        return "a tf.switch_case branch"
    name = re.sub(r"^__(inference|forward)_|_\d+$", "", op.get_attr("f").name)
    return f"tf.function '{name}'"


def _example_reductions(
    loss: tf.Tensor,
) -> tuple[list[tuple[tf.Tensor, Any]], list[tuple[tf.Tensor, Any]]]:
    """The inputs of the reductions over the step's data that ``loss`` is made of, and the
    function-call outputs it is made of, walking back along float scalars (sums, products,
    casts, stacks of scalar losses)."""
    found: list[tuple[tf.Tensor, Any]] = []
    calls: list[tuple[tf.Tensor, Any]] = []
    stack = [loss]
    seen: set[Any] = set()
    while stack and len(seen) < _WALK_LIMIT:
        t = stack.pop()
        if t.ref() in seen:
            continue
        seen.add(t.ref())
        op = t.op
        if op.type in _CALLS:
            calls.append((t, op))
            continue
        if op.type in _REDUCTIONS:
            inp = op.inputs[0]
            if inp.shape.rank is None or inp.shape.rank == 0 or not inp.dtype.is_floating:
                continue
            if inp.op.type in ("Pack", "AddN") and all(x.shape.rank == 0 for x in inp.op.inputs):
                stack.extend(x for x in inp.op.inputs if x.dtype.is_floating)
                continue
            if _reads_data(inp):
                found.append((inp, op))
            continue
        stack.extend(x for x in op.inputs if x.dtype.is_floating and x.shape.rank == 0)
    return found, calls


def _call_weight(t: tf.Tensor, op: Any, depth: int) -> tuple[tf.Tensor, tf.Tensor, str] | None:
    """The weight of output ``t`` of the call ``op`` over the examples, taken in a copy of
    each branch's slice; for If/Case, that of the branch the predicate or index chose (NaN,
    no evidence, where a branch could not be read)."""
    graphs, inputs = _function_graphs(op)
    branches = []
    for graph in graphs:
        if len(graph.inputs) != len(inputs) or t.value_index >= len(graph.outputs):
            return None
        copied = _inline(graph, graph.outputs[t.value_index], inputs)
        branches.append(_weight(copied, depth + 1, _inside(op)) if copied is not None else None)
    known = [b for b in branches if b is not None]
    if not known:
        return None
    if len(branches) == 1:
        return known[0]
    nan = tf.constant(np.nan, tf.float32)
    which = _branch_taken(op, len(branches))
    examples = tf.stack([b[0] if b is not None else nan for b in branches])
    weights = tf.stack([b[1] if b is not None else nan for b in branches])
    return tf.gather(examples, which), tf.gather(weights, which), known[0][2]


def _function_graphs(op: Any) -> tuple[list[Any], list[tf.Tensor]]:
    """The function graphs ``op`` runs (If: then, else; Case: each branch; a call: its
    function) and the inputs their placeholders stand for."""
    from tensorflow.python.ops import control_flow_util_v2

    if op.type in ("If", "StatelessIf"):
        attrs = [("then_branch", "_true_graph"), ("else_branch", "_false_graph")]
        names = [(op.get_attr(a).name, cached) for a, cached in attrs]
    elif op.type in ("Case", "StatelessCase"):
        branches = op.get_attr("branches")
        names = [(b.name, f"_branch_graph_{i}") for i, b in enumerate(branches)]
    else:
        names = [(op.get_attr("f").name, "")]
    inputs = list(op.inputs[1:] if op.type in _SELECTORS else op.inputs)
    shapes = [x.shape for x in inputs]
    graphs = [
        getattr(op, cached, None) or control_flow_util_v2.get_func_graph(op, shapes, name)
        for name, cached in names
    ]
    return graphs, inputs


def _branch_taken(op: Any, count: int) -> tf.Tensor:
    """The index of the branch an If (0: then, 1: else) or Case op runs in this step."""
    if op.type in ("If", "StatelessIf"):
        return tf.where(tf.cast(op.inputs[0], tf.bool), 0, 1)
    index = tf.cast(op.inputs[0], tf.int32)
    return tf.where((index >= 0) & (index < count), index, count - 1)  # Case: else the last


def _inline(graph: Any, output: tf.Tensor, inputs: Sequence[tf.Tensor]) -> tf.Tensor | None:
    """``output`` of function graph ``graph`` rebuilt in the current graph from ``inputs``
    (what its placeholders stand for): the ops it depends on, copied; None when one of
    them has state (a variable read, a random op, a nested call) or reads no input."""
    mapping = {p.ref(): x for p, x in zip(graph.inputs, inputs, strict=True)}
    order: list[Any] = []
    seen: set[str] = set()
    stack: list[tuple[Any, bool]] = [(output.op, False)]
    while stack:  # post-order over the data inputs, stopping at the placeholders
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if op.name in seen:
            continue
        if op.op_def.is_stateful or op.type in _CALLS or op.type == "Placeholder":
            return None
        seen.add(op.name)
        if len(seen) > _WALK_LIMIT:
            return None
        stack.append((op, True))
        stack.extend((x.op, False) for x in op.inputs if x.ref() not in mapping)
    outer = tf.compat.v1.get_default_graph()
    copies: dict[str, Any] = {}
    with outer.name_scope(_INLINE_SCOPE):
        for op in order:
            if op.name in copies:
                continue
            ins = [
                mapping[x.ref()] if x.ref() in mapping else copies[x.op.name].outputs[x.value_index]
                for x in op.inputs
            ]
            copies[op.name] = outer._create_op_internal(
                op.type,
                ins,
                dtypes=[o.dtype for o in op.outputs],
                attrs=dict(op.node_def.attr),
                name=op.name,
            )
    if output.ref() in mapping:
        return mapping[output.ref()]
    return copies[output.op.name].outputs[output.value_index]


def _reads_data(tensor: tf.Tensor) -> bool:
    """Whether ``tensor`` is computed from the step's data: an iterator's element or a
    function argument that is no variable handle (a regularization loss of the weights
    is not)."""
    stack = [tensor.op]
    seen: set[str] = set()
    while stack and len(seen) < _WALK_LIMIT:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type in _DATA_OPS:
            return True
        if op.type == "Placeholder" and op.outputs[0].dtype not in (tf.resource, tf.variant):
            return True
        stack.extend(x.op for x in op.inputs)
    return False
