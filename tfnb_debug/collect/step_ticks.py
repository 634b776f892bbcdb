"""Host-side step ends for a live view: a call after each training step, on the training thread.

Hooks (all through :class:`~tfnb_debug.collect._patching.Patches`, restored
when the block ends, also on an exception or ``KeyboardInterrupt``):

* ``CallbackList.on_train_batch_end``: a batch of ``model.fit`` ended (the
  model is known, so a stop asks ``fit`` to end through ``model.stop_training``);
* ``Model.train_on_batch`` and the eager ``Optimizer.apply``: a step of a
  custom loop run eagerly;
* the outermost eager call of a ``tf.function``: a step of a custom loop whose
  train step is compiled (also the train function inside ``fit``, and any
  other compiled call: the callback throttles itself).

Nothing here reads a tensor: the callback decides what to read and when.
Calls while a ``tf.function`` traces, and calls on other threads (tf.data
workers), are ignored.  ``Model.fit`` is wrapped only to know whether a step
belongs to a ``fit`` (a stop inside ``fit`` ends it cleanly instead of raising).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from tfnb_debug.collect._patching import Patches

__all__ = ["StepTicks"]

#: ``on_step(source, model)``: source is "fit", "train_on_batch", "apply" or "function";
#: ``model`` is the model of a fit batch (else None).  ``in_fit`` tells a stop how to stop.
OnStep = Callable[[str, Any, bool], None]


class StepTicks:
    """Installs the step-end hooks; ``with StepTicks(on_step): ...``."""

    def __init__(self, on_step: OnStep) -> None:
        self._on_step = on_step
        self._patches = Patches()
        self._thread = threading.get_ident()
        self._depth = 0  # nesting of eager outermost calls (train_on_batch -> apply -> function)
        self._fits = 0  # fit calls running on the training thread

    def __enter__(self) -> StepTicks:
        try:
            self._install()
        except BaseException:
            self._patches.restore()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._patches.restore()

    def _install(self) -> None:
        import keras
        import tensorflow as tf

        from tfnb_debug.collect.keras_access import BaseOptimizer, TensorFlowTrainer, private

        ticks = self
        callback_list = keras.callbacks.CallbackList
        batch_end = callback_list.__dict__["on_train_batch_end"]

        def on_train_batch_end(self: Any, batch: Any, logs: Any = None) -> Any:
            result = batch_end(self, batch, logs)
            ticks._tick("fit", getattr(self, "model", None))
            return result

        fit = TensorFlowTrainer.__dict__["fit"]

        def patched_fit(self: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            mine = threading.get_ident() == ticks._thread
            ticks._fits += mine
            try:
                return fit(self, *args, **kwargs)
            finally:
                ticks._fits -= mine

        def outermost(original: Any, source: str) -> Any:
            def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                __tracebackhide__ = True
                if not tf.executing_eagerly() or threading.get_ident() != ticks._thread:
                    return original(self, *args, **kwargs)
                ticks._depth += 1
                try:
                    result = original(self, *args, **kwargs)
                finally:
                    ticks._depth -= 1
                if ticks._depth == 0:
                    ticks._tick(source, None)
                return result

            return wrapper

        function_class = private("PolymorphicFunction")
        trainer = _defining_class(keras.Model, "train_on_batch")
        self._patches.set(callback_list, "on_train_batch_end", on_train_batch_end)
        self._patches.set(TensorFlowTrainer, "fit", patched_fit)
        self._patches.set(
            trainer,
            "train_on_batch",
            outermost(trainer.__dict__["train_on_batch"], "train_on_batch"),
        )
        self._patches.set(
            BaseOptimizer, "apply", outermost(BaseOptimizer.__dict__["apply"], "apply")
        )
        self._patches.set(
            function_class, "__call__", outermost(function_class.__dict__["__call__"], "function")
        )

    def _tick(self, source: str, model: Any) -> None:
        __tracebackhide__ = True
        if threading.get_ident() != self._thread:
            return
        self._on_step(source, model, self._fits > 0)


def _defining_class(cls: type, name: str) -> type:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    raise AttributeError(f"{cls.__name__} has no {name!r}")
