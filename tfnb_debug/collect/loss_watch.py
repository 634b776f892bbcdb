"""Watch what reaches the loss while a training cell runs (S08, and M02/M03 in custom code).

Two instruments, both installed by :func:`watch_losses` and removed in its
``finally`` (also on exceptions and ``KeyboardInterrupt``):

* **A TensorFlow op callback** (the mechanism behind
  ``tf.debugging.enable_check_numerics``).  It sees every op as it runs eagerly
  and every op a ``tf.function`` adds while it is traced, so a compiled
  ``fit`` pays for it once per trace, not per step.  It records

  - a binary elementwise op (``y - y_pred``, ``tf.square``'s
    ``SquaredDifference``, ...) run outside any Keras layer call whose
    operands have shapes ``s`` and ``s + (1,)``, so that broadcasting turns
    ``(B,)`` and ``(B, 1)`` into ``(B, B)``: every prediction is compared with
    every target (S08).  When both operands are views of one tensor
    (``x[:, None] - x``, a deliberate pairwise difference as in ranking
    losses) nothing is recorded;
  - a ``Softmax`` or softmax cross-entropy over a class axis of size 1 (M03);
  - where each ``Softmax`` over more than one unit ran (the layer, or the user's
    line), keyed by its output tensor, so a binary cross-entropy that receives
    those values can name the softmax (M03).

* **Keras' cross-entropy backend functions** (``categorical_crossentropy``,
  ``sparse_categorical_crossentropy`` and ``binary_crossentropy`` of the
  TensorFlow backend, which every ``keras.losses`` class and function and
  ``keras.ops`` reach) are wrapped at module level.  Each call records
  ``from_logits``, the size of the class axis and, for probabilities, the
  range of the values that reached it, how far their rows are from summing to 1
  (for a categorical loss, and for a binary one over several units: a softmax's
  rows sum to 1), and for a binary one the fewest and most 1s per row of 0/1
  targets (read at once when eager; in a ``tf.function`` through
  ``tf.Variable`` s updated inside the graph, XLA safe, read when the watch ends).  Calls made by a compiled loss
  (``model.compile(loss=...)``) are marked as such: the compile-time rules
  already read that configuration.

The facts are plain values; :mod:`tfnb_debug.diagnostics.losses` turns them
into findings.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import sysconfig
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BroadcastFact", "CrossEntropyFact", "LossWatch", "nothing_watched", "watch_losses"]

#: binary elementwise ops whose broadcasting S08 watches
_BINARY_OPS = frozenset(
    {
        "Sub",
        "SquaredDifference",
        "AddV2",
        "Add",
        "Mul",
        "RealDiv",
        "DivNoNan",
        "Maximum",
        "Minimum",
        "Pow",
    }
)
#: ops that only reshape or view a tensor: a broadcast between two views of one root is deliberate
_VIEW_OPS = frozenset(
    {"ExpandDims", "Reshape", "StridedSlice", "Squeeze", "Identity", "Cast", "Transpose"}
)
_SOFTMAX_CE_OPS = frozenset(
    {"SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"}
)
_WATCHED_OPS = _BINARY_OPS | _VIEW_OPS | _SOFTMAX_CE_OPS | {"Softmax"}
_CE_FUNCTIONS = (
    "categorical_crossentropy",
    "sparse_categorical_crossentropy",
    "binary_crossentropy",
)

Shape = tuple[int | None, ...]


@dataclass(frozen=True)
class BroadcastFact:
    """A loss-like op that broadcast ``(..., N)`` against ``(..., N, 1)`` into ``(..., N, N)``."""

    op: str
    shapes: tuple[Shape, Shape]
    result: Shape
    where: str
    loss: str | None
    count: int = 1  # eager calls; 0 when only seen while a tf.function was traced


@dataclass(frozen=True)
class CrossEntropyFact:
    """What reached one cross-entropy call site: its settings and the range of its input.

    ``targets``: the fewest and most 1s per row of the targets of a binary loss over
    several units, when every target was 0 or 1; ``producer``: where the ``Softmax``
    that made the values ran (``layer 'tags'`` or the user's line), when one did."""

    function: str
    where: str
    loss: str | None
    from_logits: bool
    classes: int | None
    low: float | None
    high: float | None
    row_sum_error: float | None
    compiled: bool
    count: int = 1
    targets: tuple[int, int] | None = None
    producer: str | None = None


@dataclass
class LossWatch:
    """The handle :func:`watch_losses` yields; the facts are complete when the block ends."""

    broadcasts: list[BroadcastFact] = field(default_factory=list)
    cross_entropies: list[CrossEntropyFact] = field(default_factory=list)
    softmax_single_unit: list[str] = field(default_factory=list)


def nothing_watched(losses: LossWatch | None) -> bool:
    """Whether the watch saw nothing that a finding could come from.

    Its facts come from tracing: a train function kept for a later cell (and
    not traced again there) may be kept only then.
    """
    if losses is None:
        return False
    return (
        not losses.broadcasts
        and not losses.softmax_single_unit
        and all(fact.compiled for fact in losses.cross_entropies)
    )


# -- where a call came from ------------------------------------------------------


def _package_dirs() -> tuple[str, ...]:
    import keras
    import tensorflow as tf

    dirs = [os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep]
    package = os.path.join(os.path.dirname(os.path.dirname(__file__)), "__init__.py")
    for path in (getattr(tf, "__file__", None), getattr(keras, "__file__", None), package):
        if path:
            dirs.append(os.path.dirname(os.path.realpath(path)) + os.sep)
    return tuple(dirs)


@dataclass(frozen=True)
class _Caller:
    where: str
    loss: str | None
    compiled: bool
    layer: str | None


def _caller(skip_dirs: tuple[str, ...]) -> _Caller:
    """The user's line (or traced function) that made this call, the Keras loss it is in, if any.

    Frames of TensorFlow, Keras, tfnb_debug and the standard library are told
    apart by the directories those packages are installed in, never by a name
    in the path (a user's folder may well be called ``tfnb_debug``).
    """
    from tfnb_debug.collect.keras_access import Layer, Loss

    frame: Any = sys._getframe(1)
    loss: str | None = None
    layer: str | None = None
    compiled = False
    where = ""
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        owner = frame.f_locals.get("self") if "self" in code.co_varnames[:1] else None
        if loss is None and isinstance(owner, Loss):
            loss = f"{type(owner).__name__} '{owner.name}'"
        if layer is None and isinstance(owner, Layer):
            layer = str(owner.name)
        if filename.endswith(os.path.join("trainers", "compile_utils.py")):
            compiled = True
        if "__autograph_generated_file" in filename:
            name = code.co_name.removeprefix("tf__")
            where = where or f"{name} (traced by tf.function)"
        elif not os.path.realpath(filename).startswith(skip_dirs) and not where:
            where = _line_of(frame)
        if where:  # the loss, the layer and the compiled loss are all called inside it
            break
        frame = frame.f_back
    return _Caller(where or "an unknown place", loss, compiled, layer)


def _line_of(frame: Any) -> str:
    import linecache

    code = frame.f_code
    line = linecache.getline(code.co_filename, frame.f_lineno).strip()
    place = f"{_code_name(code.co_filename)}, line {frame.f_lineno}"
    if code.co_name not in ("<module>", ""):
        place += f" in {code.co_name}"
    return f"{place}: {line}" if line else place


def _code_name(filename: str) -> str:
    """``Cell In[5]`` for a notebook cell (as IPython's tracebacks name it), else the file name."""
    shell = sys.modules.get("IPython")
    ip = shell.get_ipython() if shell is not None else None
    with contextlib.suppress(Exception):
        label = ip.compile.format_code_name(filename) if ip is not None else None
        if label:
            return " ".join(label)
    return filename


# -- the op callback -----------------------------------------------------------------


def _shape(tensor: Any) -> Shape | None:
    fast = getattr(tensor, "_shape_tuple", None)  # eager tensors: a plain tuple, no TensorShape
    if fast is not None:
        with contextlib.suppress(Exception):
            dims_tuple = fast()
            if dims_tuple is not None:
                return tuple(dims_tuple)
    try:
        dims = tensor.shape
        if dims.rank is None:
            return None
        return tuple(None if d is None else int(d) for d in dims)
    except Exception:
        return None


def _label_vs_column(a: Shape, b: Shape) -> bool:
    """``a`` is ``s`` and ``b`` is ``s + (1,)`` with ``s[-1] != 1``: the (B,) vs (B, 1) signature."""
    return len(a) >= 1 and b == (*a, 1) and a[-1] != 1


class _Watcher:
    """State of one active watch: the facts, and which tensors are views of which."""

    def __init__(self, watch: LossWatch, skip_dirs: tuple[str, ...]) -> None:
        self.watch = watch
        self.skip_dirs = skip_dirs
        # id(tensor) -> (weak reference to that tensor, token of the tensor it views).
        # Tensors are unhashable, so entries are keyed by id() and checked by identity
        # through the weak reference (a reused id never matches); they go when the tensor dies.
        self.tokens: dict[int, tuple[weakref.ref[Any], object]] = {}
        self.broadcasts: dict[tuple[Any, ...], BroadcastFact] = {}
        self.softmax: dict[str, None] = {}
        # id(softmax output) -> (weak reference to it, where the Softmax ran); as ``tokens``
        self.softmax_places: dict[int, tuple[weakref.ref[Any], str]] = {}
        self.sites: dict[tuple[Any, ...], _Site] = {}
        self.pool: _SlotPool | None = None
        self.lock = threading.Lock()

    def token(self, tensor: Any) -> object | None:
        entry = self.tokens.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def set_token(self, tensor: Any, token: object) -> None:
        key = id(tensor)
        tokens = self.tokens

        def forget(_ref: weakref.ref[Any]) -> None:
            tokens.pop(key, None)

        try:
            ref = weakref.ref(tensor, forget)
        except TypeError:
            return
        tokens[key] = (ref, token)

    def remember_softmax(self, tensor: Any, place: str) -> None:
        key = id(tensor)
        places = self.softmax_places

        def forget(_ref: weakref.ref[Any]) -> None:
            places.pop(key, None)

        try:
            places[key] = (weakref.ref(tensor, forget), place)
        except TypeError:
            return

    def softmax_place(self, tensor: Any) -> str | None:
        """Where the Softmax that made ``tensor`` ran, if one did."""
        entry = self.softmax_places.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def view(self, source: Any, result: Any) -> None:
        """``result`` is a reshaped/sliced view of ``source``: both get the same token."""
        token = self.token(source)
        if token is None:
            token = object()
            self.set_token(source, token)
        self.set_token(result, token)

    def on_op(self, op_type: str, inputs: Any, outputs: Any, traced: bool) -> None:
        if _IN_CE.get():
            return
        if op_type in _VIEW_OPS:
            if inputs and outputs and not _inside_layer_call():
                self.view(inputs[0], outputs[0])
            return
        if op_type in _BINARY_OPS:
            if len(inputs) != 2 or not outputs:
                return
            a, b = _shape(inputs[0]), _shape(inputs[1])
            if a is None or b is None or not (_label_vs_column(a, b) or _label_vs_column(b, a)):
                return  # the cheap test first: almost every op ends here
            if _inside_layer_call():
                return
            token = self.token(inputs[0])
            if token is not None and token is self.token(inputs[1]):
                return  # x[:, None] - x: a deliberate pairwise difference
            caller = _caller(self.skip_dirs)
            key = (op_type, a, b, caller.where)
            with self.lock:
                old = self.broadcasts.get(key)
                result = _shape(outputs[0]) or ()
                count = (old.count if old else 0) + (0 if traced else 1)
                self.broadcasts[key] = BroadcastFact(
                    op_type, (a, b), result, caller.where, caller.loss, count
                )
            return
        # Softmax(logits) and (Sparse)SoftmaxCrossEntropyWithLogits(logits, labels)
        if inputs:
            shape = _shape(inputs[0])
            if shape and shape[-1] == 1:
                self.softmax.setdefault(self.op_place(), None)
            elif shape and op_type == "Softmax" and outputs:
                self.remember_softmax(outputs[0], self.op_place())

    def op_place(self) -> str:
        """The layer whose call runs this op, else the user's line (a ``train_step``'s
        ``self`` is a model, but its own ops run outside any layer call)."""
        caller = _caller(self.skip_dirs)
        if caller.layer and _inside_layer_call():
            return f"layer '{caller.layer}'"
        return caller.where


def _inside_layer_call() -> bool:
    from tfnb_debug.collect.keras_access import global_state

    return global_state.get_global_attribute("current_call_ctx") is not None


_ACTIVE: list[_Watcher] = []
_IN_CE: contextvars.ContextVar[bool] = contextvars.ContextVar("tfnb_debug_in_ce", default=False)
_LOCK = threading.RLock()


def _op_callback(
    op_type: Any, inputs: Any, attrs: Any, outputs: Any, op_name: Any = None, graph: Any = None
) -> None:
    # runs for every eager op while a watch is active: reject uninteresting ops first
    kind = op_type.decode() if isinstance(op_type, bytes) else str(op_type)
    if kind not in _WATCHED_OPS or not _ACTIVE:
        return None
    for watcher in list(_ACTIVE):
        # a watch never breaks the user's op; try/except is cheaper than suppress() per op
        try:  # noqa: SIM105
            watcher.on_op(kind, inputs or (), outputs or (), graph is not None)
        except Exception:
            pass
    return None


# -- the cross-entropy wrappers -----------------------------------------------------


#: graph-mode call sites whose value range can be read per watch (slots are made before any trace)
GRAPH_SITES = 16


class _SlotPool:
    """``GRAPH_SITES`` rows of (min, max, largest |row sum - 1|, fewest and most 1s per
    target row, 1.0 once a target was not 0 or 1) in one device variable, made eagerly.

    A ``tf.function`` may not create variables after its first trace, so the
    slots exist before the cell runs; a traced call site takes the next free
    row and its graph folds its values into it (``assign``, XLA safe) every time
    it runs.  One variable, not one per value: making them is part of every cell.
    """

    #: a fresh row: nothing seen (min columns at +inf, max columns at -inf or 0)
    EMPTY = (float("inf"), float("-inf"), 0.0, float("inf"), float("-inf"), 0.0)
    #: the columns folded with a minimum (the others with a maximum)
    MIN_COLUMNS = (True, False, False, True, False, False)

    def __init__(self) -> None:
        import tensorflow as tf

        self.free = list(range(GRAPH_SITES))
        self.table = tf.Variable([list(self.EMPTY)] * GRAPH_SITES, trainable=False)

    def fold(self, i: int, values: list[Any]) -> None:
        """Fold one row of ``values`` (the columns' order, ``EMPTY``'s for what is absent)
        into row ``i``, in the graph being traced."""
        import tensorflow as tf

        table = self.table.read_value()
        new = tf.stack([tf.cast(v, tf.float32) for v in values])
        old = table[i]
        row = tf.where(tf.constant(self.MIN_COLUMNS), tf.minimum(old, new), tf.maximum(old, new))
        self.table.assign(tf.tensor_scatter_nd_update(table, [[i]], row[None]))


class _RangeSlot:
    """min/max (and the largest |row sum - 1|) of one call site's inputs, and the 1s per row
    of its 0/1 targets, eager or in-graph."""

    def __init__(self) -> None:
        self.low: float | None = None
        self.high: float | None = None
        self.row_error: float | None = None
        self.ones: tuple[float, float] | None = None
        self.soft = False
        self.graph_slots: list[tuple[_SlotPool, int, bool, bool]] = []

    def update(
        self, output: Any, rows: bool, axis: int, pool: _SlotPool | None, target: Any = None
    ) -> None:
        """Merge ``output``'s range, its rows' distance from summing to 1 over ``axis``
        (``rows``) and, given a ``target`` of the same shape, its 1s per row."""
        import tensorflow as tf

        values = tf.cast(output, tf.float32)
        low = tf.reduce_min(values)
        high = tf.reduce_max(values)
        row = (
            tf.reduce_max(tf.abs(tf.reduce_sum(values, axis=axis) - 1.0))
            if rows
            else tf.constant(0.0)
        )
        targets = target is not None and _shape(target) == _shape(output)
        if targets:
            t = tf.cast(target, tf.float32)
            ones = tf.reduce_sum(t, axis=-1)
            few, most = tf.reduce_min(ones), tf.reduce_max(ones)
            soft = 1.0 - tf.cast(tf.reduce_all(tf.equal(t, 0.0) | tf.equal(t, 1.0)), tf.float32)
        if tf.executing_eagerly():
            self._merge(float(low), float(high), float(row) if rows else None)
            if targets:
                self._merge_targets(float(few), float(most), bool(soft))
            return
        if pool is None or not pool.free:
            return  # more traced call sites than slots: this one's values are not read
        i = pool.free.pop(0)
        self.graph_slots.append((pool, i, rows, targets))
        empty = _SlotPool.EMPTY
        pool.fold(i, [low, high, row, *((few, most, soft) if targets else empty[3:])])

    def _merge(self, low: float, high: float, row: float | None) -> None:
        self.low = low if self.low is None else min(self.low, low)
        self.high = high if self.high is None else max(self.high, high)
        if row is not None:
            self.row_error = row if self.row_error is None else max(self.row_error, row)

    def _merge_targets(self, few: float, most: float, soft: bool) -> None:
        self.soft = self.soft or soft
        old = self.ones
        self.ones = (few, most) if old is None else (min(old[0], few), max(old[1], most))

    def read(self) -> tuple[float | None, float | None, float | None]:
        tables: dict[int, Any] = {}  # each pool's table read once
        for pool, i, rows, targets in self.graph_slots:
            if id(pool) not in tables:
                tables[id(pool)] = pool.table.numpy()
            lo, hi, row, few, most, soft = (float(v) for v in tables[id(pool)][i])
            if lo <= hi:  # the graph ran at least once
                self._merge(lo, hi, row if rows else None)
                if targets:
                    self._merge_targets(few, most, bool(soft))
        return self.low, self.high, self.row_error

    def target_ones(self) -> tuple[int, int] | None:
        """The fewest and most 1s per row of 0/1 targets (None: none seen, or soft ones)."""
        if self.ones is None or self.soft:
            return None
        return int(self.ones[0]), int(self.ones[1])


@dataclass
class _Site:
    function: str
    where: str
    loss: str | None
    from_logits: bool
    classes: int | None
    compiled: bool
    slot: _RangeSlot
    count: int = 0
    producer: str | None = None


def _wrap_cross_entropy(name: str, original: Any) -> Any:
    def wrapped(
        target: Any, output: Any, from_logits: bool = False, *args: Any, **kwargs: Any
    ) -> Any:
        __tracebackhide__ = True
        watchers = list(_ACTIVE)
        if not watchers or _IN_CE.get():
            return original(target, output, from_logits, *args, **kwargs)
        with contextlib.suppress(Exception):  # a watch must never break the user's loss
            _record_cross_entropy(watchers, name, target, output, bool(from_logits), kwargs, args)
        token = _IN_CE.set(True)
        try:
            return original(target, output, from_logits, *args, **kwargs)
        finally:
            _IN_CE.reset(token)

    wrapped.__wrapped__ = original  # type: ignore[attr-defined]
    wrapped.__name__ = name
    wrapped.__qualname__ = name
    wrapped.__doc__ = original.__doc__
    return wrapped


def _record_cross_entropy(
    watchers: list[_Watcher],
    name: str,
    target: Any,
    output: Any,
    from_logits: bool,
    kwargs: dict[str, Any],
    args: tuple[Any, ...],
) -> None:
    import tensorflow as tf

    binary = name == "binary_crossentropy"
    axis = int(kwargs.get("axis", args[0] if args else -1)) if not binary else -1
    output = tf.convert_to_tensor(output)
    shape = _shape(output)
    classes = shape[axis] if shape else None
    # a binary loss over several units: do its rows sum to 1 (a softmax), what do targets hold
    several = binary and classes is not None and classes > 1
    target = tf.convert_to_tensor(target) if several else None
    for watcher in watchers:
        caller = _caller(watcher.skip_dirs)
        key = (name, caller.where, caller.loss, from_logits, classes, caller.compiled)
        site = watcher.sites.get(key)
        if site is None:
            site = _Site(
                name, caller.where, caller.loss, from_logits, classes, caller.compiled, _RangeSlot()
            )
            watcher.sites[key] = site
        site.count += 1
        if several and site.producer is None:
            site.producer = watcher.softmax_place(output)
        if not from_logits and not caller.compiled:
            rows = name == "categorical_crossentropy" or several
            site.slot.update(output, rows, axis, watcher.pool, target)


@contextlib.contextmanager
def _cross_entropy_patches() -> Iterator[None]:
    from tfnb_debug.collect._patching import patched
    from tfnb_debug.collect.keras_access import backend_nn as tf_nn

    with patched(*((tf_nn, n, _wrap_cross_entropy(n, tf_nn.__dict__[n])) for n in _CE_FUNCTIONS)):
        yield


# -- the context manager ---------------------------------------------------------------


_USERS = 0
_STACK: contextlib.ExitStack | None = None


@contextlib.contextmanager
def watch_losses() -> Iterator[LossWatch]:
    """Watch what reaches losses in the block; the facts are in the yielded :class:`LossWatch`.

    Nesting is allowed; the op callback and the module-level wrappers are
    installed by the first active watch and removed when the last one ends.
    """
    global _USERS, _STACK
    from tfnb_debug.collect.keras_access import op_callbacks

    watch = LossWatch()
    watcher = _Watcher(watch, _package_dirs())
    watcher.pool = _SlotPool()
    with _LOCK:
        if _USERS == 0:
            stack = contextlib.ExitStack()
            try:
                stack.enter_context(_cross_entropy_patches())
                op_callbacks.add_op_callback(_op_callback)
                stack.callback(op_callbacks.remove_op_callback, _op_callback)
            except BaseException:
                stack.close()
                raise
            _STACK = stack
        _USERS += 1
        _ACTIVE.append(watcher)
    try:
        yield watch
    finally:
        with _LOCK:
            _ACTIVE.remove(watcher)
            _USERS -= 1
            if _USERS == 0 and _STACK is not None:
                stack, _STACK = _STACK, None
                stack.close()
        _collect(watcher)


def _collect(watcher: _Watcher) -> None:
    watch = watcher.watch
    watch.broadcasts.extend(watcher.broadcasts.values())
    watch.softmax_single_unit.extend(watcher.softmax)
    for site in watcher.sites.values():
        low = high = row = None
        with contextlib.suppress(Exception):
            low, high, row = site.slot.read()
        watch.cross_entropies.append(
            CrossEntropyFact(
                function=site.function,
                where=site.where,
                loss=site.loss,
                from_logits=site.from_logits,
                classes=site.classes,
                low=low,
                high=high,
                row_sum_error=row,
                compiled=site.compiled,
                count=site.count,
                targets=site.slot.target_ones(),
                producer=site.producer,
            )
        )
