"""Per-replica facts of a step under a ``tf.distribute`` strategy with more than one replica.

Two things, both read inside the instrumented step
(:mod:`tfnb_debug.collect.gradient_recorder` calls them) and both bounded in cost:

* :func:`example_weight` (:mod:`tfnb_debug.collect.example_weight`), from the
  optimizer hook: the total weight the replica's loss gives its examples, 1 for
  a mean over the replica's own batch, ``examples / global batch`` for a mean
  over the global batch (D01).
* :class:`ReplicaBuffer`: each replica's examples, loss, weight and gradient
  norms before the all-reduce, gathered with one all-reduce of a small table
  and written by replica 0 into a device buffer, read once at the end.

And, after the recorded cell, :func:`mirrored_divergence`: the largest
difference between the per-device components of each mirrored variable, one
reduction per variable on the device and one copy to the host (D06).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.collect.example_weight import ExampleWeight, example_weight, no_examples
from tfnb_debug.collect.keras_access import ResourceVariable
from tfnb_debug.records.replicas import REPLICA_COLUMNS, MirroredDifference, ReplicaHistory

__all__ = [
    "ReplicaBuffer",
    "example_weight",
    "mirrored_divergence",
    "no_examples",
]

#: differences up to this share of a variable's largest value count as equal
_ROUNDING = 1e-6


class ReplicaBuffer:
    """Device buffer of (records, replicas, 3 + variables) numbers: what each replica computed."""

    def __init__(self, rows: int, replicas: int, variables: int, device: Any) -> None:
        self.replicas = replicas
        self.n = variables
        self.reductions: set[str] = set()  # noted at trace time
        with tf.init_scope(), tf.device(device or None):
            shape = [rows, replicas, len(REPLICA_COLUMNS) + variables]
            self.values = ResourceVariable(
                tf.fill(shape, np.nan), dtype=tf.float32, trainable=False
            )

    def gather(
        self,
        ctx: Any,
        present: Sequence[int],
        grads: Sequence[tf.Tensor],
        loss: tf.Tensor | None,
        pending: ExampleWeight | None,
    ) -> tf.Tensor:
        """This replica's row, all-reduced into the (replicas, columns) table of all replicas.

        Every replica runs this in every step (a collective), recorded or not."""
        nan = tf.constant(np.nan, tf.float32)
        squares = [tf.reduce_sum(tf.square(tf.cast(g, tf.float32))) for g in grads]
        norms = tf.fill([self.n], nan)
        if squares:
            norms = tf.tensor_scatter_nd_update(
                norms, [[i] for i in present], tf.sqrt(tf.stack(squares))
            )
        if pending is not None and pending.reduction:
            self.reductions.add(pending.reduction)
        head = tf.stack(
            [
                pending.examples if pending is not None else nan,
                tf.cast(loss, tf.float32) if loss is not None else nan,
                pending.weight if pending is not None else nan,
            ]
        )
        row = tf.concat([head, norms], 0)
        mine = tf.equal(tf.range(self.replicas), tf.cast(ctx.replica_id_in_sync_group, tf.int32))
        table = tf.where(mine[:, None], row[None, :], tf.zeros_like(row)[None, :])
        return ctx.all_reduce(tf.distribute.ReduceOp.SUM, table)

    def write(self, index: Any, table: tf.Tensor) -> None:
        self.values.scatter_nd_update(index, [table])

    def read(self, count: int, paths: tuple[str, ...]) -> ReplicaHistory:
        """The first ``count`` records, copied to the host once."""
        if count == 0:
            values = np.zeros((0, self.replicas, len(REPLICA_COLUMNS) + self.n), np.float32)
        else:
            indices = np.arange(count, dtype=np.int64)
            gathered = tf.raw_ops.ResourceGather(
                resource=self.values.handle, indices=indices, dtype=tf.float32
            )
            values = np.asarray(gathered.numpy())
        return ReplicaHistory(values=values, paths=paths, reductions=tuple(sorted(self.reductions)))


# -- D06: mirrored variables whose components differ --------------------------------


def mirrored_divergence(objects: Iterable[Any]) -> list[MirroredDifference]:
    """The mirrored variables of ``objects`` (models, optimizers, layers, variables) whose
    components differ: one reduction per variable on its device, one copy to the host."""
    owners: dict[int, str] = {}
    variables: dict[int, tuple[Any, Any]] = {}  # id -> (shown variable, distributed variable)
    for obj in objects:
        for layer in _layers(obj):
            for v in getattr(layer, "variables", []) or []:
                owners[id(_inner(v))] = type(layer).__name__  # the innermost layer last
        for v in _variables(obj):
            inner = _inner(v)
            if _is_mirrored(inner):
                variables.setdefault(id(inner), (v, inner))
    if not variables:
        return []
    diffs, scales = [], []
    for _, inner in variables.values():
        parts = [tf.convert_to_tensor(p) for p in inner.values]
        first = tf.cast(parts[0], tf.float32)
        with tf.device(parts[0].device):
            diffs.append(
                tf.reduce_max(
                    tf.stack(
                        [tf.reduce_max(tf.abs(tf.cast(p, tf.float32) - first)) for p in parts[1:]]
                    )
                )
            )
            scales.append(tf.reduce_max(tf.abs(first)) if first.shape.num_elements() else 0.0)
    numbers = tf.stack([tf.stack(diffs), tf.cast(tf.stack(scales), tf.float32)]).numpy()
    out = []
    for (shown, inner), diff, scale in zip(variables.values(), numbers[0], numbers[1], strict=True):
        if not diff > _ROUNDING * scale:  # equal (to rounding), or NaN on every device alike
            continue
        path = str(getattr(shown, "path", None) or getattr(inner, "name", "variable"))
        out.append(
            MirroredDifference(
                path=path.split(":")[0],
                difference=float(diff),
                scale=float(scale),
                devices=len(inner.values),
                aggregation=str(getattr(inner.aggregation, "name", inner.aggregation)),
                layer_class=owners.get(id(inner)),
            )
        )
    return out


def _inner(v: Any) -> Any:
    value = getattr(v, "value", None)
    return value if isinstance(value, tf.Variable) else v


def _is_mirrored(v: Any) -> bool:
    return (
        isinstance(v, tf.distribute.DistributedValues)
        and isinstance(v, tf.Variable)
        and v.synchronization != tf.VariableSynchronization.ON_READ
        and len(getattr(v, "values", ())) > 1
    )


def _layers(obj: Any) -> list[Any]:
    flatten = getattr(obj, "_flatten_layers", None)
    if callable(flatten):
        try:
            return list(flatten(include_self=True, recursive=True))
        except Exception:
            return []
    return []


def _variables(obj: Any) -> list[Any]:
    if isinstance(obj, tf.Variable) or hasattr(obj, "assign") and hasattr(obj, "path"):
        return [obj]
    try:
        return list(getattr(obj, "variables", []) or [])
    except Exception:
        return []
