"""Record every Keras layer call (shapes, dtypes, producers, statistics) while a block runs.

:class:`ShapeCollector` is a layer-call hook for
:func:`tfnb_debug.collect._patching.layer_call_hook`.  It keeps no tensors after
a call returns (producers are found through weak references) and turns what
it saw into plain :class:`~tfnb_debug.records.shapes.LayerCall` rows.

Statistics of eager outputs are reduced where the tensor lives: with NumPy
on a view of the buffer for CPU tensors (the host is that device), with
TensorFlow ops for accelerator tensors, whose six scalars stay on the device
until one transfer at the end of the trace.
"""

from __future__ import annotations

import contextlib
import math
import sys
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnb_debug.collect._patching import TraceCounts
from tfnb_debug.collect.keras_access import all_sublayers, direct_sublayers
from tfnb_debug.ground.text import key_sentence
from tfnb_debug.records.shapes import LayerCall, Mode, Shape, TensorInfo, TensorStats, TraceCount

__all__ = ["ShapeCollector"]

_SATURATING = {"sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0), "hard_sigmoid": (0.0, 1.0)}
#: activations whose outputs get a count of dead units (zero for every example)
_RECTIFYING = frozenset({"relu", "relu6"})
_SKIP_KWARGS = frozenset({"training", "mask"})


@dataclass
class _Open:
    """A call in progress (mutable, internal)."""

    index: int
    layer: Any
    path: str
    depth: int
    parent: int | None
    root: int
    call: int
    mode: Mode
    inputs: tuple[TensorInfo, ...]
    activation: str | None
    outputs: tuple[TensorInfo, ...] = ()
    status: str = "ok"
    finished: int = -1
    error: str = ""
    error_type: str = ""
    child_failed: bool = False
    has_children: bool = False
    steps: int = 0  # an RNN layer: the time steps its cell ran (the cell gets no rows)
    device_stats: list[tuple[int, Any, str | None]] = field(default_factory=list)
    data: list[Any] = field(default_factory=list)  # a root call's inputs, while it runs


_MUTE = object()  # stack marker: a repeated root call, recorded once already


@dataclass
class _PendingBuild:
    """A ``Sequential.build`` in progress or finished: its Python frame and the row of the model."""

    build: Any  # the frame of Sequential.build (identity tells one build from the next)
    model: _Open
    start: int
    finished: int


class ShapeCollector:
    """The hook: ``collector(layer, call, args, kwargs)`` records the call and returns its result."""

    def __init__(
        self,
        *,
        stats: bool = True,
        max_calls: int = 20_000,
        repeat_roots: bool = False,
        saturation_epsilon: float = 1e-3,
    ) -> None:
        self.stats = stats
        self.saturation_epsilon = saturation_epsilon
        self.max_calls = max_calls
        self.repeat_roots = repeat_roots
        self.calls: list[_Open] = []
        self.repeats: dict[str, int] = {}
        self.truncated = False
        self.traces = TraceCounts()
        self._stack: list[Any] = []
        self._producers: dict[int, tuple[Any, int, str]] = {}
        self._call_counts: dict[int, int] = {}
        self._root_keys: set[tuple[Any, ...]] = set()
        self._finished = 0
        self._paths: dict[tuple[int, int], str] = {}
        self._children: dict[int, dict[str, list[Any]]] = {}
        self._layers: dict[int, Any] = {}
        self._dtype_names: dict[Any, str] = {}
        self._pending_build: _PendingBuild | None = None
        #: the rows of outermost calls made inside a replica of a tf.distribute strategy with
        #: more than one replica (``strategy.run``, ``fit``): their shapes are per replica
        self.replica_roots: set[int] = set()

    # ----------------------------------------------------------------- the hook
    def __call__(
        self, layer: Any, call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        __tracebackhide__ = True
        parent = self._stack[-1] if self._stack else None
        if parent is _MUTE:
            return call(*args, **kwargs)
        if parent is not None and _runs_as_cell_of(layer, parent.layer):
            parent.steps += 1  # one row per RNN layer, its cell's steps folded into it
            return self._muted(call, args, kwargs)
        tensors = self._input_tensors(args, kwargs)
        mode = self._mode(tensors)
        if parent is None:
            if mode == "symbolic" and _in_symbolic_scope():
                # Keras inferring shapes: not a call of the user's
                return call(*args, **kwargs)
            build = _sequential_build_frame() if mode == "symbolic" else None
            if build is not None:
                return self._sequential_build_call(build, layer, call, args, kwargs, tensors)
            self._drop_finished_build()
            if len(self.calls) >= self.max_calls:
                self.truncated = True
                return self._muted(call, args, kwargs)
            if not self.repeat_roots and mode != "symbolic":
                key = (id(layer), mode, tuple(self._signature(t) for t in tensors))
                if key in self._root_keys:
                    name = getattr(layer, "name", "?")
                    self.repeats[name] = self.repeats.get(name, 0) + 1
                    return self._muted(call, args, kwargs)
                self._root_keys.add(key)
        frame = self._open(layer, parent, mode, tensors)
        self._stack.append(frame)
        try:
            outputs = call(*args, **kwargs)
        except BaseException as err:
            self._fail(frame, err)
            raise
        finally:
            self._stack.pop()
        self._close(frame, outputs)
        return outputs

    def _sequential_build_call(
        self,
        build: Any,
        layer: Any,
        call: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        tensors: list[Any],
    ) -> Any:
        """A layer called by ``Sequential.build`` (in the constructor, ``add()`` or ``build()``).

        Keras rebuilds a Sequential's graph on every ``add()``, so a build that
        succeeds is dropped (like any build pass); one that raises keeps its
        rows under a row for the Sequential, so the table and S01 show the
        failing layer, what it received and which layer produced it.
        """
        __tracebackhide__ = True
        pending = self._pending_build
        if pending is None or pending.build is not build:
            self._drop_finished_build()
            start, finished = len(self.calls), self._finished
            model = self._open(build.f_locals["self"], None, "symbolic", tensors)
            pending = self._pending_build = _PendingBuild(build, model, start, finished)
        self._stack.append(pending.model)
        try:
            return self(layer, call, args, kwargs)
        except BaseException as err:
            if isinstance(err, NotImplementedError):  # Sequential.build swallows it and stops
                self._drop_finished_build()
                raise
            self._fail(pending.model, err)
            self._pending_build = None  # the rows stay: they show where the build failed
            raise
        finally:
            self._stack.pop()

    def _drop_finished_build(self) -> None:
        """Forget the rows of a Sequential build that finished without an error."""
        pending, self._pending_build = self._pending_build, None
        if pending is not None:
            self._forget_rows(pending.start, pending.finished)

    def _forget_rows(self, start: int, finished: int) -> None:
        for frame in self.calls[start:]:
            self._call_counts[id(frame.layer)] -= 1
        del self.calls[start:]
        self._finished = finished
        self._producers = {k: v for k, v in self._producers.items() if v[1] < start}

    def finish(self) -> None:
        """End of the recording: drop a pending Sequential build that succeeded."""
        self._drop_finished_build()

    @contextlib.contextmanager
    def build_pass(self, layer: Any) -> Iterator[None]:
        """Keras building ``layer`` by calling it symbolically: keep those rows only if it raises."""
        start = len(self.calls)
        parent = self._stack[-1] if self._stack else None
        saved = (parent.has_children, parent.child_failed) if isinstance(parent, _Open) else None
        finished = self._finished
        yield  # an exception propagates: the rows stay and show where the build failed
        if len(self.calls) == start:
            return
        self._forget_rows(start, finished)
        if isinstance(parent, _Open) and saved is not None:
            parent.has_children, parent.child_failed = saved

    def _muted(self, call: Callable[..., Any], args: Any, kwargs: Any) -> Any:
        __tracebackhide__ = True
        self._stack.append(_MUTE)
        try:
            return call(*args, **kwargs)
        finally:
            self._stack.pop()

    # -------------------------------------------------------------- tf.function
    def on_trace(self, name: str, function: Any, signature: str) -> None:
        """A :data:`~tfnb_debug.collect._patching.TraceHook`: count traces per tf.function."""
        self.traces.add(name, function, signature)

    def trace_counts(self) -> tuple[TraceCount, ...]:
        return tuple(
            TraceCount(name=name, traces=len(signatures), signatures=signatures)
            for name, signatures in self.traces.entries()
        )

    # --------------------------------------------------------------- internals
    def _open(self, layer: Any, parent: _Open | None, mode: Mode, tensors: list[Any]) -> _Open:
        index = len(self.calls)
        lid = id(layer)
        self._layers[lid] = layer
        count = self._call_counts.get(lid, 0)
        self._call_counts[lid] = count + 1
        if parent is None:
            path, depth, root = str(layer.name), 0, index
            if _replicas_here() > 1:
                self.replica_roots.add(index)
        else:
            parent.has_children = True
            path = f"{parent.path}/{self._segment(parent.layer, layer)}"
            depth, root = parent.depth + 1, parent.root
        if parent is None:
            for t in tensors:  # the data given to the traced layer, unless a recorded call made it
                if not self._known(t) and not _made_by_a_layer(t):
                    self._remember(t, -1, "input")
        inputs = tuple(self._input_info(t, mode) for t in tensors)
        if mode != "symbolic" and any(info.producer is None for info in inputs):
            inputs = self._unrecorded_producers(layer, parent, tensors, inputs)
        frame = _Open(
            index=index,
            layer=layer,
            path=path,
            depth=depth,
            parent=None if parent is None else parent.index,
            root=root,
            call=count,
            mode=mode,
            inputs=inputs,
            activation=_activation_name(layer),
        )
        if parent is None and mode == "eager":
            frame.data = list(tensors)  # for _unrecorded_producers; dropped when the call ends
        self.calls.append(frame)
        return frame

    def _unrecorded_producers(
        self,
        layer: Any,
        parent: _Open | None,
        tensors: list[Any],
        inputs: tuple[TensorInfo, ...],
    ) -> tuple[TensorInfo, ...]:
        """Name what made inputs no recorded layer call made.

        In a Functional graph (also a Sequential's) the node Keras is running
        says which operation made each input: the model's Input (NumPy data
        converted on entry) or a Keras op such as ``keras.ops.add``.  Elsewhere
        (a subclassed model), an eager input equal to the data given to the
        model is that data after Keras converted it.
        """
        graph = _graph_producers(layer)
        root = self.calls[parent.root] if parent is not None else None
        data = root.data if root is not None else []
        named = []
        for t, info in zip(tensors, inputs, strict=True):
            producer = info.producer
            if producer is None:
                producer = graph.get(id(t))
            if producer is None and any(_same_values(t, d) for d in data):
                producer = "input"
            named.append(info if producer is None else replace(info, producer=producer))
        return tuple(named)

    def _close(self, frame: _Open, outputs: Any) -> None:
        frame.data = []
        self._finished += 1
        frame.finished = self._finished
        flat = [t for t in _flatten(outputs) if _is_tensor(t)]
        infos = []
        for position, t in enumerate(flat):
            stats = None
            if frame.mode == "eager" and self.stats:
                stats = self._stats(frame, position, t)
            info = TensorInfo(shape=_shape(t), dtype=self._dtype(t), stats=stats)
            inner = self._producers.get(id(t)) if frame.has_children else None
            if inner is not None and inner[0]() is t and inner[1] > frame.index:
                # a model (or block) returning what one of its layers returned
                info = replace(info, producer=inner[2], producer_index=inner[1])
            infos.append(info)
            self._remember(t, frame.index, frame.path)
        frame.outputs = tuple(infos)

    def _fail(self, frame: _Open, err: BaseException) -> None:
        frame.data = []
        self._finished += 1
        frame.finished = self._finished
        if frame.child_failed:
            frame.status = "aborted"
        else:
            frame.status = "failed"
            frame.error = key_sentence(str(err)) or type(err).__name__
            frame.error_type = type(err).__name__
        if frame.parent is not None:
            self.calls[frame.parent].child_failed = True

    def _segment(self, parent_layer: Any, layer: Any) -> str:
        key = (id(parent_layer), id(layer))
        segment = self._paths.get(key)
        if segment is None:
            children = self._children.get(id(parent_layer))
            if children is None:
                children = self._children[id(parent_layer)] = _children_by_name(parent_layer)
            segment = _segment_of(children, layer)
            self._paths[key] = segment
        return segment

    def _input_tensors(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if len(args) == 1 and _is_tensor(args[0]):
            tensors = [args[0]]
        else:
            tensors = [t for t in _flatten(args) if _is_tensor(t)]
        for key, value in kwargs.items():
            if key not in _SKIP_KWARGS and value is not None:
                tensors.extend(t for t in _flatten(value) if _is_tensor(t))
        return tensors

    def _mode(self, tensors: list[Any]) -> Mode:
        for t in tensors:
            if isinstance(t, keras.KerasTensor):
                return "symbolic"
        if tf.executing_eagerly():
            return "eager"
        return "symbolic" if _in_symbolic_scope() else "graph"

    def _input_info(self, t: Any, mode: Mode) -> TensorInfo:
        producer: str | None = None
        producer_index: int | None = None
        entry = self._producers.get(id(t))
        if entry is not None and entry[0]() is t:
            producer_index = None if entry[1] < 0 else entry[1]
            producer = entry[2]
        elif isinstance(t, keras.KerasTensor):
            producer = _history_producer(t)
        nonfinite = None
        if mode == "eager" and self.stats and producer_index is None:
            nonfinite = _count_nonfinite(t)
        return TensorInfo(
            shape=_shape(t),
            dtype=self._dtype(t),
            producer=producer,
            producer_index=producer_index,
            nonfinite=nonfinite,
        )

    def _known(self, t: Any) -> bool:
        entry = self._producers.get(id(t))
        return entry is not None and entry[0]() is t

    def _remember(self, t: Any, index: int, path: str) -> None:
        try:
            ref = weakref.ref(t)
        except TypeError:
            return
        self._producers[id(t)] = (ref, index, path)

    def _dtype(self, t: Any) -> str:
        dtype = t.dtype
        try:
            return self._dtype_names[dtype]
        except (KeyError, TypeError):
            pass
        try:
            name = str(keras.backend.standardize_dtype(dtype))
        except Exception:
            name = str(getattr(dtype, "name", dtype))
        with contextlib.suppress(TypeError):
            self._dtype_names[dtype] = name
        return name

    def _signature(self, t: Any) -> tuple[Any, ...]:
        return (_shape(t), self._dtype(t))

    # -------------------------------------------------------------- statistics
    def _stats(self, frame: _Open, position: int, t: Any) -> TensorStats | None:
        saturating = frame.activation if frame.activation in _SATURATING else None
        if frame.activation in _RECTIFYING or (
            frame.activation is None and type(frame.layer).__name__ == "ReLU"
        ):
            saturating = "relu"  # not saturating: the units that never fire are counted
        if not isinstance(t, np.ndarray) and _on_accelerator(t):
            values = _device_stats(t, saturating, self.saturation_epsilon)
            frame.device_stats.append((position, values, saturating))
            return None
        try:
            # np.asarray views a CPU tensor's buffer (read-only); .numpy() would copy it.
            array = t if isinstance(t, np.ndarray) else np.asarray(t)
        except Exception:
            return None
        return host_stats(array, saturating, self.saturation_epsilon)

    def finish_device_stats(self) -> dict[tuple[int, int], TensorStats]:
        """Fetch the statistics computed on accelerators, in one transfer."""
        pending = [
            (frame.index, position, values, saturating)
            for frame in self.calls
            for position, values, saturating in frame.device_stats
        ]
        for frame in self.calls:
            frame.device_stats = []
        if not pending:
            return {}
        with tf.device("/cpu:0"):
            stacked = tf.stack([tf.identity(values) for _, _, values, _ in pending]).numpy()
        result = {}
        for (index, position, _, saturating), row in zip(pending, stacked, strict=True):
            result[(index, position)] = _stats_from_vector(row, saturating)
        return result


# ------------------------------------------------------------------ statistics
def host_stats(
    array: np.ndarray, saturating: str | None = None, epsilon: float = 1e-3
) -> TensorStats | None:
    """Statistics of a host array (a zero-copy view of a CPU tensor).

    Five passes (sum, dot, min, max, a count of zeros);
    the NaN/Inf count is taken only when the sums say there is one.
    ``saturating`` names a sigmoid/tanh (the share near its bounds is counted) or
    is ``"relu"`` (the units of the last axis that are zero throughout are counted).
    """
    if array.dtype.kind not in "fiubV" and "float" not in str(array.dtype):
        return None
    flat = np.asarray(array).reshape(-1)
    if flat.dtype != np.float32 and flat.dtype != np.float64:
        flat = flat.astype(np.float32)
    count = int(flat.size)
    if count == 0:
        return TensorStats(0, None, None, None, None, 0.0, 0)
    zeros = int(np.count_nonzero(flat == 0))  # 3x faster than counting non-zero floats
    total = float(flat.sum(dtype=np.float64)) if count < 4096 else float(flat.sum())
    squares = float(np.dot(flat, flat))
    nonfinite = 0
    values = flat
    if not (math.isfinite(total) and math.isfinite(squares)):
        finite = np.isfinite(flat)
        nonfinite = count - int(np.count_nonzero(finite))
        if nonfinite:
            values = flat[finite]
            total = float(values.sum(dtype=np.float64))
            squares = float(np.dot(values.astype(np.float64), values.astype(np.float64)))
    saturated = None
    dead = units = None
    if saturating == "relu":
        if array.ndim >= 2 and array.shape[-1]:
            units = int(array.shape[-1])
            dead = units - int(np.count_nonzero(np.any(flat.reshape(-1, units) != 0, axis=0)))
    elif saturating is not None:
        low, high = _SATURATING[saturating]
        near = np.count_nonzero(flat <= low + epsilon) + np.count_nonzero(flat >= high - epsilon)
        saturated = float(near) / count
    n = int(values.size)
    if n == 0:
        return TensorStats(
            count, None, None, None, None, zeros / count, nonfinite, saturated, dead, units
        )
    mean = total / n
    variance = max(squares / n - mean * mean, 0.0)
    return TensorStats(
        count=count,
        mean=mean,
        std=math.sqrt(variance),
        min=float(values.min()),
        max=float(values.max()),
        zero_fraction=zeros / count,
        nonfinite=nonfinite,
        saturated_fraction=saturated,
        dead_units=dead,
        units=units,
    )


def _device_stats(t: Any, saturating: str | None, epsilon: float) -> Any:
    """Ten float32 scalars reduced on the tensor's own device (no host transfer here)."""
    with tf.device(t.device):
        dead = units = tf.constant(-1.0)
        if saturating == "relu" and t.shape.rank is not None and t.shape.rank >= 2:
            columns = tf.reshape(tf.cast(t, tf.float32), [-1, tf.shape(t)[-1]])
            alive = tf.reduce_any(tf.not_equal(columns, 0.0), axis=0)
            units = tf.cast(tf.size(alive), tf.float32)
            dead = units - tf.reduce_sum(tf.cast(alive, tf.float32))
        x = tf.reshape(tf.cast(t, tf.float32), [-1])
        n = tf.cast(tf.size(x), tf.float32)
        finite = tf.math.is_finite(x)
        nf = tf.cast(finite, tf.float32)
        count_finite = tf.reduce_sum(nf)
        safe = tf.where(finite, x, tf.zeros_like(x))
        mean = tf.math.divide_no_nan(tf.reduce_sum(safe), count_finite)
        var = tf.math.divide_no_nan(tf.reduce_sum(tf.square(safe - mean) * nf), count_finite)
        big = tf.constant(np.finfo(np.float32).max, tf.float32)
        low = tf.reduce_min(tf.where(finite, x, big))
        high = tf.reduce_max(tf.where(finite, x, -big))
        zeros = tf.reduce_sum(tf.cast(tf.equal(x, 0.0), tf.float32))
        if saturating in _SATURATING:
            lo, hi = _SATURATING[saturating]
            near = (x <= lo + epsilon) | (x >= hi - epsilon)
            sat = tf.reduce_sum(tf.cast(near, tf.float32))
        else:
            sat = tf.constant(-1.0)
        return tf.stack(
            [n, mean, tf.sqrt(var), low, high, zeros, n - count_finite, sat, dead, units]
        )


def _stats_from_vector(row: np.ndarray, saturating: str | None) -> TensorStats:
    n = int(row[0])
    nonfinite = int(row[6])
    has_values = n - nonfinite > 0
    return TensorStats(
        count=n,
        mean=float(row[1]) if has_values else None,
        std=float(row[2]) if has_values else None,
        min=float(row[3]) if has_values else None,
        max=float(row[4]) if has_values else None,
        zero_fraction=float(row[5]) / n if n else 0.0,
        nonfinite=nonfinite,
        saturated_fraction=(
            (float(row[7]) / n if n else 0.0) if saturating in _SATURATING else None
        ),
        dead_units=int(row[8]) if row[9] > 0 else None,
        units=int(row[9]) if row[9] > 0 else None,
    )


def _count_nonfinite(t: Any) -> int | None:
    try:
        if isinstance(t, np.ndarray):
            array = t
        elif _on_accelerator(t):
            return int(tf.size(t)) - int(tf.math.count_nonzero(tf.math.is_finite(t)))
        else:
            array = t.numpy()
        if array.dtype.kind not in "fc" and "float" not in str(array.dtype):
            return 0
        flat = np.asarray(array, dtype=np.float32) if array.dtype.itemsize < 4 else array
        return int(flat.size - np.count_nonzero(np.isfinite(flat)))
    except Exception:
        return None


def _on_accelerator(t: Any) -> bool:
    device = getattr(t, "device", "") or ""
    return "CPU" not in device.upper()


# -------------------------------------------------------------------- helpers
def _flatten(value: Any) -> list[Any]:
    if _is_tensor(value):
        return [value]
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return []
    try:
        return list(keras.tree.flatten(value))
    except Exception:
        return []


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (str, bytes))


def _shape(t: Any) -> Shape | None:
    try:
        return tuple(None if d is None else int(d) for d in t.shape)
    except (TypeError, ValueError):
        return None


def _activation_name(layer: Any) -> str | None:
    fn = getattr(layer, "activation", None)
    if fn is None or not callable(fn):
        return None
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return str(name).lower()


def _policy_name(layer: Any) -> str:
    policy = getattr(layer, "dtype_policy", None)
    return str(getattr(policy, "name", "") or "")


def _replicas_here() -> int:
    """The replicas of the strategy whose replica context this call runs in (1: none)."""
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return 1
    context = tf.distribute.get_replica_context()
    return int(context.num_replicas_in_sync) if context is not None else 1


def _in_symbolic_scope() -> bool:
    from tfnb_debug.collect.keras_access import in_symbolic_scope

    return bool(in_symbolic_scope())


def _history_producer(t: Any) -> str | None:
    """Who made a symbolic tensor: ``input``, a layer's name, or a Keras op (``add (keras op)``)."""
    history = getattr(t, "_keras_history", None)
    op = getattr(history, "operation", None)
    if op is None:
        return None
    if type(op).__name__ == "InputLayer":
        return "input"
    name = str(getattr(op, "name", "") or "")
    if not name:
        return None
    return name if isinstance(op, keras.layers.Layer) else f"{name} (keras op)"


def _caller_running(code: Any, depth: int, limit: int = 12) -> Any:
    """The nearest frame running ``code`` within ``limit`` frames above ``depth``, or None."""
    frame = sys._getframe(depth + 1)
    for _ in range(limit):
        if frame is None:
            return None
        if frame.f_code is code:
            return frame
        frame = frame.f_back  # type: ignore[assignment]
    return None


def _graph_producers(layer: Any) -> dict[int, str]:
    """In a Functional graph being run, ``id(input tensor) -> producer`` for ``layer``'s node."""
    from tfnb_debug.collect.keras_access import Function

    frame = _caller_running(Function._run_through_graph.__code__, depth=2)
    if frame is None:
        return {}
    node = frame.f_locals.get("node")
    values = frame.f_locals.get("tensor_dict")
    if node is None or values is None or getattr(node, "operation", None) is not layer:
        return {}
    out = {}
    for symbolic in node.input_tensors:
        actual = values.get(id(symbolic))
        producer = _history_producer(symbolic)
        if actual is not None and producer is not None:
            out[id(actual)] = producer
    return out


def _same_values(t: Any, data: Any) -> bool:
    """Whether tensor ``t`` holds exactly ``data`` (after Keras converted it to ``t``'s dtype)."""
    if t is data or _shape(t) != _shape(data):
        return t is data
    try:
        a = np.asarray(t)
        b = np.asarray(data)
        if a.dtype != b.dtype:
            b = b.astype(a.dtype)
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    except Exception:
        return False


def _sequential_build_frame() -> Any:
    """The frame of ``Sequential.build`` (which calls every layer to make its graph), if on the stack."""
    from tfnb_debug.collect.keras_access import Sequential

    return _caller_running(Sequential.build.__code__, depth=1)


def child_segment(parent: Any, layer: Any) -> str:
    """The path segment of ``layer`` below ``parent``: its name, ``name#k`` for the k-th namesake."""
    return _segment_of(_children_by_name(parent), layer)


def _children_by_name(parent: Any) -> dict[str, list[Any]]:
    children: dict[str, list[Any]] = {}
    for child in direct_sublayers(parent):
        children.setdefault(str(child.name), []).append(child)
    return children


def _segment_of(children: dict[str, list[Any]], layer: Any) -> str:
    name = str(layer.name)
    for k, child in enumerate(children.get(name, ())):
        if child is layer:
            return name if k == 0 else f"{name}#{k + 1}"
    return name


# ----------------------------------------------------------------- finishing
def own_params(layer: Any, recorded: set[int] | None = None) -> tuple[int, int]:
    """(trainable, non-trainable) parameters of ``layer``'s weights that no recorded sublayer owns.

    ``recorded`` holds the ids of the layers that have rows of their own;
    a sublayer without one (the layer inside ``TimeDistributed``, which calls
    its ``call`` directly) is counted here, in its wrapper's row, so the
    column still sums to ``model.count_params()``.  Without ``recorded``
    every sublayer counts as recorded.
    """
    sub_ids: set[int] = set()
    for sub in all_sublayers(layer):
        if recorded is None or id(sub) in recorded:
            sub_ids.update(id(v) for v in getattr(sub, "weights", ()))
    trainable = sum(_size(v) for v in _weights(layer, "trainable_weights") if id(v) not in sub_ids)
    frozen = sum(_size(v) for v in _weights(layer, "non_trainable_weights") if id(v) not in sub_ids)
    return trainable, frozen


def _weights(layer: Any, attr: str) -> list[Any]:
    try:
        return list(getattr(layer, attr))
    except Exception:
        return []


def _size(variable: Any) -> int:
    n = 1
    for d in variable.shape:
        n *= int(d)
    return n


def rows_of(collector: ShapeCollector) -> tuple[LayerCall, ...]:
    """Turn what the collector saw into frozen rows (parameters on each layer's first call)."""
    collector.finish()
    device = collector.finish_device_stats()
    seen: set[int] = set()
    recorded = {id(frame.layer) for frame in collector.calls}
    rows = []
    for frame in collector.calls:
        lid = id(frame.layer)
        trainable: int | None = None
        frozen: int | None = None
        if lid not in seen:
            seen.add(lid)
            trainable, frozen = own_params(frame.layer, recorded)
        outputs = frame.outputs
        if device:
            outputs = tuple(
                TensorInfo(
                    shape=o.shape,
                    dtype=o.dtype,
                    stats=device.get((frame.index, i), o.stats),
                )
                for i, o in enumerate(outputs)
            )
        rows.append(
            LayerCall(
                index=frame.index,
                path=frame.path,
                name=str(frame.layer.name),
                class_name=type(frame.layer).__name__,
                depth=frame.depth,
                parent=frame.parent,
                root=frame.root,
                call=frame.call,
                mode=frame.mode,
                inputs=frame.inputs,
                outputs=outputs,
                trainable_params=trainable,
                non_trainable_params=frozen,
                status="ok" if frame.status == "ok" else frame.status,  # type: ignore[arg-type]
                finished=frame.finished,
                activation=frame.activation,
                error=frame.error,
                error_type=frame.error_type,
                is_model=isinstance(frame.layer, keras.Model),
                has_children=frame.has_children,
                steps=_time_steps(frame),
                policy=_policy_name(frame.layer),
                compute_dtype=str(getattr(frame.layer, "compute_dtype", "") or ""),
            )
        )
    return tuple(rows)


def _time_steps(frame: _Open) -> int:
    """An RNN row's time steps: the input's time axis (Keras calls the cell once more than
    that, to build it), else the number of cell calls seen; 0 for any other layer."""
    if not frame.steps:
        return 0
    shape = frame.inputs[0].shape if frame.inputs else None
    axis = 0 if getattr(frame.layer, "time_major", False) else 1
    length = shape[axis] if shape is not None and len(shape) >= 3 else None
    return length if isinstance(length, int) else frame.steps


def _runs_as_cell_of(layer: Any, owner: Any) -> bool:
    """``layer`` is the cell an RNN layer (LSTM, GRU, ``keras.layers.RNN``) runs once per step."""
    cell = getattr(owner, "cell", None)
    if cell is None or not hasattr(owner, "return_sequences"):
        return False
    return layer is cell or any(layer is c for c in getattr(cell, "cells", ()) or ())


def _made_by_a_layer(t: Any) -> bool:
    """A symbolic tensor built by a layer before the trace began (e.g. in an earlier cell).

    Its ``_keras_history`` names that layer, so it must not be labelled as the model's input.
    """
    history = getattr(t, "_keras_history", None)
    operation = getattr(history, "operation", None)
    return operation is not None and type(operation).__name__ != "InputLayer"
