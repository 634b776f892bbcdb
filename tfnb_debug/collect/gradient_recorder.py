"""The device-side record of one optimizer and one list of variables, for a gradient capture.

:class:`~tfnb_debug.collect.gradients.GradientCapture` makes one :class:`_Recorder` per
(optimizer, variable list) that takes a step, and its ``apply`` hook hands each step's
gradients to :meth:`_Recorder.run`:

* the recorder owns preallocated ``tf.Variable`` buffers on the variables' device
  (steps x variables x (8 + bins) statistics, and per record the step, the loss and
  whether the loss is known), made with ``ResourceVariable`` so they stay plain
  variables inside a strategy scope;
* at a recorded step it computes the statistics with TensorFlow ops
  (:mod:`~tfnb_debug.collect.grad_stats`) and writes them with ``scatter_nd_update``:
  no ``py_function``, so XLA accepts it; in a traced step the write sits in a
  ``tf.cond`` on the step counter;
* the loss is the target of the ``tape.gradient`` call these gradients came from
  (:mod:`~tfnb_debug.collect.loss_targets`), unscaled by a ``LossScaleOptimizer``'s
  scale; under a strategy with more than one replica the statistics are those of the
  all-reduced gradient, and (with the capture's ``per_replica``) each replica's
  examples, loss and gradient norms go into one more buffer
  (:mod:`~tfnb_debug.collect.replicas`);
* records cross to the host only when pulled (a live view) or read at the end of the
  capture, each once, into a :class:`CaptureData`.

A recorder reads its capture through :class:`_Capture` (the few settings it needs), so
this module imports nothing of :mod:`tfnb_debug.collect.gradients`, which imports it.
:data:`_LOCK` is the gradient recording's one lock, shared with that module.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import tensorflow as tf

from tfnb_debug.collect.grad_stats import SAMPLE, gradient_stats, in_xla, norm
from tfnb_debug.collect.keras_access import ResourceVariable
from tfnb_debug.collect.loss_targets import LossTargets, caller_frame, evidence_names
from tfnb_debug.collect.trained_models import trained_model_objects
from tfnb_debug.collect.update_deltas import Change, reads_updates, updates_of
from tfnb_debug.records.gradients import (
    HIST_BINS,
    STAT_COLUMNS,
    GradientHistory,
    VariableMeta,
)
from tfnb_debug.records.replicas import ReplicaHistory

__all__ = ["CaptureData"]

#: guards the active capture, its recorders and a recorder's lazily made replica buffer
#: (collect/gradients.py takes it too)
_LOCK = threading.RLock()


class _Capture(Protocol):
    """What a recorder reads of its :class:`~tfnb_debug.collect.gradients.GradientCapture`."""

    every: int
    max_steps: int
    per_replica: bool
    loss_targets: LossTargets

    def loss_scale_for(self, optimizer: Any) -> Any: ...


@dataclass(frozen=True, eq=False)
class CaptureData(GradientHistory):
    """What a capture read back from the device: a :class:`GradientHistory` (host arrays,
    no tensors) plus how the capture ran."""

    replicas: int = 1
    loss_scaled_by: tuple[str, ...] = ()
    #: names the calling code gives this group's loss, best first (collect/loss_targets.py)
    loss_names: tuple[str, ...] = ()
    #: the Keras models whose trainable variables are this group's (collect/trained_models.py)
    models: tuple[str, ...] = ()
    #: the BatchNormalization layers of those models that train and normalize per replica
    #: (not synchronized; read under a strategy with more than one replica, D03 and D04)
    batchnorm: tuple[str, ...] = ()
    #: what each replica computed (examples, loss, gradient norms before the all-reduce)
    per_replica: ReplicaHistory | None = None


def _read(variable: Any) -> tf.Tensor:
    return tf.convert_to_tensor(getattr(variable, "value", variable))


def _read_when(
    due: tf.Tensor, variables: Sequence[Any], normed: Sequence[Any] = ()
) -> tuple[list[tf.Tensor], list[tf.Tensor]]:
    """In a recorded step, the values of ``variables`` and the norms of ``normed`` (empty
    tensors and NaN in the others), read in one ``cond``.

    A value still held when the optimizer updates its variable makes that update copy
    the whole variable first (TensorFlow's copy-on-write), so the weights before the
    update are read only in a step whose update norm is recorded, and of ``normed`` only
    the norm leaves the ``cond``: nothing of them is held when the optimizer writes them.
    """
    if not variables and not normed:
        return [], []

    def read() -> tuple[list[tf.Tensor], tf.Tensor]:
        norms = tf.stack([norm(_read(v)) for v in normed]) if normed else tf.zeros([0])
        return [tf.identity(_read(v)) for v in variables], norms

    def empty() -> tuple[list[tf.Tensor], tf.Tensor]:
        norms = tf.fill([len(normed)], np.nan) if normed else tf.zeros([0])
        return [tf.zeros([0], tf.as_dtype(v.dtype)) for v in variables], norms

    values, norms = tf.cond(due, read, empty)
    return list(values), (tf.unstack(norms, num=len(normed)) if normed else [])


def _read_from_updates(optimizer: Any, variables: Sequence[Any], replicas: int) -> set[int]:
    """The indices of ``variables`` whose update norm is read from the optimizer's writes
    (:mod:`~tfnb_debug.collect.update_deltas`) rather than from their values held across
    the step: those above :data:`~tfnb_debug.collect.grad_stats.SAMPLE` values, whose
    copy costs, when the optimizer writes only through its own methods and the step runs
    on one replica."""
    if replicas > 1 or not reads_updates(optimizer):
        return set()
    return {
        j
        for j, v in enumerate(variables)
        if (n := tf.TensorShape(v.shape).num_elements()) is not None and n > SAMPLE
    }


#: a variable's weight norm before the step and the change the step made (None: not seen
#: whole), for those read from the optimizer's writes
_Measured = tuple[tf.Tensor, Change | None]


def _traced_apply(
    optimizer: Any, kept: list[Any], replicas: int, due: tf.Tensor, apply: Any
) -> tuple[Any, list[tf.Tensor | None], list[_Measured | None]]:
    """Run the optimizer's step (``apply``) inside a trace, with what the update norms of
    ``kept`` need: the result, each variable's value before the step (None where it is
    not held), and each variable's weight norm and change where they were measured from
    the optimizer's writes instead (:func:`_read_from_updates`; the change's norm is taken
    in the recorded step's ``cond``, not in every step)."""
    norms: list[_Measured | None] = [None] * len(kept)
    held: list[tf.Tensor | None]  # each read before the step writes it
    if in_xla(tf.compat.v1.get_default_graph()):  # XLA wants the branches' shapes equal
        held = [_read(v) for v in kept]
        return apply(), held, norms
    large = sorted(_read_from_updates(optimizer, kept, replicas))
    values, weight_norms = _read_when(
        due, [v for j, v in enumerate(kept) if j not in large], [kept[j] for j in large]
    )
    held = list(values)
    for j in large:
        held.insert(j, None)
    if not large:
        return apply(), held, norms
    with updates_of(optimizer, [kept[j] for j in large]) as updates:
        result = apply()
    for j, w_norm, change in zip(large, weight_norms, updates.changes(), strict=True):
        norms[j] = (w_norm, change)
    return result, held, norms


