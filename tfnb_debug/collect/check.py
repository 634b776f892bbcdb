"""In-graph finiteness checks for ``%%tfcheck``: every layer output, the loss, the gradients.

:class:`NumericsChecks` is the one context manager that owns every change made
for a checked run, and restores all of it in ``finally``:

* layer calls go through :func:`tfnb_debug.collect._patching.layer_call_hook`:
  each floating output is replaced by ``tf.identity(output)`` under a control
  dependency on a guard, so the check runs inside ``tf.function`` and
  ``model.fit`` before any consumer of the output.  The guard is one sum and an
  ``If`` op whose two branches are shared by every guard; only when the sum is
  not finite does the exact check run, raising with ``check_numerics``' own
  message (eagerly, ``check_numerics`` is used directly).  A custom gradient guards the gradient flowing back into each
  output.  The inputs of the outermost call are checked first (N05), and any
  input that is not the checked output of another layer is checked too, so a
  failing layer's inputs are known to be finite;
* ``keras.losses.Loss.__call__`` and ``BaseOptimizer.apply`` are patched at
  class level so the loss (G05) and the gradients, before they are applied
  (G03, one guard for all of them), are checked the same way;
* ``make_train/test/predict_function`` are patched so that every model that
  builds one during the run (and the models given) has its cached function
  dropped, so it retraces with the checks, and XLA (``jit_compile``, also
  ``"auto"``) switched off: XLA drops ``CheckNumerics``/``Assert`` ops
  silently, so checks under XLA would never fire.  Both are put back on exit;
* in graph mode, on the failing path of a layer output's guard, the layer's
  input is copied to the host (a ``tf.py_function``) before the exact check
  raises, so that layer alone can be re-run afterwards with
  ``tf.debugging.enable_check_numerics`` to name the op and the source line;
* :func:`tfnb_debug.collect._patching.trace_hook` counts ``tf.function``
  traces for T01;
* ``tf.function``s traced before the run that the code calls (``retrace``)
  trace again under the checks, and get their own traces back on exit
  (:func:`tfnb_debug.collect.retrace.retraced`);
* a model's checked train, test and predict functions are kept after a clean
  run (:mod:`tfnb_debug.collect.kept`, never on the model), each with what its
  trace added (:class:`_Traced`: the places it checks, the layers its failure
  tags name, its step counters), so the next run on the same model,
  optimizer, compile configuration and options uses them again instead of
  tracing.  Their graphs call back into Python only to copy a failing layer's
  input, and that copy goes to the run active then (:func:`_active`), never to
  the one that traced them.
"""

from __future__ import annotations

import contextlib
import re
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import keras
import tensorflow as tf

from tfnb_debug.collect._patching import Patches, TraceCounts
from tfnb_debug.collect.kept import Setup, keep, kept_for, kept_function
from tfnb_debug.collect.op_replay import OpDetail, rerun_with_op_checks
from tfnb_debug.ground.text import strip_ansi

__all__ = ["CheckFailure", "NumericsChecks", "OpDetail", "TAG", "kept_checked_function"]

TAG = "tfnb_check"
_TAG_RE = re.compile(TAG + r"\|([a-z-]+)\|([^|]*)\|")

#: the store's kind for the checked functions kept here
KIND = "check"

#: the runs in progress, innermost last: where a graph's input copy goes
_ACTIVE: list[NumericsChecks] = []
_ACTIVE_LOCK = threading.Lock()


def _active() -> NumericsChecks | None:
    with _ACTIVE_LOCK:
        return _ACTIVE[-1] if _ACTIVE else None


def kept_checked_function(model: Any) -> Any:
    """The checked train function kept for ``model``, or None (dropped if the model's
    optimizer, compile configuration or trainable variables changed since)."""
    return kept_function(model, KIND)


@dataclass(eq=False)
class _Traced:
    """What tracing one function (train, test or predict) added to the checks, gathered
    while it ran.

    The places its graph checks, the layers its failure tags name, the
    optimizers it updates and their step counters (variables its graph adds
    to): a run that uses the function again without tracing takes these over.
    """

    layers: list[tuple[Any, str]] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)
    gradients: list[str] = field(default_factory=list)
    unchecked_gradients: list[str] = field(default_factory=list)
    optimizers: list[Any] = field(default_factory=list)
    counters: list[tuple[Any, Any]] = field(default_factory=list)
    _seen: set[tuple[Any, ...]] = field(default_factory=set, repr=False)

    def add_layer(self, layer: Any, path: str) -> None:
        """``layer`` called at ``path`` (once each: a set lookup, as every layer call of the
        trace comes here, where scanning the list grew with the square of the layers)."""
        if ("layer", id(layer), path) not in self._seen:
            self._seen.add(("layer", id(layer), path))
            self.layers.append((layer, path))

    def add_output(self, path: str) -> None:
        """The output at ``path`` is checked (once each)."""
        if ("output", path) not in self._seen:
            self._seen.add(("output", path))
            self.outputs.append(path)


def _add(items: list[Any], item: Any) -> None:
    """Append ``item`` unless it is there: names by value, objects (and the parts of a
    pair) by identity, never with ``==`` (a variable's ``==`` is elementwise)."""
    if all(not _same(known, item) for known in items):
        items.append(item)


def _values(grad: Any) -> Any:
    """The dense values of a gradient: an ``IndexedSlices``' (an Embedding's, a gather's)
    ``values``, or the tensor itself."""
    return grad.values if isinstance(grad, tf.IndexedSlices) else grad


