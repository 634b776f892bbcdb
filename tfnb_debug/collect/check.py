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
  trace added (:class:`~tfnb_debug.collect.check_kept._Traced`: the places it
  checks, the layers its failure tags name, its step counters), so the next run
  on the same model, optimizer, compile configuration and options uses them
  again instead of tracing.  Their graphs call back into Python only to copy a
  failing layer's input, and that copy goes to the run active then
  (:func:`~tfnb_debug.collect.check_guards._active`), never to the one that
  traced them.

:class:`NumericsChecks` is put together from mixins in sibling modules:
:class:`~tfnb_debug.collect.check_guards.TensorGuards` (the guard ops: how a
tensor and the gradients are checked, a failing layer's input copied),
:class:`~tfnb_debug.collect.check_layers.LayerChecks` (the layer hook: each
layer call registered and checked, the failing layer re-run) and
:class:`~tfnb_debug.collect.check_kept.CheckedFunctions` (the checked
train/test/predict functions: wrapped, kept, used again).  This module holds
the run itself: its state, entering and leaving it, adopting the models, the
class-level patches (:func:`_class_patches`), the notes and step counters, and
a failed check turned into a :class:`CheckFailure`.
"""

from __future__ import annotations

import contextlib
import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import keras
import tensorflow as tf

from tfnb_debug.collect._patching import Patches, TraceCounts
from tfnb_debug.collect.check_guards import (
    _ACTIVE,
    _ACTIVE_LOCK,
    TAG,
    _checkable_gradient,
    _values,
    _with_values,
)
from tfnb_debug.collect.check_kept import (
    FUNCTIONS,
    CheckedFunctions,
    _add,
    _Built,
    _KeptCheckedFunctions,
    _Traced,
    kept_checked_function,
)
from tfnb_debug.collect.check_layers import LayerChecks
from tfnb_debug.collect.op_replay import OpDetail
from tfnb_debug.ground.text import strip_ansi

__all__ = ["CheckFailure", "NumericsChecks", "OpDetail", "TAG", "kept_checked_function"]

_TAG_RE = re.compile(TAG + r"\|([a-z-]+)\|([^|]*)\|")


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


class NumericsChecks(LayerChecks, CheckedFunctions):
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
        self._noted: str | None = None  # the first failing guard's message
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

    def owns(self, err: BaseException) -> bool:
        """Whether ``err`` was raised by one of this run's checks: a check's own message, or
        an error of the step (a cancellation) after a guard noted that it failed."""
        if isinstance(err, tf.errors.InvalidArgumentError) and _TAG_RE.search(str(err)):
            return True
        return isinstance(err, tf.errors.OpError) and self._noted is not None

    def record_failure(self, err: BaseException) -> CheckFailure:
        """Turn a failed check into a :class:`CheckFailure` (call after the ``with`` block)."""
        text = str(err)
        if _TAG_RE.search(text) is None and self._noted is not None:
            text = f"{self._noted}\n{text}"  # reported as another error: the guard's own words
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

    # -- the trace hook ------------------------------------------------------------------

    def _trace_hook(self, name: str, function: Any, signature: str) -> None:
        self.traces.add(name, function, signature)

    # -- steps, notes, step counters -----------------------------------------------------

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
            if name == "train_function":  # one trace of the checked step, not two
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