def _per_replica_batchnorm(models: Sequence[Any]) -> tuple[str, ...]:
    """The BatchNormalization layers of ``models`` that train and are not synchronized,
    when the step runs under a strategy with more than one replica (D03, D04)."""
    ctx = tf.distribute.get_replica_context()
    if ctx is None or int(ctx.num_replicas_in_sync) < 2:
        return ()
    from tfnb_debug.collect.fit_args import replica_batchnorm

    return tuple(dict.fromkeys(p for m in models for p in replica_batchnorm(m)))


def _first_local_replica(replica_id: int) -> bool:
    """Whether the replica ``replica_id`` is the first one of its own worker.

    ``MultiWorkerMirroredStrategy`` numbers replicas across the workers
    (worker 1's only replica is replica 1), so each worker's first replica
    writes that worker's records.
    """
    try:
        local = len(tf.distribute.get_strategy().extended.worker_devices)
    except Exception:
        return replica_id == 0
    return replica_id % max(local, 1) == 0


def _variable_meta(variable: Any, optimizer: str) -> VariableMeta:
    path = str(getattr(variable, "path", None) or getattr(variable, "name", "variable"))
    path = path.split(":")[0]
    layer, _, name = path.rpartition("/")
    shape = tuple(int(d) if d is not None else -1 for d in variable.shape)
    dtype = getattr(variable, "dtype", "float32")
    return VariableMeta(
        path=path,
        layer=layer or path,
        name=name or path,
        shape=shape,
        dtype=str(getattr(dtype, "name", dtype)),
        optimizer=optimizer,
    )