def _with_values(grad: Any, values: Any) -> Any:
    """``grad`` with its values replaced by ``values`` (the checked copy)."""
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    return values


def _checkable_gradient(grad: Any) -> bool:
    """A gradient whose values a check reads: a float tensor or ``IndexedSlices``."""
    return isinstance(grad, tf.Tensor | tf.IndexedSlices) and grad.dtype.is_floating


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))
    return a is b


#: the ops whose input Keras' cross-entropy losses take as the logits of their output
#: (``keras.src.backend.tensorflow.nn._get_logits``), each made again by its raw op
_LOGIT_OPS: dict[str, Callable[[Any], Any]] = {
    "Sigmoid": lambda x: tf.raw_ops.Sigmoid(x=x),
    "Softmax": lambda x: tf.raw_ops.Softmax(logits=x),
}

#: the functions a Keras model makes for ``fit``/``evaluate``/``predict`` (one step each)
FUNCTIONS = ("train_function", "test_function", "predict_function")


@dataclass(eq=False)
class _Built:
    """A function the checks made (or took from the store) for a model in this run."""

    model: Any
    name: str  # one of FUNCTIONS
    function: Any  # Keras' function, traced under the checks
    wrapper: Any  # what the model's attribute ``name`` is while the run lasts
    traced: _Traced | None  # None: an eager function (nothing to keep)
    setup: Setup


@dataclass(eq=False)
class _KeptCheckedFunctions:
    """A model's checked train/test/predict functions kept across runs (in
    :mod:`tfnb_debug.collect.kept`), each with what its trace added to the checks."""

    model: weakref.ref[Any]
    setup: Setup
    functions: dict[str, tuple[Any, _Traced]]  # attribute name -> (function, its trace)
    loss_facts: tuple[Any, ...] = ()  # the (compiled) cross-entropy facts of their traces

    @property
    def function(self) -> Any:
        """The kept train function (None if only a test or predict function is kept)."""
        return self.functions.get("train_function", (None, None))[0]


@dataclass(frozen=True)
class CheckFailure:
    """The first check that failed."""

    # "input" | "output" | "layer-input" | "loss" | "gradient" (a variable's gradient)
    # | "backward" (the gradient flowing back into a checked layer output)
    kind: str
    place: str  # layer path, loss name or variable path
    layer_class: str
    step: int | None  # optimizer steps applied before the failing one
    eager: bool
    op: OpDetail | None
    message: str  # the key line of TensorFlow's error
    next_layer: str = ""  # for "backward": the layer called after ``place`` (its consumer)


