"""Record gradient statistics at every optimizer step, inside the (possibly XLA-compiled) step.

How it works (see TRAPS.md, 'Gradients from model.fit'):

* ``BaseOptimizer.apply`` is wrapped at class level for the duration of a
  :class:`GradientCapture`; ``apply_gradients`` routes through it, so both
  ``fit``/``train_on_batch`` and custom ``GradientTape`` loops (eager or in a
  user's ``tf.function``) are caught.  ``LossScaleOptimizer`` calls its inner
  optimizer's ``apply`` with unscaled gradients, so those are what is recorded.
* The wrapper computes a few numbers per variable with TensorFlow ops (norm,
  mean/max |g|, NaN/Inf counts, share of zeros, a histogram of log2|g| read from
  the float32 exponents, weight and update norms: :mod:`~tfnb_debug.collect.grad_stats`,
  whose cost follows the step's own) and writes them with ``scatter_nd_update``
  into preallocated ``tf.Variable`` buffers on the device: no ``py_function``,
  so XLA accepts it.  Nothing crosses to the host until the capture ends, when
  the buffers (steps x variables x (8 + bins) numbers) are read once.
* ``TensorFlowTrainer.make_train_function`` is wrapped so the first call per
  model in the capture rebuilds the train function (the cached one was traced
  without the hook); the previous function object is put back at the end.
* The instrumented train function is kept (in :mod:`tfnb_debug.collect.kept`, never
  on the model) with its device buffers, for the same model, optimizer,
  compile configuration and options: the next capture on that model uses it
  again instead of tracing (:class:`_KeptTrainFunction`).  A change of any of
  them, or unloading the extension, drops it.
* ``tf.GradientTape.gradient`` is wrapped to note each call's target (the loss) and
  gradients, so each optimizer's records carry the loss its gradients came from, with
  the names the code gives it (:mod:`~tfnb_debug.collect.loss_targets`).
* A step where no variable gets a gradient (Keras then raises "No gradients
  provided for any variable") is noted in :attr:`GradientCapture.no_gradient_step`
  and handed to Keras unchanged.
* Under a strategy with more than one replica, each replica's examples, loss,
  example weight (D01) and gradient norms before the all-reduce are gathered in
  the step into one more buffer (:mod:`~tfnb_debug.collect.replicas`), read
  once at the end into :attr:`CaptureData.per_replica`.

Every wrapper is installed and removed by :class:`GradientCapture`, in
``finally``, also on exceptions and ``KeyboardInterrupt``.  The wrappers are
no part of the user's traceback: :func:`hide_hook_frames` takes their frames
out of an exception raised through them, so it reads as it would without the
recording.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.collect._patching import Patches, preserved
from tfnb_debug.collect.grad_stats import gradient_stats, in_xla
from tfnb_debug.collect.hook_frames import hide_hook_frames
from tfnb_debug.collect.kept import Setup, keep, kept_for, kept_function
from tfnb_debug.collect.keras_access import (
    BaseOptimizer,
    LossScaleOptimizer,
    ResourceVariable,
    TensorFlowTrainer,
    build_from_data,
)
from tfnb_debug.collect.loss_targets import LossTargets, caller_frame, evidence_names
from tfnb_debug.collect.traced_trainable import StaleTrainable, enter_as_traced
from tfnb_debug.collect.trained_models import trained_model_objects
from tfnb_debug.ground.text import first_line, loss_name
from tfnb_debug.records.gradients import (
    HIST_BINS,
    STAT_COLUMNS,
    GradientHistory,
    VariableMeta,
)
from tfnb_debug.records.replicas import ReplicaHistory

__all__ = [
    "CaptureData",
    "FitModelInfo",
    "GradientCapture",
    "NoGradientStep",
    "active_capture",
    "hide_hook_frames",
    "probe_batch",
    "gradient_stats",
]

_LOCK = threading.RLock()
_ACTIVE: GradientCapture | None = None


def active_capture() -> GradientCapture | None:
    return _ACTIVE


@dataclass(frozen=True)
class FitModelInfo:
    """A model whose train function was rebuilt for the capture."""

    name: str
    jit_compile: bool
    run_eagerly: bool
    replicas: int


@dataclass(frozen=True)
class NoGradientStep:
    """An optimizer step where no trainable variable received a gradient."""

    optimizer: str
    variables: tuple[VariableMeta, ...]
    loss: str | None  # the compiled loss of the model that trained, when known
    model: str | None


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


def _read_when(due: tf.Tensor, variables: Sequence[Any]) -> list[tf.Tensor]:
    """The variables' values in a recorded step, empty tensors in the others.

    A value still held when the optimizer updates its variable makes that update copy
    the whole variable first (TensorFlow's copy-on-write), so the weights before the
    update are read only in a step whose update norm is recorded.
    """
    if not variables:
        return []

    def read() -> list[tf.Tensor]:
        return [tf.identity(_read(v)) for v in variables]

    def empty() -> list[tf.Tensor]:
        return [tf.zeros([0], tf.as_dtype(v.dtype)) for v in variables]

    return list(tf.cond(due, read, empty))


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


def _variable_key(optimizer: Any, variable: Any) -> Any:
    try:
        return optimizer._var_key(variable)
    except Exception:
        return id(variable)


class _Recorder:
    """Device-side buffers for one optimizer and one list of variables."""

    def __init__(self, capture: GradientCapture, optimizer: Any, variables: Sequence[Any]) -> None:
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

        def write(w_old: list[tf.Tensor]) -> tf.Tensor:
            n = len(self.meta)
            rows, hists = gradient_stats(dense, w_old, [_read(variables[i]) for i in present])
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
            w_old = [tf.identity(_read(variables[i])) for i in present] if due else []
            result = apply()
            if due:
                write(w_old)
            self.step.assign_add(1)
            return result
        self.traced = True
        due_t = tf.logical_and(
            self.count < capture.max_steps,
            tf.equal(self.step % capture.every, 0),
        )
        kept = [variables[i] for i in present] if writer else []
        if in_xla(tf.compat.v1.get_default_graph()):  # XLA wants the branches' shapes equal
            w_old = [_read(v) for v in kept]
        else:
            w_old = _read_when(due_t, kept)
        result = apply()
        if writer:
            tf.cond(due_t, lambda: write(w_old), lambda: tf.constant(False))
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

    def reuse(self, capture: GradientCapture, facts: tuple[Any, int, Any]) -> None:
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


@dataclass
class _SavedTrainFunction:
    model: Any
    function: Any
    optimizer: Any
    built: list[Any] = field(default_factory=list)
    setup: Setup | None = None  # the model's setup when the instrumented function was built
    reused: _KeptTrainFunction | None = None  # the kept function this capture used


@dataclass(eq=False)
class _KeptTrainFunction:
    """An instrumented train function kept across captures, with the recorders its graph writes.

    Held in the store of :mod:`tfnb_debug.collect.kept` (at most
    :data:`~tfnb_debug.collect.kept.KEEP_MODELS` models, least recently used dropped first).  The
    function's closure holds its model, so an entry keeps the model alive
    until it is dropped: by a changed setup, by eviction or on unload.
    """

    model: weakref.ref[Any]
    setup: Setup
    function: Any
    recorders: tuple[tuple[Any, _Recorder, tuple[Any, int, Any]], ...]


#: the store's kind for the functions kept here
KIND = "gradients"


def kept_train_function(model: Any) -> Any:
    """The instrumented train function kept for ``model``, or None (dropped if the model's
    optimizer, compile configuration or trainable variables changed since)."""
    return kept_function(model, KIND)


class GradientCapture:
    """Owns every patch the gradient recording needs; use it as a context manager.

    ``every``: record every N-th optimizer step; ``max_steps``: stop recording
    after that many records (the device buffers hold exactly that many).
    After the block, :attr:`data` holds one :class:`CaptureData` per
    (optimizer, variable list) that took a step, and :attr:`fit_models` the
    models whose train function was rebuilt.
    """

    def __init__(self, *, every: int = 1, max_steps: int = 1000) -> None:
        self.every = int(every)
        self.max_steps = int(max_steps)
        self.data: list[CaptureData] = []
        self.fit_models: list[FitModelInfo] = []
        self.fit_model_objects: list[Any] = []
        self._recorders: dict[Any, _Recorder] = {}
        self._order: list[_Recorder] = []
        self._saved: dict[int, _SavedTrainFunction] = {}
        self._loss_scales: dict[int, Any] = {}
        self.loss_targets = LossTargets()  # each tape.gradient call's target and gradients
        self._patches = Patches()
        #: further settings that change what the instrumented step's graph does (hashable,
        #: compared by value): a kept train function is used again only with equal ones.
        #: Anything a step calls back into must look up the active capture when it runs,
        #: never keep the capture that traced it: a kept graph outlives its capture.
        self.trace_options: tuple[Any, ...] = ()
        #: under a strategy with replicas > 1, record what each replica computed (one more
        #: all-reduce of a small table per step; collect/replicas.py)
        self.per_replica = True
        #: the block ran cleanly and nothing in it needs a fresh trace: keep what was built
        self.keep_functions = False
        #: models whose kept instrumented train function this capture used (no retrace)
        self.reused_models: list[str] = []
        self.read_error: str | None = None
        self.no_gradient_step: NoGradientStep | None = None
        #: models whose kept step was traced with other trainable flags (collect/traced_trainable)
        self.stale_trainable: list[StaleTrainable] = []
        self._as_traced = contextlib.ExitStack()
        # the exception raised through a wrapper and the frame that raised it
        self._raised: tuple[BaseException, types.TracebackType] | None = None

    # -- lifecycle -----------------------------------------------------------
    def __enter__(self) -> GradientCapture:
        global _ACTIVE
        with _LOCK:
            if _ACTIVE is not None:
                from tfnb_debug.ground.errors import TfnbDebugError

                raise TfnbDebugError(
                    "gradients are already being recorded (nested %%tfgrad / record_gradients); "
                    "record one training cell at a time"
                )
            try:
                self._install()
            except BaseException:
                self._uninstall()
                raise
            _ACTIVE = self
        return self

    def __exit__(self, *exc: object) -> None:
        global _ACTIVE
        __tracebackhide__ = True
        raised, self._raised = self._raised, None
        if isinstance(exc[1], BaseException):
            with contextlib.suppress(Exception):  # never in the way of the user's error
                at = raised[1] if raised is not None and raised[0] is exc[1] else None
                hide_hook_frames(exc[1], raised_at=at)
        try:
            with _LOCK:
                _ACTIVE = None
            self._uninstall()
            kept = self._functions_to_keep() if self.keep_functions and exc[1] is None else []
            self._restore_train_functions()
        finally:
            try:
                self.data = [r.read() for r in self._order]
            except Exception as err:  # a failed read must not hide the user's exception
                self.read_error = f"{type(err).__name__}: {err}"
            finally:
                self._recorders.clear()
                self._order.clear()
                self._loss_scales.clear()
        for model, entry in kept:
            keep(entry, model, KIND)

    def _install(self) -> None:
        original_apply = BaseOptimizer.__dict__["apply"]
        original_lso_apply = LossScaleOptimizer.__dict__["apply"]
        original_make = TensorFlowTrainer.__dict__["make_train_function"]
        original_gradient = tf.GradientTape.__dict__["gradient"]

        def apply(opt: Any, grads: Any, trainable_variables: Any = None) -> Any:
            __tracebackhide__ = True
            capture = _ACTIVE
            try:
                if capture is None:
                    return original_apply(opt, grads, trainable_variables)
                return capture._on_apply(opt, grads, trainable_variables, original_apply)
            except BaseException as err:
                if capture is not None:
                    capture._note_raised(err)
                raise

        def lso_apply(opt: Any, grads: Any, trainable_variables: Any = None) -> Any:
            __tracebackhide__ = True
            capture = _ACTIVE
            if capture is not None:
                capture._loss_scales[id(opt.inner_optimizer)] = (
                    opt  # built by the time inner.apply runs
                )
            return original_lso_apply(opt, grads, trainable_variables)

        def make_train_function(model: Any, force: bool = False) -> Any:
            __tracebackhide__ = True
            capture = _ACTIVE
            if capture is not None and id(model) not in capture._saved:
                setup = Setup(model, capture._options())
                saved = capture._saved[id(model)] = _SavedTrainFunction(
                    model, model.train_function, getattr(model, "optimizer", None), setup=setup
                )
                capture._note_fit_model(model)
                # Keras would run its kept step, traced with the flags of then: trace ours
                # with them too (not kept for later cells: the flags are the user's again)
                stale = enter_as_traced(capture._as_traced, model)
                if stale is not None:
                    capture.stale_trainable.append(stale)
                    saved.setup = None
                kept = kept_for(model, KIND, setup) if stale is None else None
                if kept is not None and capture._can_reuse(kept):
                    capture._reuse(kept, model)
                    saved.reused = kept
                    model.train_function = kept.function
                    saved.built.append(kept.function)
                    return kept.function
                capture._variables_before_trace(model)
                result = original_make(model, force=True)
                capture._saved[id(model)].built.append(model.train_function)
                return result
            before = model.train_function
            result = original_make(model, force=force)
            if capture is not None and model.train_function is not before:
                capture._saved[id(model)].built.append(model.train_function)
            return result

        def gradient(tape: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            result = original_gradient(tape, target, *args, **kwargs)
            capture = _ACTIVE
            if capture is not None:
                capture.loss_targets.note(target, result, sys._getframe(1))
            return result

        self._patches.set(BaseOptimizer, "apply", apply)
        self._patches.set(LossScaleOptimizer, "apply", lso_apply)
        self._patches.set(TensorFlowTrainer, "make_train_function", make_train_function)
        self._patches.set(tf.GradientTape, "gradient", gradient)

    def _uninstall(self) -> None:
        try:
            self._as_traced.close()  # the user's trainable flags
        finally:
            self._patches.restore()

    def pull(self) -> int:
        """Copy the records written since the last pull from the device (each record
        crosses once: ``read`` at the end copies only the rest); return the records so far
        (the most of any optimizer/variable group).  For a live view, between steps, on
        the thread that trains."""
        with _LOCK:
            order = list(self._order)
        return max((recorder.pull() for recorder in order), default=0)

    def steps_so_far(self) -> int:
        """Optimizer steps taken so far by the group that took the most (one scalar read per
        group; a run folder's step timer asks after each compiled call)."""
        with _LOCK:
            order = list(self._order)
        return max((int(recorder.step.numpy()) for recorder in order), default=0)

    def recent(self, last: int | None = None) -> list[CaptureData]:
        """The pulled records (the ``last`` ones), per group that has any; reads nothing."""
        with _LOCK:
            order = list(self._order)
        return [recorder.history(last) for recorder in order if recorder._pulled > 0]

    # -- keeping the instrumented train function -----------------------------------------
    def _options(self) -> tuple[Any, ...]:
        """What of this capture shapes the instrumented step's graph (compared by value)."""
        return (self.every, self.max_steps, self.per_replica, self.trace_options)

    def _can_reuse(self, kept: _KeptTrainFunction) -> bool:
        """Whether the kept function's buffers can be this capture's: not when the block
        already records the same optimizer and variables elsewhere (an eager loop before
        ``fit``), whose steps a fresh trace would add to the same record."""
        with _LOCK:
            return all(self._recorders.get(key, r) is r for key, r, _ in kept.recorders)

    def _reuse(self, kept: _KeptTrainFunction, model: Any) -> None:
        """Use a kept function: its recorders start over and write this capture's records."""
        optimizers = []
        with _LOCK:
            for key, recorder, facts in kept.recorders:
                recorder.reuse(self, facts)
                if self._recorders.setdefault(key, recorder) is recorder and all(
                    r is not recorder for r in self._order
                ):
                    self._order.append(recorder)
                optimizers.append(recorder.optimizer)
        self.reused_models.append(str(getattr(model, "name", "model")))
        from tfnb_debug.collect.memory_steps import watch_graph_optimizers

        watch_graph_optimizers(optimizers)  # %%tfmem counts these steps as it would when traced

    def _functions_to_keep(self) -> list[tuple[Any, _KeptTrainFunction]]:
        """The instrumented functions built (or reused) here that a later capture may use.

        Only when one model trained, its function was built once and is still
        the model's, its setup did not change during the block, and every
        buffer its graph writes belongs to that model's optimizer.
        """
        if len(self._saved) != 1:
            return []
        saved = next(iter(self._saved.values()))
        model = saved.model
        if (
            saved.setup is None
            or len(saved.built) != 1
            or getattr(model, "train_function", None) is not saved.built[0]
            or bool(getattr(model, "run_eagerly", False))
            or not saved.setup.same(Setup(model, self._options()))
        ):
            return []
        optimizer = getattr(model, "optimizer", None)
        own = [optimizer, getattr(optimizer, "inner_optimizer", None)]
        traced = [(k, r) for k, r in self._recorders.items() if r.traced]
        if not traced or any(all(r.optimizer is not o for o in own) for _, r in traced):
            return []
        if saved.reused is not None:
            return [(model, saved.reused)]
        entry = _KeptTrainFunction(
            model=weakref.ref(model),
            setup=saved.setup,
            function=saved.built[0],
            recorders=tuple((k, r, r.facts()) for k, r in traced),
        )
        return [(model, entry)]

    def _restore_train_functions(self) -> None:
        for saved in self._saved.values():
            model = saved.model
            current = getattr(model, "train_function", None)
            if current is None or not any(current is f for f in saved.built):
                continue  # the user recompiled or replaced it: leave theirs
            same_setup = getattr(model, "optimizer", None) is saved.optimizer
            model.train_function = saved.function if same_setup else None
        self._saved.clear()

    def _variables_before_trace(self, model: Any) -> None:
        """The optimizer and this step's device buffers made before Keras traces the step
        (:func:`~tfnb_debug.collect.keras_access.optimizer_built_before_trace`): a trace that
        creates no variable is not traced a second time."""
        from tfnb_debug.collect.keras_access import optimizer_built_before_trace

        variables = optimizer_built_before_trace(model)
        optimizer = getattr(model, "optimizer", None)
        inner = getattr(optimizer, "inner_optimizer", None) or optimizer
        if variables and getattr(inner, "built", False):
            self._recorder_for(inner, variables)

    # -- hooks ---------------------------------------------------------------
    def _note_fit_model(self, model: Any) -> None:
        self.fit_model_objects.append(model)
        try:
            replicas = int(model.distribute_strategy.num_replicas_in_sync)
        except Exception:
            replicas = 1
        self.fit_models.append(
            FitModelInfo(
                name=str(getattr(model, "name", "model")),
                jit_compile=bool(getattr(model, "jit_compile", False)),
                run_eagerly=bool(getattr(model, "run_eagerly", False)),
                replicas=replicas,
            )
        )

    def loss_scale_for(self, optimizer: Any) -> Any:
        """The dynamic loss scale of the LossScaleOptimizer wrapping ``optimizer``, if any."""
        outer = self._loss_scales.get(id(optimizer))
        return getattr(outer, "dynamic_scale", None) if outer is not None else None

    def _on_apply(self, opt: Any, grads: Any, trainable_variables: Any, original: Any) -> Any:
        __tracebackhide__ = True
        grads = list(grads)
        if trainable_variables is None:
            variables = list(getattr(opt, "_trainable_variables", []) or [])
        else:
            trainable_variables = list(trainable_variables)
            variables = trainable_variables
        if not grads or len(variables) != len(grads):
            return original(opt, grads, trainable_variables)
        if all(g is None for g in grads):
            self._note_no_gradient(opt, variables)
            return original(opt, grads, trainable_variables)  # Keras says so: let it
        recorder = self._recorder_for(opt, variables)

        def call() -> Any:
            __tracebackhide__ = True
            return original(opt, grads, trainable_variables)

        return recorder.run(opt, grads, variables, call)

    def _note_raised(self, err: BaseException) -> None:
        """Keep the frame that raised ``err``: Keras' traceback filter may drop it."""
        if self._raised is not None and self._raised[0] is err:
            return  # the innermost wrapper saw it first
        tb = err.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            self._raised = (err, tb)

    def _note_no_gradient(self, opt: Any, variables: list[Any]) -> None:
        opt_name = str(getattr(opt, "name", type(opt).__name__))
        ids = {id(v) for v in variables}
        model = next(
            (
                m
                for m in reversed(self.fit_model_objects)
                if any(id(v) in ids for v in getattr(m, "trainable_variables", []))
            ),
            None,
        )
        loss = getattr(model, "loss", None)
        name = getattr(model, "name", None)
        self.no_gradient_step = NoGradientStep(
            optimizer=opt_name,
            variables=tuple(_variable_meta(v, opt_name) for v in variables),
            loss=loss_name(loss) if loss is not None else None,
            model=str(name) if name else None,
        )

    def _recorder_for(self, opt: Any, variables: Iterable[Any]) -> _Recorder:
        variables = list(variables)
        key = (id(opt), tuple(_variable_key(opt, v) for v in variables))
        with _LOCK:
            recorder = self._recorders.get(key)
            if recorder is None:
                recorder = _Recorder(self, opt, variables)
                self._recorders[key] = recorder
                self._order.append(recorder)
            return recorder


def probe_batch(model: Any, x: Any, y: Any, *, loss: Any = None) -> tuple[CaptureData, str]:
    """One ``training=True`` forward and backward pass; nothing changes in the model.

    Returns the statistics of one record (no update norm: no step is taken)
    and a description of the loss used.
    """
    import keras

    from tfnb_debug.ground.errors import TfnbDebugError

    if loss is None:
        if getattr(model, "loss", None) is None:
            raise TfnbDebugError(
                f"model '{getattr(model, 'name', '?')}' is not compiled with a loss: compile it "
                "or pass one (`%tfgrad MODEL X Y --loss sparse_categorical_crossentropy`)"
            )
        loss_fn = None
        described = f"the compiled loss ({_loss_name(model.loss)})"
    else:
        try:
            loss_fn = keras.losses.get(loss) if isinstance(loss, str) else loss
        except ValueError:
            raise TfnbDebugError(
                f"unknown loss {loss!r}: give a Keras loss name such as "
                "'sparse_categorical_crossentropy', a function or a keras.losses.Loss"
            ) from None
        if not callable(loss_fn):
            raise TfnbDebugError(
                f"the loss must be a Keras loss name, a function or a keras.losses.Loss, "
                f"got {type(loss).__name__}: e.g. --loss sparse_categorical_crossentropy"
            )
        described = _loss_name(loss)
    build_from_data(model, x)  # a model without an Input, as its first fit would build it
    variables = list(model.trainable_variables)
    if not variables:
        raise TfnbDebugError(f"model '{getattr(model, 'name', '?')}' has no trainable variables")
    with preserved(model, rng=False):
        try:
            with tf.GradientTape() as tape:
                y_pred = model(x, training=True)
                if loss_fn is None:
                    value = model.compute_loss(x=x, y=y, y_pred=y_pred, training=True)
                else:
                    value = tf.reduce_mean(loss_fn(y, y_pred))
                    if model.losses:
                        value = value + tf.add_n([tf.cast(v, value.dtype) for v in model.losses])
        except TfnbDebugError:
            raise
        except Exception as err:
            first = first_line(err)
            raise TfnbDebugError(
                f"the forward pass of model '{getattr(model, 'name', '?')}' on X/Y failed: "
                f"{type(err).__name__}: {first}"
            ) from None
        grads = tape.gradient(value, variables)
        opt_name = str(getattr(getattr(model, "optimizer", None), "name", "-"))
        meta = tuple(_variable_meta(v, opt_name) for v in variables)
        n = len(variables)
        stats = np.full((1, n, len(STAT_COLUMNS)), np.nan, dtype=np.float32)
        hist = np.zeros((1, n, HIST_BINS), dtype=np.float32)
        present = [i for i, g in enumerate(grads) if g is not None]
        none = [meta[i].path for i, g in enumerate(grads) if g is None]
        rows, counts = gradient_stats(
            [tf.convert_to_tensor(grads[i]) for i in present],
            [_read(variables[i]) for i in present],
            None,
        )
        stats[0, present] = rows.numpy()
        hist[0, present] = counts.numpy()
        loss_value = float(tf.cast(value, tf.float32).numpy())
    data = CaptureData(
        variables=meta,
        steps=np.zeros(1, dtype=np.int64),
        loss=np.array([loss_value]),
        loss_known=np.array([True]),
        stats=stats,
        hist=hist,
        no_gradient=tuple(none),
        total_steps=0,
        replicas=1,
        loss_scaled_by=(),
    )
    return data, described


def _loss_name(loss: Any) -> str:
    return loss_name(loss)