class _Recorder:
    """Device-side buffers for one optimizer and one list of variables."""

    def __init__(self, capture: _Capture, optimizer: Any, variables: Sequence[Any]) -> None:
        self.capture = capture
        self.optimizer = optimizer
        self.traced = False  # run inside a tf.function trace (its graph holds these buffers)
        opt_name = str(getattr(optimizer, "name", type(optimizer).__name__))
        self.meta = tuple(_variable_meta(v, opt_name) for v in variables)
        self.no_gradient: set[int] = set()
        self.replicas = 1
        self.loss_scaled_by: set[str] = set()
        self.loss_names: tuple[str, ...] | None = None  # read at the first step (kept on reuse)
        self.models: tuple[str, ...] | None = None  # the same
        self.batchnorm: tuple[str, ...] = ()  # the same, under a strategy
        n, cap = len(variables), capture.max_steps
        device = getattr(variables[0], "device", None) if variables else None
        with tf.init_scope(), tf.device(device or None):
            # ResourceVariable(...) skips the variable-creator stack, so these
            # stay plain variables even inside a tf.distribute strategy scope.
            def make(value: Any, dtype: Any) -> ResourceVariable:
                return ResourceVariable(value, dtype=dtype, trainable=False)

            self.stats = make(tf.fill([cap, n, len(STAT_COLUMNS)], np.nan), tf.float32)
            self.hist = make(tf.zeros([cap, n, HIST_BINS]), tf.float32)
            self.meta_buf = make(tf.fill([cap, 3], np.nan), tf.float32)
            self.step = make(0, tf.int64)
            self.count = make(0, tf.int32)
        self._host: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # rows copied so far
        self._pulled = 0
        self.replica_buf: Any = None  # a collect/replicas.py ReplicaBuffer, when replicas > 1

    def run(self, optimizer: Any, grads: list[Any], variables: list[Any], apply: Any) -> Any:
        __tracebackhide__ = True
        present = [i for i, g in enumerate(grads) if g is not None]
        self.no_gradient.update(i for i in range(len(grads)) if grads[i] is None)
        dense = [tf.convert_to_tensor(grads[i]) for i in present]
        matched = self.capture.loss_targets.take(grads)
        if self.loss_names is None:
            self.loss_names = evidence_names(matched, optimizer, variables)
        if self.models is None:
            models = trained_model_objects(variables, caller_frame(sys._getframe()))
            self.models = tuple(dict.fromkeys(str(m.name) for m in models if m.name))
            self.batchnorm = _per_replica_batchnorm(models)
        raw = matched.loss if matched is not None else None
        empty = _no_elements(raw)
        if empty:
            # a loss over no examples (a Keras loss of a replica's empty batch, shape (0,), made
            # as a constant): tape.gradient differentiates the sum of its values, 0; every
            # replica must reach the collectives below with a scalar loss
            loss = tf.constant(0.0)
        else:
            loss = _usable_loss(raw)
            if loss is not None and loss.shape.rank != 0:
                loss = tf.reduce_sum(loss)  # what tape.gradient differentiates
        scale = self.capture.loss_scale_for(optimizer)
        if loss is not None and scale is not None:
            loss = tf.cast(loss, tf.float32) / tf.cast(_read(scale), tf.float32)
            self.loss_scaled_by.add("LossScaleOptimizer")
        ctx = tf.distribute.get_replica_context()
        replicas = int(ctx.num_replicas_in_sync) if ctx is not None else 1
        writer, table = True, None
        loss_known: tf.Tensor | None = None  # under a strategy: whether every replica's was found
        if replicas > 1 and ctx is not None:
            # Each replica holds a partial gradient; the statistics belong to the
            # summed one, which is what the optimizer applies.
            self.replicas = replicas
            table = self._replica_table(ctx, replicas, present, dense, loss, empty)
            dense = list(ctx.all_reduce(tf.distribute.ReduceOp.SUM, dense))
            # every replica makes the same collective call, found loss or not (a replica
            # that skipped it would leave the others' reductions unmatched): the sum of the
            # losses and of the replicas that found one; the sum is known when all did
            found = 0.0 if loss is None else 1.0
            part = tf.stack([tf.constant(0.0) if loss is None else tf.cast(loss, tf.float32)])
            total = ctx.all_reduce(
                tf.distribute.ReduceOp.SUM, tf.concat([part, tf.constant([found])], 0)
            )
            all_found = tf.equal(total[1], float(replicas))
            loss = tf.where(all_found, total[0], tf.constant(np.nan, tf.float32))
            loss_known = tf.cast(all_found, tf.float32)
            replica_id = tf.get_static_value(ctx.replica_id_in_sync_group)
            writer = replica_id is None or _first_local_replica(int(replica_id))
        capture = self.capture

        def write(w_old: list[tf.Tensor | None], measured: list[_Measured | None]) -> tf.Tensor:
            n = len(self.meta)
            nan = tf.constant(np.nan, tf.float32)
            norms = [
                None if m is None else (m[0], nan if m[1] is None else m[1].norm())
                for m in measured
            ]
            w_new = [None if norms[j] else _read(variables[i]) for j, i in enumerate(present)]
            rows, hists = gradient_stats(dense, w_old, w_new, norms)
            if len(present) < n:  # variables without a gradient keep NaN rows, empty histograms
                where = [[i] for i in present]
                rows = tf.tensor_scatter_nd_update(
                    tf.fill([n, len(STAT_COLUMNS)], np.nan), where, rows
                )
                hists = tf.tensor_scatter_nd_update(tf.zeros([n, HIST_BINS]), where, hists)
            index = [[self.count.read_value()]]
            self.stats.scatter_nd_update(index, [rows])
            self.hist.scatter_nd_update(index, [hists])
            known = loss_known if loss_known is not None else 0.0 if loss is None else 1.0
            loss_value = tf.constant(np.nan, tf.float32) if loss is None else loss
            meta_row = tf.stack(
                [
                    tf.cast(self.step.read_value(), tf.float32),
                    tf.cast(loss_value, tf.float32),
                    known,
                ]
            )
            self.meta_buf.scatter_nd_update(index, [meta_row])
            if table is not None:
                self.replica_buf.write(index, table)
            self.count.assign_add(1)
            return tf.constant(True)

        if tf.executing_eagerly():
            due = (
                int(self.count.numpy()) < capture.max_steps
                and int(self.step.numpy()) % capture.every == 0
            )
            held = [tf.identity(_read(variables[i])) for i in present] if due else []
            result = apply()
            if due:
                write(list(held), [None] * len(present))
            self.step.assign_add(1)
            return result
        self.traced = True
        due_t = tf.logical_and(
            self.count < capture.max_steps,
            tf.equal(self.step % capture.every, 0),
        )
        kept = [variables[i] for i in present] if writer else []
        result, w_old, norms = _traced_apply(optimizer, kept, replicas, due_t, apply)
        if writer:
            tf.cond(due_t, lambda: write(w_old, norms), lambda: tf.constant(False))
            self.step.assign_add(1)
        return result

    def _replica_table(
        self,
        ctx: Any,
        replicas: int,
        present: list[int],
        dense: list[Any],
        loss: Any,
        empty: bool = False,
    ) -> tf.Tensor | None:
        """Every replica's examples, loss and gradient norms before the all-reduce, as one
        all-reduced table (:mod:`tfnb_debug.collect.replicas`)."""
        from tfnb_debug.collect.replicas import ReplicaBuffer, example_weight, no_examples

        if not self.capture.per_replica:
            return None
        with _LOCK:
            if self.replica_buf is None:
                self.replica_buf = ReplicaBuffer(
                    self.capture.max_steps, replicas, len(self.meta), self.stats.device
                )
        weight = no_examples() if empty else example_weight(loss)
        return self.replica_buf.gather(ctx, present, dense, loss, weight)

    def facts(self) -> tuple[frozenset[int], int, frozenset[str]]:
        """What tracing noted (no gradient, replicas, loss scaling): kept with a reused graph."""
        return frozenset(self.no_gradient), self.replicas, frozenset(self.loss_scaled_by)

    def reuse(self, capture: _Capture, facts: tuple[Any, int, Any]) -> None:
        """Start over for another capture: no records, step 0, the facts of its trace."""
        self.capture = capture
        self.no_gradient = set(facts[0])
        self.replicas = facts[1]
        self.loss_scaled_by = set(facts[2])
        self.count.assign(0)
        self.step.assign(0)
        self._host = None
        self._pulled = 0

    def pull(self) -> int:
        """Copy the records written since the last pull to the host; return how many exist.

        Each record crosses from the device once: :meth:`read` copies only
        what no pull copied yet.  A live view pulls every few seconds.
        """
        count = int(self.count.numpy())
        if count > self._pulled:
            a, b = self._pulled, count
            rows = tuple(_rows(buffer, a, b) for buffer in (self.meta_buf, self.stats, self.hist))
            if self._host is None or self._host[0].shape[0] < b:
                size = min(max(2 * b, 64), self.capture_rows)
                grown = tuple(np.empty((size, *r.shape[1:]), r.dtype) for r in rows)
                if self._host is not None:
                    for new, old in zip(grown, self._host, strict=True):
                        new[:a] = old[:a]
                self._host = grown  # type: ignore[assignment]
            assert self._host is not None
            for store, part in zip(self._host, rows, strict=True):
                store[a:b] = part
            self._pulled = count
        return count

    def history(self, last: int | None = None, total_steps: int | None = None) -> CaptureData:
        """The records pulled so far (or the ``last`` ones) as host data; reads nothing."""
        n, b = len(self.meta), self._pulled
        a = 0 if last is None else max(0, b - last)
        if self._host is None:
            meta = np.zeros((0, 3), np.float32)
            stats = np.zeros((0, n, len(STAT_COLUMNS)), np.float32)
            hist = np.zeros((0, n, HIST_BINS), np.float32)
        else:
            meta, stats, hist = (store[a:b] for store in self._host)
        loss_known = meta[:, 2] == 1.0
        steps = meta[:, 0].astype(np.int64)
        if total_steps is None:
            total_steps = int(steps[-1]) + 1 if len(steps) else 0
        return CaptureData(
            variables=self.meta,
            steps=steps,
            loss=np.where(loss_known, meta[:, 1], np.nan),
            loss_known=loss_known,
            stats=stats,
            hist=hist,
            no_gradient=tuple(self.meta[i].path for i in sorted(self.no_gradient)),
            total_steps=total_steps,
            replicas=self.replicas,
            loss_scaled_by=tuple(sorted(self.loss_scaled_by)),
            loss_names=self.loss_names or (),
            models=self.models or (),
            batchnorm=self.batchnorm,
        )

    def read(self) -> CaptureData:
        """Everything recorded (copying from the device only what no pull copied yet)."""
        self.pull()
        data = self.history(total_steps=int(self.step.numpy()))  # its arrays are copies
        if self.replica_buf is not None:
            from dataclasses import replace

            paths = tuple(meta.path for meta in self.meta)
            data = replace(data, per_replica=self.replica_buf.read(len(data.steps), paths))
        self._host, self._pulled = None, 0  # a kept recorder holds no host rows between cells
        return data

    @property
    def capture_rows(self) -> int:
        return int(self.stats.shape[0])


