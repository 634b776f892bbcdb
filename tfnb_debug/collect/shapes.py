"""Record every Keras layer call (shapes, dtypes, producers, statistics) while a block runs.

:class:`ShapeCollector` is a layer-call hook for
:func:`tfnb_debug.collect._patching.layer_call_hook`.  It keeps no tensors after
a call returns (producers are found through weak references);
:func:`tfnb_debug.collect.shape_rows.rows_of` turns what it saw into plain
:class:`~tfnb_debug.records.shapes.LayerCall` rows.

Statistics of eager outputs are reduced where the tensor lives: with NumPy
on a view of the buffer for CPU tensors (the host is that device), with
TensorFlow ops for accelerator tensors, whose six scalars stay on the device
until one transfer at the end of the trace (both in
:mod:`tfnb_debug.collect.tensor_stats`).
What the collector reads around a call (the tensors among its arguments, who
made them, an enclosing ``Sequential.build``) is in
:mod:`tfnb_debug.collect.layer_call_context`.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnb_debug.collect._patching import TraceCounts
from tfnb_debug.collect.layer_call_context import (
    _activation_name,
    _children_by_name,
    _flatten,
    _graph_producers,
    _history_producer,
    _in_symbolic_scope,
    _is_tensor,
    _made_by_a_layer,
    _replicas_here,
    _runs_as_cell_of,
    _same_values,
    _segment_of,
    _sequential_build_frame,
    _shape,
)
from tfnb_debug.collect.tensor_stats import (
    _RECTIFYING,
    _SATURATING,
    _count_nonfinite,
    _device_stats,
    _on_accelerator,
    _stats_from_vector,
    host_stats,
)
from tfnb_debug.ground.text import key_sentence
from tfnb_debug.records.shapes import Mode, TensorInfo, TensorStats, TraceCount

__all__ = ["ShapeCollector"]

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
