"""Train the user's own model for a moment, then put every piece of its state back.

:class:`TrainingGuard` owns every change a short training run makes to a
model: the values of its variables (weights, metric and seed-generator
states), its optimizers (iterations, learning rate, slot variables), the
global random states (Keras' global seed generator, NumPy's and Python's),
the attributes ``fit``/``evaluate`` set on the model (cached train/test
functions, ``history``, ``stop_training``), and the ``tf.function`` methods of
the model and its layers (a ``@tf.function train_step``: the run traces it
afresh, and its traces and first-call state are put back, so its next call is
what it would have been; a first call then still creates the optimizer's
variables, which the run's fresh optimizer would otherwise have taken).  A
model whose kept step was traced with other ``trainable`` flags than it has
now (a base unfrozen after ``fit`` without ``compile()``) trains with the
flags of then, as Keras' kept step would
(:mod:`~tfnb_debug.collect.traced_trainable`).  An optimizer that was never
built is replaced by a fresh copy from its config for the run, so it is not
built behind the user's back.  Augmentation layers run as in inference while
the guard is active.  Everything is restored in ``__exit__``, also on
exceptions and ``KeyboardInterrupt``.
"""

from __future__ import annotations

import contextlib
from types import TracebackType
from typing import Any

import keras

from tfnb_debug.collect._patching import Patches, Preserved, preserve
from tfnb_debug.collect.keras_access import layer_paths, model_optimizers
from tfnb_debug.collect.traced_trainable import StaleTrainable, enter_as_traced
from tfnb_debug.ground.errors import TfnbDebugError

__all__ = ["TrainingGuard", "is_augmentation"]

# Attributes that Keras' fit/evaluate/predict create or reset on the model.
_MODEL_ATTRIBUTES = (
    "train_function",
    "test_function",
    "predict_function",
    "stop_training",
    "stop_evaluating",
    "history",
    "_eval_epoch_iterator",
)


def is_augmentation(layer: Any) -> bool:
    """A random preprocessing layer (RandomFlip, RandomRotation, ...), not Dropout."""
    from tfnb_debug.collect.keras_access import DataLayer

    random_ = bool(getattr(layer, "_seed_generators", None))
    return random_ and (isinstance(layer, DataLayer) or type(layer).__name__.startswith("Random"))


class TrainingGuard:
    """``with TrainingGuard(model): model.fit(...)`` leaves ``model`` as it was before.

    ``removed`` lists the augmentation layers that ran as in inference.
    """

    def __init__(self, model: keras.Model) -> None:
        self.model = model
        self.removed: tuple[str, ...] = ()
        self._preserved: Preserved | None = None
        self._swapped: list[tuple[str, Any]] = []
        self._patches = Patches()
        self._functions = contextlib.ExitStack()
        #: the model's kept step was traced with other trainable flags: the run uses them
        self.stale: StaleTrainable | None = None

    def __enter__(self) -> TrainingGuard:
        try:
            self._enter()
        except BaseException:
            self._restore()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._restore()

    # -- acquire ----------------------------------------------------------------------

    def _enter(self) -> None:
        model = self.model
        # every variable (an unbuilt optimizer's too: swapped below, so it never changes)
        self._preserved = preserve(model)
        for name, optimizer in model_optimizers(model):
            if not (optimizer.built or name.endswith(")")):  # one in a tuple trains in place
                self._swap_optimizer(name, optimizer)
        patches = self._patches
        # read before the kept step is set aside: the next plain fit runs Keras' kept step,
        # so the run trains as it does
        self.stale = enter_as_traced(self._functions, model)
        for name in _MODEL_ATTRIBUTES:
            patches.keep(model, name)  # fit/evaluate set them
        for name in ("train_function", "test_function", "predict_function"):
            if name in vars(model):
                patches.set(model, name, None)  # retraced with the augmentation switched off
        from tfnb_debug.collect.retrace import model_functions, retraced

        self._functions.enter_context(retraced(model_functions(model)))
        removed = []
        for path, layer in layer_paths(model):
            if is_augmentation(layer):
                patches.set(layer, "call", _inference_call(layer))
                removed.append(path)
        self.removed = tuple(removed)

    def _swap_optimizer(self, name: str, optimizer: Any) -> None:
        """Train with a fresh copy of an unbuilt optimizer, so the user's stays unbuilt."""
        try:
            fresh = optimizer.__class__.from_config(optimizer.get_config())
        except Exception as err:
            raise TfnbDebugError(
                f"cannot copy the unbuilt optimizer {name!r} ({type(err).__name__}: {err}); "
                "train the model for one step first, so that its optimizer state exists"
            ) from None
        self._swapped.append((name, optimizer))
        self._put(name, fresh)

    def _put(self, name: str, optimizer: Any) -> None:
        """Set ``model.<name>`` or ``model.<attribute>[i]`` (an optimizer in a list)."""
        attribute, _, index = name.partition("[")
        if index:
            getattr(self.model, attribute)[int(index.rstrip("]"))] = optimizer
        else:
            object.__setattr__(self.model, attribute, optimizer)

    # -- release ----------------------------------------------------------------------

    def _restore(self) -> None:
        model = self.model
        try:
            try:
                self._functions.close()  # the tf.function methods' traces, trainable flags
            finally:
                self._patches.restore()  # augmentation calls, fit's attributes
        finally:
            saved, self._preserved = self._preserved, None
            try:
                if saved is not None:
                    for metric in getattr(model, "metrics", []) or []:
                        metric.reset_state()  # metric state the run created starts from zero
                    saved.restore()
            finally:
                swapped, self._swapped = self._swapped, []
                for name, optimizer in reversed(swapped):
                    self._put(name, optimizer)


def _inference_call(layer: Any) -> Any:
    """A ``call`` that passes the inputs through ``layer`` as in inference."""
    original = layer.call
    takes_training = bool(getattr(layer, "_call_has_training_arg", False))

    def call(*args: Any, **kwargs: Any) -> Any:
        if takes_training:
            kwargs["training"] = False
            return original(*args, **kwargs)
        return args[0] if args else next(iter(kwargs.values()))

    return call