def _rows(buffer: ResourceVariable, a: int, b: int) -> np.ndarray:
    """Rows ``a:b`` of a buffer on the host: one gather op (a slice of the variable costs a
    read, a strided slice and Python dispatch, several times as long; ``--stop-on`` pulls
    after every step)."""
    indices = np.arange(a, b, dtype=np.int64)
    rows = tf.raw_ops.ResourceGather(resource=buffer.handle, indices=indices, dtype=buffer.dtype)
    return np.asarray(rows.numpy())


def _usable_loss(loss: Any) -> tf.Tensor | None:
    """The loss, when this step can read it (eager, or in this graph or one around it)."""
    if loss is None:
        return None
    if tf.executing_eagerly():
        return loss if not hasattr(loss, "graph") or _is_eager(loss) else None
    # The same graph, or an enclosing one (LossScaleOptimizer calls the inner
    # optimizer inside a cond branch, which captures outer tensors).
    graph: Any = tf.compat.v1.get_default_graph()
    while graph is not None:
        if getattr(loss, "graph", None) is graph:
            return loss
        graph = getattr(graph, "outer_graph", None)
    return None


def _no_elements(loss: Any) -> bool:
    """Whether ``loss`` has a static shape with no elements: a loss over no examples."""
    shape = getattr(loss, "shape", None)
    try:
        return shape is not None and shape.num_elements() == 0
    except Exception:
        return False


def _is_eager(tensor: Any) -> bool:
    try:
        tensor.numpy()
        return True
    except Exception:
        return False
