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

What one optimizer step records, and the device buffers it records into, are the
:class:`~tfnb_debug.collect.gradient_recorder._Recorder`'s (one per optimizer and list of
variables; :mod:`~tfnb_debug.collect.gradient_recorder` also defines :class:`CaptureData`);
this module owns the patches, the active capture and the kept train functions.  The
one-batch probe of ``%tfgrad MODEL X Y`` (no step, nothing patched) is
:mod:`~tfnb_debug.collect.gradient_probe`.

Every wrapper is installed and removed by :class:`GradientCapture`, in
``finally``, also on exceptions and ``KeyboardInterrupt``.  The wrappers are
no part of the user's traceback: :func:`hide_hook_frames` takes their frames
out of an exception raised through them, so it reads as it would without the
recording.
"""

from __future__ import annotations

import contextlib
import sys
import types
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import tensorflow as tf

from tfnb_debug.collect._patching import Patches
from tfnb_debug.collect.gradient_recorder import _LOCK, CaptureData, _Recorder, _variable_meta
from tfnb_debug.collect.hook_frames import hide_hook_frames
from tfnb_debug.collect.kept import Setup, keep, kept_for, kept_function
from tfnb_debug.collect.keras_access import (
    BaseOptimizer,
    LossScaleOptimizer,
    TensorFlowTrainer,
)
from tfnb_debug.collect.loss_targets import LossTargets
from tfnb_debug.collect.traced_trainable import StaleTrainable, enter_as_traced
from tfnb_debug.ground.text import loss_name
from tfnb_debug.records.gradients import VariableMeta

__all__ = [
    "FitModelInfo",
    "GradientCapture",
    "NoGradientStep",
    "active_capture",
    "hide_hook_frames",
]

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


def _variable_key(optimizer: Any, variable: Any) -> Any:
    try:
        return optimizer._var_key(variable)
    except Exception:
        return id(variable)


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