class NumericsChecks:
    """``with NumericsChecks(models) as checks: ...``; then read the attributes."""

    def __init__(
        self, models: Sequence[Any] = (), *, op_detail: bool = True, retrace: Sequence[Any] = ()
    ) -> None:
        self.models = [m for m in models if isinstance(m, keras.Model)]
        self.retrace = list(retrace)  # tf.functions the cell reaches: traced afresh for the run
        self.op_detail = op_detail
        self.checked_outputs: list[str] = []  # layer paths, first-call order
        self.checked_losses: list[str] = []
        self.checked_gradients: list[str] = []
        #: gradients applied but of a kind no check reads: "variable path (kind)"
        self.unchecked_gradients: list[str] = []
        self.xla_switched_off: list[str] = []
        #: models whose kept step was traced with other trainable flags (collect/traced_trainable)
        self.stale_trainable: list[Any] = []
        self._as_traced = contextlib.ExitStack()
        self.traces = TraceCounts()
        self.failure: CheckFailure | None = None
        self._seen_outputs: set[str] = set()
        self._stack: list[str] = []
        self._checked: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
        self._layers: list[tuple[Any, str]] = []
        self._layer_index: dict[tuple[int, str], int] = {}
        self._eager_failure: tuple[Any, tuple[Any, ...], dict[str, Any]] | None = None
        self._optimizers: list[Any] = []
        self._in_apply = 0  # LossScaleOptimizer.apply calls its inner optimizer's apply
        self._batches = 0  # calls of models' train functions (fit: one batch each)
        self._failed_batch: int | None = None  # the train-function call that raised
        self._stashed: tuple[str, Any] | None = None  # (layer path, its input) on failure
        # (optimizer, its update counter): updates whose gradients passed their checks
        self._counters: list[tuple[Any, Any]] = []
        self._adopted: list[Any] = []
        # every model that trained, evaluated or predicted in the run (weakly: read by the report)
        self._ran: list[weakref.ref[Any]] = []
        self._model_patches = Patches()  # the train/test/predict functions and XLA pin
        self._exit: contextlib.ExitStack | None = None
        self._tracing: _Traced | None = None  # of the function running (and maybe tracing)
        self._built: list[_Built] = []
        self._to_keep: list[tuple[Any, _KeptCheckedFunctions]] = []
        #: the kept checked functions this run used (not traced again)
        self.reused: list[_KeptCheckedFunctions] = []

    # -- context -------------------------------------------------------------------------

    def __enter__(self) -> NumericsChecks:
        from tfnb_debug.collect._patching import layer_call_hook, trace_hook
        from tfnb_debug.collect.retrace import retraced

        stack = contextlib.ExitStack()
        try:
            with _ACTIVE_LOCK:
                _ACTIVE.append(self)
            stack.callback(self._deactivate)
            stack.callback(self._restore_models)
            self._prepare_models()
            stack.enter_context(_class_patches(self))
            stack.enter_context(layer_call_hook(self._layer_hook))
            stack.enter_context(trace_hook(self._trace_hook))
            stack.enter_context(retraced(self.retrace))
        except BaseException:
            stack.close()
            raise
        self._exit = stack
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        assert self._exit is not None
        try:
            # decided while the run's patches are still in place (the model's setup is
            # compared as it was when the function was built)
            self._to_keep = self._functions_to_keep() if exc is None else []
        finally:
            self._exit.close()
            self._exit = None

    def _deactivate(self) -> None:
        with _ACTIVE_LOCK:
            if self in _ACTIVE:
                _ACTIVE.remove(self)

    def _setup(self, model: Any) -> Setup:
        """What ``model``'s checked functions depend on.  Not the model's XLA
        setting: the checks always run without XLA (it is pinned off for the run)."""
        return Setup(model, (KIND, self.op_detail), xla=False)

    def keep_functions(self, loss_facts: Sequence[Any] = ()) -> None:
        """Keep the checked functions of this run for the next run (after a clean run, when
        nothing else needs a fresh trace: the caller decides).  ``loss_facts``: the
        loss watch's facts of the run, all from compiled losses."""
        for model, entry in self._to_keep:
            entry.loss_facts = tuple(loss_facts)
            keep(entry, model, KIND)
        self._to_keep = []

    def owns(self, err: BaseException) -> bool:
        """Whether ``err`` was raised by one of this run's checks."""
        return isinstance(err, tf.errors.InvalidArgumentError) and bool(_TAG_RE.search(str(err)))

    def record_failure(self, err: BaseException) -> CheckFailure:
        """Turn a failed check into a :class:`CheckFailure` (call after the ``with`` block)."""
        text = str(err)
        match = _TAG_RE.search(text)
        assert match is not None
        kind, place = match.group(1), match.group(2)
        backward = kind == "backward" or "detected in gradient" in text[: match.start()][-200:]
        layer_class = ""
        op: OpDetail | None = None
        next_layer = ""
        eager = "Graph execution error" not in text and "{{node" not in text
        if kind in ("output", "layer-input", "backward"):
            index = self._index_of_path(place)
            if index is not None:
                layer_class = type(self._layers[index][0]).__name__
            if self.op_detail and kind == "output" and not backward:
                op = self._op_detail(index)
        if backward:
            kind = "backward"
            order = self.checked_outputs
            if place in order and order.index(place) + 1 < len(order):
                next_layer = order[order.index(place) + 1]
        message = _key_line(text)
        self.failure = CheckFailure(
            kind, place, layer_class, self._step(), eager, op, message, next_layer
        )
        return self.failure

    def steps_taken(self) -> int:
        """Training steps taken: the updates of the optimizer that stepped most.

        One step is one training batch (a call of the train step); a GAN's
        step updates two optimizers once each, so it counts once here and
        twice in :meth:`updates_taken`.
        """
        return max(self._update_counts(), default=0)

    def updates_taken(self) -> tuple[int, int]:
        """``(optimizer updates, optimizers that made them)`` whose gradients passed their checks."""
        counts = [n for n in self._update_counts() if n > 0]
        return sum(counts), len(counts)

    def _update_counts(self) -> list[int]:
        return [int(counter.numpy()) for _, counter in self._counters]

    # -- models, XLA, stash -------------------------------------------------------------

    def _prepare_models(self) -> None:
        for model in self.models:
            self.adopt(model)

    def adopt(self, model: Any) -> None:
        """Drop ``model``'s cached train/test/predict functions and switch its XLA off, once.

        Called for the models given and, through the patched
        ``make_*_function``, for any model that trains, evaluates or predicts
        during the run (also models created in it).  ``jit_compile="auto"``
        is pinned to False too: on a GPU it would turn XLA on.
        """
        if any(m is model for m in self._adopted):
            return
        self._adopted.append(model)
        from tfnb_debug.collect.traced_trainable import enter_as_traced

        # Keras would run its kept step, traced with the trainable flags of then: the checked
        # step is traced with them too, and the user's are back afterwards
        stale = enter_as_traced(self._as_traced, model)
        if stale is not None:
            self.stale_trainable.append(stale)
        if not any(ref() is model for ref in self._ran):
            self._ran.append(weakref.ref(model))
        for name in FUNCTIONS:
            if hasattr(model, name):
                self._model_patches.set(model, name, None)
        if "_jit_compile" in vars(model):
            would_jit = vars(model)["_jit_compile"]
            if would_jit is None:
                try:
                    would_jit = bool(model._resolve_auto_jit_compile())
                except Exception:
                    would_jit = False
            self._model_patches.set(model, "_jit_compile", False)
            if would_jit:
                self.xla_switched_off.append(model.name)

    def models_run(self) -> list[Any]:
        """The Keras models that trained, evaluated or predicted in the run (still alive)."""
        return [m for m in (ref() for ref in self._ran) if m is not None]

    def _restore_models(self) -> None:
        self._adopted.clear()
        try:
            self._as_traced.close()
        finally:
            self._model_patches.restore()

    # -- hooks ---------------------------------------------------------------------------

    def _trace_hook(self, name: str, function: Any, signature: str) -> None:
        self.traces.add(name, function, signature)

    def _layer_hook(
        self, layer: Any, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        __tracebackhide__ = True
        path = "/".join([*self._stack, layer.name])
        index = self._register(layer, path)
        if self._tracing is not None:
            self._tracing.add_layer(layer, path)
        outermost = not self._stack
        kind = "input" if outermost else "layer-input"
        place = path if not outermost else layer.name
        try:
            args = tuple(self._check_tree(a, kind, place) for a in args)
            kwargs = {k: self._check_tree(v, kind, place) for k, v in kwargs.items()}
        except tf.errors.InvalidArgumentError:
            raise
        self._stack.append(layer.name)
        try:
            out = call(*args, **kwargs)
        finally:
            self._stack.pop()
        self._add_output(path)
        if self._tracing is not None:
            self._tracing.add_output(path)
        try:
            return self._check_outputs(out, path, index, args, kwargs)
        except tf.errors.InvalidArgumentError:
            if tf.executing_eagerly() and self._eager_failure is None:
                self._eager_failure = (layer, args, kwargs)
            raise

    def _add_output(self, path: str) -> None:
        """``path``'s output is checked (listed once, in first-call order)."""
        if path not in self._seen_outputs:
            self._seen_outputs.add(path)
            self.checked_outputs.append(path)

    def _register(self, layer: Any, path: str) -> int:
        key = (id(layer), path)
        if key not in self._layer_index:
            self._layer_index[key] = len(self._layers)
            self._layers.append((layer, path))
        return self._layer_index[key]

    def _index_of_path(self, path: str) -> int | None:
        for i, (_, p) in enumerate(self._layers):
            if p == path:
                return i
        return None

    def _check_tree(self, value: Any, kind: str, place: str) -> Any:
        if isinstance(value, tf.Tensor):
            return self._check(value, kind, place)
        if isinstance(value, list | tuple | dict):
            return keras.tree.map_structure(
                lambda v: self._check(v, kind, place) if isinstance(v, tf.Tensor) else v, value
            )
        return value

    def _check(
        self,
        tensor: Any,
        kind: str,
        place: str,
        copy: _Copy | None = None,
    ) -> Any:
        """``tensor``, checked: eagerly with ``check_numerics``; in graphs with a cheap guard."""
        if not tensor.dtype.is_floating or self._is_checked(tensor):
            return tensor
        tag = f"{TAG}|{kind}|{place}|"
        # float16 gradients are scaled by LossScaleOptimizer and may overflow on purpose
        # (it then skips the step), so the backward pass of float16 tensors is not checked.
        check_backward = kind == "output" and tensor.dtype != tf.float16
        backward = f"{TAG}|backward|{place}|" if check_backward else None
        if tf.executing_eagerly():
            checked = tf.debugging.check_numerics(tensor, tag)  # its gradient checks dy too
            if not check_backward:
                checked = tensor  # checked already (eagerly); keep the plain gradient
            guard = None
        else:
            guard = self._guard(tensor, tag, copy)
            checked = self._after(tensor, guard, backward)
        checked = self._keras_facts(tensor, checked, guard, backward)
        self._checked[id(checked)] = checked
        return checked

    def _keras_facts(self, tensor: Any, checked: Any, guard: Any, backward_tag: str | None) -> Any:
        """``checked`` (the checked copy of ``tensor``) with what Keras reads from ``tensor``
        besides its values, so the checked cell trains exactly like the plain one.

        * its mask (``_keras_mask``: the next layer's ``__call__`` takes it from its input);
        * the logits of a probability output: Keras' cross-entropy losses compute from the
          logits of a sigmoid/softmax output, kept on the tensor (``_keras_logits``) or, in a
          graph, the input of the raw ``Sigmoid``/``Softmax`` op that made it.  Lost, the loss
          is computed from clipped probabilities instead, whose gradient vanishes once an
          output saturates (an unscaled-input classifier then trains to a different model).

        The logits go through the output's guard (a loss computed from them waits for the
        check) and the gradient flowing back into them is checked like the output's.  A
        raw op's output is made again (the same op, on the guarded logits: the same values)
        so that Keras finds the op it looks for.
        """
        if checked is tensor:
            return checked
        from tfnb_debug.collect.keras_access import private

        masking = private("keras_masking")
        mask = masking.get_keras_mask(tensor)
        after_guard = guard if guard is not None else tf.constant(True)
        logits = getattr(tensor, "_keras_logits", None)
        op = None if tf.executing_eagerly() else getattr(tensor, "op", None)
        remake = _LOGIT_OPS.get(str(getattr(op, "type", "")))
        if logits is not None:
            checked._keras_logits = self._after(logits, after_guard, backward_tag)
        elif op is not None and remake is not None and len(op.inputs) == 1:
            checked = remake(self._after(op.inputs[0], after_guard, backward_tag))
        if mask is not None:
            masking.set_keras_mask(checked, mask)
        return checked

    def _guard(self, tensor: Any, tag: str, copy: _Copy | None = None) -> Any:
        """A scalar op that raises if ``tensor`` holds NaN/Inf.

        The common path is one sum (NaN and Inf propagate into it) and an
        ``If`` op; only when the sum is not finite does the exact check run on
        the whole tensor (after ``copy``: a layer's input copied to the host),
        so a sum that merely overflowed never reports a NaN that is not there.
        The ``If``'s two branches are functions shared by every guard of the
        same dtypes (:func:`_branches`), so a guard adds three ops to the
        trace, not two branch graphs of its own: on a model of a few hundred
        layers that is most of what tracing the checked step took.
        """
        wide = tensor if tensor.dtype in (tf.float32, tf.float64) else tf.cast(tensor, tf.float32)
        total = tf.reduce_sum(wide)
        source = copy[1] if copy is not None else None
        fine, exact = _branches(tensor.dtype, None if source is None else source.dtype)
        inputs = [tensor, tf.constant(tag), tf.constant(copy[0] if copy is not None else "")]
        if source is not None:
            inputs.append(source)
        return tf.raw_ops.If(
            cond=tf.math.is_finite(total),
            input=inputs,
            Tout=[tf.bool],
            then_branch=fine,
            else_branch=exact,
            output_shapes=[[]],
        )[0]

    def _after(self, tensor: Any, guard: Any, backward_tag: str | None) -> Any:
        """``tensor`` behind a control dependency on ``guard``; its gradient checked too."""
        if backward_tag is None:
            with tf.control_dependencies([guard]):
                return tf.identity(tensor)

        @tf.custom_gradient
        def passed(x: Any) -> Any:
            with tf.control_dependencies([guard]):
                y = tf.identity(x)

            def grad(dy: Any) -> Any:
                if not isinstance(dy, tf.Tensor) or not dy.dtype.is_floating:
                    return dy
                return self._checked_gradient(dy, backward_tag)

            return y, grad

        return passed(tensor)

    def _checked_gradient(self, dy: Any, tag: str) -> Any:
        """``dy`` (the gradient flowing back into a checked output) through its guard.

        The value passes through a ``StatelessIf`` (same sum and shared
        branches as :meth:`_guard`, the exact branch returning ``dy`` once it
        passed), not behind a control dependency on a stateful op: a graph
        then runs the check exactly when the gradient is used.  A frozen
        layer's backward pass, which no trainable variable needs (a frozen
        base under a trained head), is pruned as in the plain step instead
        of being computed in every step only to be checked.
        """
        wide = dy if dy.dtype in (tf.float32, tf.float64) else tf.cast(dy, tf.float32)
        fine, exact = _branches(dy.dtype, None, passing=True)
        out = tf.raw_ops.StatelessIf(
            cond=tf.math.is_finite(tf.reduce_sum(wide)),
            input=[dy, tf.constant(tag), tf.constant("")],
            Tout=[dy.dtype],
            then_branch=fine,
            else_branch=exact,
            output_shapes=[dy.shape],
        )[0]
        out.set_shape(dy.shape)
        return out

    def check_gradients(self, grads: list[Any], places: dict[int, str]) -> list[Any]:
        """The gradients (``places``: index -> variable path), checked before they are applied.

        In graphs one guard covers them all: one sum per gradient, one
        ``tf.cond``; on the failing path the exact checks run in list order, so
        the first variable in forward order is the one reported.
        """
        if not places:
            return grads
        if tf.executing_eagerly():
            return [
                _with_values(g, self._check(_values(g), "gradient", places[i]))
                if i in places
                else g
                for i, g in enumerate(grads)
            ]
        indices = sorted(places)
        values = {i: _values(grads[i]) for i in indices}

        def fine() -> Any:
            return tf.constant(True)

        def exact() -> Any:
            last: list[Any] = []
            for i in indices:
                with tf.control_dependencies(last):
                    last = [tf.debugging.check_numerics(values[i], f"{TAG}|gradient|{places[i]}|")]
            with tf.control_dependencies(last):
                return tf.constant(True)

        totals = [tf.reduce_sum(tf.cast(values[i], tf.float32)) for i in indices]
        guard = tf.cond(tf.math.is_finite(tf.add_n(totals)), fine, exact)
        out = list(grads)
        with tf.control_dependencies([guard]):
            for i in indices:
                checked = tf.identity(values[i])
                self._checked[id(checked)] = checked
                out[i] = _with_values(grads[i], checked)
        return out

    def _is_checked(self, tensor: Any) -> bool:
        return self._checked.get(id(tensor)) is tensor

    def _check_outputs(
        self, out: Any, path: str, index: int, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        copy = None
        if not tf.executing_eagerly() and self.op_detail:
            copy = self._input_to_copy(path, args, kwargs)
        return keras.tree.map_structure(
            lambda v: self._check(v, "output", path, copy) if isinstance(v, tf.Tensor) else v,
            out,
        )

    def _input_to_copy(
        self, path: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> _Copy | None:
        """The layer's single float input, to copy to the host on the failing path only.

        A Python copy (:func:`_copy_input`), not a variable: assigning inputs
        of varying shapes to a shape-less variable trips Grappler (it fed later
        ops the wrong tensor).  XLA is off for the run, so the ``py_function``
        is allowed.  The copy goes to the run active when the graph runs: a
        kept graph outlives the run that traced it.
        """
        inputs = [t for t in keras.tree.flatten((args, kwargs)) if isinstance(t, tf.Tensor)]
        float_inputs = [t for t in inputs if t.dtype.is_floating]
        if len(float_inputs) != 1:
            return None
        return path, float_inputs[0]

    # -- after a failure -----------------------------------------------------------------

    def _op_detail(self, index: int | None) -> OpDetail | None:
        if index is None:
            return None
        layer, path = self._layers[index]
        if self._eager_failure is not None:
            failed_layer, args, kwargs = self._eager_failure
            if failed_layer is not layer:
                return None
            call_args, call_kwargs = args, dict(kwargs)
        else:
            if self._stashed is None or self._stashed[0] != path:
                return OpDetail("", "", "the failing layer's input was not captured")
            call_args, call_kwargs = (tf.convert_to_tensor(self._stashed[1]),), {}
        return rerun_with_op_checks(layer, call_args, call_kwargs)

    def checked_function(
        self, model: Any, name: str, function: Any, traced: _Traced | None = None
    ) -> Any:
        """``model``'s ``name`` (one of :data:`FUNCTIONS`) as it runs in this run.

        While it runs, what its tracing adds to the checks is gathered
        (:class:`_Traced`; a kept function's goes on into its own ``traced``),
        so that the function can be kept for the next run.  A train function
        also counts its calls: in ``fit`` one call is one batch, so a failed
        call gives the failing step exactly, however many optimizers the train
        step updates.  With ``steps_per_execution > 1`` a call runs several
        batches, so then the optimizer updates tell the step (calls are not
        counted).
        """
        count = name == "train_function" and getattr(model, "steps_per_execution", 1) == 1
        if traced is None and not bool(getattr(model, "run_eagerly", False)):
            traced = _Traced()

        def checked(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            if count:
                self._batches += 1
            outer, self._tracing = self._tracing, traced
            try:
                return function(*args, **kwargs)
            except BaseException:
                if count and self._failed_batch is None:
                    self._failed_batch = self._batches - 1
                raise
            finally:
                self._tracing = outer

        checked.__tfnb_debug_checked__ = True  # type: ignore[attr-defined]
        self._built.append(_Built(model, name, function, checked, traced, self._setup(model)))
        return checked

    # -- keeping the checked functions ---------------------------------------------------

    def reuse_kept(self, model: Any, name: str) -> bool:
        """Install ``model``'s kept checked ``name`` function if its setup is unchanged;
        whether it was.  This run takes over what its trace added to the checks, and
        its step counters start again from zero."""
        if bool(getattr(model, "run_eagerly", False)):
            return False
        kept = kept_for(model, KIND, self._setup(model))
        if kept is None or name not in kept.functions:
            return False
        function, traced = kept.functions[name]
        if any(self._counter_known(optimizer) for optimizer, _ in traced.counters):
            return False  # this run counts that optimizer already, with its own counter
        for layer, path in traced.layers:
            self._register(layer, path)
        for path in traced.outputs:
            self._add_output(path)
        for loss in traced.losses:
            _add(self.checked_losses, loss)
        for place in traced.gradients:
            _add(self.checked_gradients, place)
        for place in traced.unchecked_gradients:
            _add(self.unchecked_gradients, place)
        for optimizer in traced.optimizers:
            _add(self._optimizers, optimizer)
        for optimizer, counter in traced.counters:
            counter.assign(0)
            self._counters.append((optimizer, counter))
        if traced.optimizers:
            from tfnb_debug.collect.memory_steps import watch_graph_optimizers

            watch_graph_optimizers(traced.optimizers)  # %%tfmem counts the steps as if traced
        _add(self.reused, kept)
        setattr(model, name, self.checked_function(model, name, function, traced))
        return True

    @property
    def reused_models(self) -> list[str]:
        """The names of the models whose kept checked functions this run used."""
        return [str(getattr(kept.model(), "name", "model")) for kept in self.reused]

    def _counter_known(self, optimizer: Any) -> bool:
        return any(known is optimizer for known, _ in self._counters)

    def _functions_to_keep(self) -> list[tuple[Any, _KeptCheckedFunctions]]:
        """The checked functions built (or reused) in this run that a later run may use.

        Only when they all belong to one model, each was made once, ran in a
        graph and is still the model's, and the model's setup did not change
        during the run.  Kept functions of the same setup that this run did not
        use are kept on with them.
        """
        models = {id(b.model) for b in self._built}
        names = [b.name for b in self._built]
        if len(models) != 1 or len(names) != len(set(names)):
            return []
        model = self._built[0].model
        setup = self._setup(model)
        functions: dict[str, tuple[Any, _Traced]] = {}
        for built in self._built:
            if (
                built.traced is None
                or getattr(model, built.name, None) is not built.wrapper
                or not built.setup.same(setup)
            ):
                return []
            functions[built.name] = (built.function, built.traced)
        before = kept_for(model, KIND, setup)
        if before is not None:
            functions = {**before.functions, **functions}
        return [(model, _KeptCheckedFunctions(weakref.ref(model), setup, functions))]

    def _step(self) -> int | None:
        """Training steps completed (all gradients checked and finite) before the failure.

        In ``fit``, the train-function calls before the failing one.  Elsewhere,
        with several optimizers (a GAN), those that already stepped in the
        failing batch are one ahead of the others: the lowest count is then the
        number of completed steps (an optimizer that had not stepped at all
        yet is not known, so a failure before its first update counts one
        step too many).
        """
        if self._failed_batch is not None:
            return self._failed_batch
        counts = [n for n in self._update_counts() if n > 0]
        if not counts:
            return 0 if self._all_optimizers() else None
        return min(counts)

    def _counter_for(self, optimizer: Any) -> Any:
        for known, counter in self._counters:
            if known is optimizer:
                return counter
        from tfnb_debug.collect.keras_access import ResourceVariable

        # Made on the optimizer's first update, possibly while a tf.function traces: outside
        # the graph, and as a plain variable (not a strategy's mirrored one, nor a variable
        # the traced function would count as created by it).
        with tf.init_scope():
            counter = ResourceVariable(0, dtype=tf.int64, trainable=False)
        self._counters.append((optimizer, counter))
        return counter

    def _note(self, kind: str, item: Any) -> None:
        """``item`` (a loss name, a variable path, an optimizer or ``(optimizer, counter)``)
        goes through a check: this run's list and, while tracing, the function's."""
        mine = {
            "losses": self.checked_losses,
            "gradients": self.checked_gradients,
            "unchecked_gradients": self.unchecked_gradients,
            "optimizers": self._optimizers,
            "counters": None,
        }[kind]
        if mine is not None:
            _add(mine, item)
        if self._tracing is not None:
            _add(getattr(self._tracing, kind), item)

    def _count_step(self, optimizer: Any, checked: list[Any]) -> None:
        """Count an update once its gradients passed their checks (ordered after them in graphs).

        In a replica context (``strategy.run``, ``fit`` under a strategy) every
        replica applies the same update: it is counted once, in a ``merge_call``,
        after every replica's gradients passed (a NaN on one replica stops the step
        before it counts).
        """
        deps = [g for g in checked if isinstance(g, tf.Tensor)]
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            context = tf.distribute.get_replica_context()

            def count_once(strategy: Any, *per_replica: Any) -> None:
                self._count_step(optimizer, _local_tensors(strategy, per_replica))

            if context is not None:
                context.merge_call(count_once, args=tuple(deps))
            return
        counter = self._counter_for(optimizer)
        self._note("counters", (optimizer, counter))
        with tf.control_dependencies(deps):
            counter.assign_add(1)

    def _all_optimizers(self) -> list[Any]:
        found = list(self._optimizers)
        for model in self.models:
            opt = getattr(model, "optimizer", None)
            if opt is not None and all(opt is not o for o in found):
                found.append(opt)
        return found


#: a layer's path and its input, copied to the host when the layer's output check fails
_Copy = tuple[str, Any]

#: the shared branches of the guards' ``If`` ops, by (checked dtype, copied input's dtype,
#: whether they pass the tensor on)
_BRANCHES: dict[tuple[Any, Any, bool], tuple[Any, Any]] = {}
_BRANCHES_LOCK = threading.Lock()


def _copy_input(place: Any, value: Any) -> bool:
    """On a failing guard: ``value`` (the input of the layer at ``place``) to the active run."""
    active = _active()
    if active is not None and active._stashed is None:
        active._stashed = (place.numpy().decode(), value.numpy())
    return False


def _branches(dtype: Any, source: Any, *, passing: bool = False) -> tuple[Any, Any]:
    """The ``If`` branches of a guard on a ``dtype`` tensor (with a ``source`` input to copy,
    or None): ``(fine, exact)``, concrete functions of ``(tensor, tag, place[, input])``.

    ``exact`` copies the input (:func:`_copy_input`), then raises
    ``InvalidArgumentError`` with ``check_numerics``' own message
    (``<tag> : Tensor had NaN values``) unless the tensor is finite.  Made
    once per dtype pair and shared by every guard: traced with no hook
    active, so they are not the user's traces.  ``passing``: both return the
    tensor itself instead of True (the exact one once it passed).
    """
    key = (dtype, source, passing)
    with _BRANCHES_LOCK:
        if key in _BRANCHES:
            return _BRANCHES[key]
    from tfnb_debug.collect._patching import suspended

    specs = [tf.TensorSpec(None, dtype), tf.TensorSpec([], tf.string), tf.TensorSpec([], tf.string)]
    if source is not None:
        specs.append(tf.TensorSpec(None, source))

    # named parameters (no ``*args``): TensorFlow warns of the names it makes for those
    def fine(tensor: Any, tag: Any, place: Any, copied: Any = None) -> Any:
        return tf.identity(tensor) if passing else tf.constant(True)

    def exact(tensor: Any, tag: Any, place: Any, copied: Any = None) -> Any:
        deps = (
            [] if copied is None else [tf.py_function(_copy_input, [place, copied], Tout=tf.bool)]
        )
        with tf.control_dependencies(deps):
            nan = tf.reduce_any(tf.math.is_nan(tensor))
            inf = tf.reduce_any(tf.math.is_inf(tensor))
            what = tf.where(nan & inf, "Inf and NaN", tf.where(nan, "NaN", "Inf"))
            message = tf.strings.join([tag, " : Tensor had ", what, " values"])
            failed = tf.debugging.Assert(tf.logical_not(nan | inf), [message])
        with tf.control_dependencies([failed]):
            return tf.identity(tensor) if passing else tf.constant(True)

    with tf.init_scope(), suspended():
        made = tuple(
            tf.function(branch, input_signature=specs, autograph=False).get_concrete_function()
            for branch in (fine, exact)
        )
    with _BRANCHES_LOCK:
        return _BRANCHES.setdefault(key, made)


def _local_tensors(strategy: Any, values: Sequence[Any]) -> list[Any]:
    """Every replica's tensor of ``values`` (what a ``merge_call`` gives, per replica)."""
    found: list[Any] = []
    for value in values:
        found.extend(
            t for t in strategy.experimental_local_results(value) if isinstance(t, tf.Tensor)
        )
    return found


def _key_line(text: str) -> str:
    """E.g. ``check_numerics: Tensor had NaN values`` from TensorFlow's long message."""
    text = strip_ansi(text)
    match = re.search(TAG + r"\|[^|]*\|[^|]*\|['\s:]*([^\n\[]*)", text)
    if match and match.group(1).strip().rstrip("]"):
        # a guard's exact check raises through ``Assert``: "[<tag> : Tensor had NaN values]"
        return "check_numerics: " + match.group(1).strip().rstrip("]").strip()
    return " ".join(text.split())[:200]


def _is_scalar_loss(target: Any) -> bool:
    return isinstance(target, tf.Tensor) and target.dtype.is_floating and target.shape.rank == 0


def _loss_place(target: Any) -> str:
    """Where the loss was computed: ``total_loss in VAE.train_step`` (the user's variable and
    function), or ``total loss of model 'gan'`` in Keras' own ``train_step``."""
    import os
    import sys

    package = os.path.join(os.path.dirname(os.path.dirname(__file__)), "__init__.py")
    skipped = tuple(os.path.dirname(f) + os.sep for f in (tf.__file__, package) if f)
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(skipped):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "loss given to GradientTape.gradient"
    code = frame.f_code
    function = getattr(code, "co_qualname", code.co_name)
    if "tf__" in function:  # autograph's converted copy, made in nested factories
        function = function.rsplit(".", 1)[-1].removeprefix("tf__")
    keras_dir = os.path.dirname(keras.__file__ or "") + os.sep
    owner = frame.f_locals.get("self")
    if code.co_filename.startswith(keras_dir) and isinstance(owner, keras.Model):
        return f"total loss of model '{owner.name}'"
    names = [k for k, v in frame.f_locals.items() if v is target and not k.startswith("ag__")]
    where = f"in {function}" if function != "<module>" else "in the cell"
    return f"{names[0]} {where}" if names else f"loss {where}"


@contextlib.contextmanager
def _class_patches(checks: NumericsChecks) -> Iterator[None]:
    """Check the loss (``Loss.__call__``, ``GradientTape.gradient``'s scalar target) and the
    gradients (``BaseOptimizer.apply``) while active.

    ``make_train/test/predict_function`` adopt every model that builds one
    (cached functions dropped, XLA off), so models created in the run are covered too.
    """
    from tfnb_debug.collect.keras_access import (
        BaseOptimizer,
        Loss,
        TensorFlowTrainer,
        optimizer_built_before_trace,
    )

    original_loss = Loss.__dict__["__call__"]
    original_apply = BaseOptimizer.__dict__["apply"]
    original_gradient = tf.GradientTape.__dict__["gradient"]
    makers = {
        name: TensorFlowTrainer.__dict__[name]
        for name in (f"make_{function}" for function in FUNCTIONS)
    }

    def wrap_maker(name: str, original: Any) -> Any:
        def make(self: Any, force: bool = False) -> Any:
            checks.adopt(self)
            if getattr(self, name) is None and not force and checks.reuse_kept(self, name):
                return getattr(self, name)
            if name == "make_train_function":  # one trace of the checked step, not two
                optimizer_built_before_trace(self)
            original(self, force=force)
            function = getattr(self, name)
            if function is not None and not getattr(function, "__tfnb_debug_checked__", False):
                setattr(self, name, checks.checked_function(self, name, function))
            return getattr(self, name)

        return make

    def loss_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        value = original_loss(self, *args, **kwargs)
        name = str(getattr(self, "name", type(self).__name__))
        checks._note("losses", name)
        if isinstance(value, tf.Tensor):
            return checks._check(value, "loss", name)
        return value

    def gradient(tape: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        """A scalar loss differentiated by a tape: checked unless a ``Loss`` checked it already.

        This is how the loss of a custom ``train_step`` or loop that computes
        it with ``keras.ops``/loss functions (no ``keras.losses.Loss`` object)
        is seen; in graphs the gradients wait for the check.
        """
        __tracebackhide__ = True
        if not _is_scalar_loss(target) or checks._is_checked(target):
            return original_gradient(tape, target, *args, **kwargs)
        name = _loss_place(target)
        checks._note("losses", name)
        tag = f"{TAG}|loss|{name}|"
        if tf.executing_eagerly():
            tf.debugging.check_numerics(target, tag)
            return original_gradient(tape, target, *args, **kwargs)
        guard = checks._guard(target, tag)
        grads = original_gradient(tape, target, *args, **kwargs)
        with tf.control_dependencies([guard]):
            return tf.nest.map_structure(
                lambda g: (
                    _with_values(g, tf.identity(_values(g)))
                    if isinstance(g, tf.Tensor | tf.IndexedSlices)
                    else g
                ),
                grads,
            )

    def apply(self: Any, grads: Any, trainable_variables: Any = None) -> Any:
        __tracebackhide__ = True
        checks._note("optimizers", self)
        variables = trainable_variables
        if variables is None:
            variables = getattr(self, "_trainable_variables", None) or [None] * len(grads)
        grads = list(grads)
        places: dict[int, str] = {}
        for i, (grad, var) in enumerate(zip(grads, variables, strict=False)):
            if grad is None:
                continue  # no gradient at all: nothing to check (G04 is %%tfgrad's)
            place = str(getattr(var, "path", getattr(var, "name", "variable")))
            if _checkable_gradient(grad):
                places[i] = place
                checks._note("gradients", place)
            else:
                checks._note("unchecked_gradients", f"{place} ({type(grad).__name__})")
        checked = checks.check_gradients(grads, places)
        if not checks._in_apply:
            checks._count_step(self, checked)
        checks._in_apply += 1
        try:
            return original_apply(self, checked, trainable_variables)
        finally:
            checks._in_apply -= 1

    from tfnb_debug.collect._patching import patched

    with patched(
        (Loss, "__call__", loss_call),
        (BaseOptimizer, "apply", apply),
        # autograph would convert a function from outside TensorFlow: keep it Python
        (tf.GradientTape, "gradient", tf.autograph.experimental.do_not_convert(gradient)),
        *(
            (TensorFlowTrainer, maker, wrap_maker(maker.removeprefix("make_"), original))
            for maker, original in makers.items()
        ),
    ):
        yield
