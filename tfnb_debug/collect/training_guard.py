"""Train the user's own model for a moment, then put every piece of its state back.

:class:`TrainingGuard` owns every change a short training run makes to a
model: the values of its variables (weights, metric and seed-generator
states), its optimizers (iterations, learning rate, slot variables), the
global random states (Keras' global seed generator, NumPy's and Python's),
and the attributes ``fit``/``evaluate`` set on the model (cached train/test
functions, ``history``, ``stop_training``).  An optimizer that was never
built is replaced by a fresh copy from its config for the run, so it is not
built behind the user's back.  Augmentation layers run as in inference while
the guard is active.  Everything is restored in ``__exit__``, also on
exceptions and ``KeyboardInterrupt``.
"""

from __future__ import annotations

import random
from types import TracebackType
from typing import Any

import keras
import numpy as np

from tfnb_debug.collect.keras_access import layer_paths
from tfnb_debug.collect.snapshot import (
    VariableSnapshot,
    drop_global_seed_generator,
    global_seed_generator,
)
from tfnb_debug.errors import TfnbDebugError

__all__ = ["TrainingGuard", "is_augmentation", "optimizer_slots"]

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
_MISSING = object()


def is_augmentation(layer: Any) -> bool:
    """A random preprocessing layer (RandomFlip, RandomRotation, ...), not Dropout."""
    from tfnb_debug.collect.keras_access import DataLayer

    random_ = bool(getattr(layer, "_seed_generators", None))
    return random_ and (isinstance(layer, DataLayer) or type(layer).__name__.startswith("Random"))


def optimizer_slots(model: keras.Model) -> list[tuple[str, Any]]:
    """``(attribute, optimizer)`` for ``model.optimizer`` and every optimizer held as an attribute.

    A model with its own ``train_step`` (a GAN) often keeps its optimizers in
    attributes such as ``d_optimizer``; they train as much as ``model.optimizer``.
    """
    from keras.optimizers import Optimizer

    found: list[tuple[str, Any]] = []
    seen: set[int] = set()
    for name, value in [("optimizer", getattr(model, "optimizer", None)), *vars(model).items()]:
        items = list(value) if isinstance(value, list | tuple) else [value]
        for index, item in enumerate(items):
            if isinstance(item, Optimizer) and id(item) not in seen:
                seen.add(id(item))
                where = f"{name}[{index}]" if isinstance(value, list) else f"{name}({index})"
                found.append((name if item is value else where, item))
    return found


class TrainingGuard:
    """``with TrainingGuard(model): model.fit(...)`` leaves ``model`` as it was before.

    ``removed`` lists the augmentation layers that ran as in inference.
    """

    def __init__(self, model: keras.Model) -> None:
        self.model = model
        self.removed: tuple[str, ...] = ()
        self._snapshot: VariableSnapshot | None = None
        self._swapped: list[tuple[str, Any]] = []
        self._attributes: dict[str, Any] = {}
        self._patched: list[Any] = []
        self._had_global_seed = True  # set for real once the guard is entered
        self._numpy_state: Any = None
        self._python_state: Any = None

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
        self._numpy_state = np.random.get_state()
        self._python_state = random.getstate()
        gen = global_seed_generator()
        self._had_global_seed = gen is not None
        variables: list[Any] = [*model.variables, *_metric_variables(model)]
        if gen is not None:
            variables.append(gen.state)
        for name, optimizer in optimizer_slots(model):
            if optimizer.built or name.endswith(")"):  # one held in a tuple trains in place
                variables.extend(optimizer.variables)
            else:
                self._swap_optimizer(name, optimizer)
        unique: dict[int, Any] = {}
        for var in variables:
            unique.setdefault(id(var), var)
        self._snapshot = VariableSnapshot.take(unique.values())
        for name in _MODEL_ATTRIBUTES:
            self._attributes[name] = vars(model).get(name, _MISSING)
        for name in ("train_function", "test_function", "predict_function"):
            if name in vars(model):
                setattr(model, name, None)  # retraced with the augmentation switched off
        removed = []
        for path, layer in layer_paths(model):
            if is_augmentation(layer):
                _run_as_inference(layer)
                self._patched.append(layer)
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
        for layer in self._patched:
            layer.__dict__.pop("call", None)
        self._patched = []
        if self._snapshot is not None:
            for metric in getattr(model, "metrics", []) or []:
                metric.reset_state()  # metric state the run created starts from zero again
            self._snapshot.restore()
            self._snapshot = None
        for name, optimizer in self._swapped:
            self._put(name, optimizer)
        self._swapped = []
        for name, value in self._attributes.items():
            if value is _MISSING:
                model.__dict__.pop(name, None)
            else:
                object.__setattr__(model, name, value)
        self._attributes = {}
        if not self._had_global_seed:
            drop_global_seed_generator()
        if self._numpy_state is not None:
            np.random.set_state(self._numpy_state)
            random.setstate(self._python_state)
            self._numpy_state = None


def _metric_variables(model: keras.Model) -> list[Any]:
    found: list[Any] = []
    for metric in getattr(model, "metrics", []) or []:
        found.extend(metric.variables)
    return found


def _run_as_inference(layer: Any) -> None:
    """Make ``layer`` pass its inputs through as in inference (an instance attribute)."""
    original = layer.call
    takes_training = bool(getattr(layer, "_call_has_training_arg", False))

    def call(*args: Any, **kwargs: Any) -> Any:
        if takes_training:
            kwargs["training"] = False
            return original(*args, **kwargs)
        return args[0] if args else next(iter(kwargs.values()))

    layer.__dict__["call"] = call
