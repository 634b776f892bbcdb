"""Record what each ``Model.fit`` call made in a block was asked to do (P13, P14).

Usage::

    from tfnb_debug.collect.fit_args import FitArgsRecorder

    with FitArgsRecorder() as recorder:
        model.fit(x, y, validation_split=0.2)
    recorder.calls        # one FitCall of plain values per fit call

How it works, and what it promises:

* ``fit`` is replaced on the Keras class that defines it (the TensorFlow
  trainer under ``keras.Model``) when the first recorder is entered, and the
  original function object is put back when the last one exits, in ``finally``
  (also on exceptions and ``KeyboardInterrupt``), through the
  :class:`~tfnb_debug.collect._patching.Patches` guard.  Instances are never touched.
* The active recorders live in a :class:`contextvars.ContextVar`: only ``fit``
  calls made by the thread that entered the block are recorded; every recorder
  active there gets the call (a report of each feature is complete on its own).
* The patched ``fit`` records the arguments and calls the original at once:
  no retrace, no pass over a dataset (only ``dataset.cardinality()``), and for
  ``validation_split`` one NumPy count over the label array.  A failure while
  describing the call is swallowed: it never changes what ``fit`` does.
* A recorder made with ``after_fit`` also calls it once ``fit`` has returned
  (``%%tfgrad`` reads what the model now predicts there, P16); it is guarded
  the same way, and ``fit``'s result is returned unchanged.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import math
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

import numpy as np

from tfnb_debug.collect._patching import Patches

__all__ = [
    "FitArgsRecorder",
    "FitCall",
    "LabelCounts",
    "is_dataset",
    "label_counts",
    "original_fit",
    "replica_batchnorm",
]

#: label arrays with more distinct values than this are taken as regression targets
MAX_CLASSES = 1000


@dataclass(frozen=True)
class LabelCounts:
    """How many labels of each class fall on each side of a ``validation_split``.

    ``encoding`` is ``"class ids"``, ``"binary"`` or ``"one-hot"``; counts are
    floats because soft one-hot rows count fractionally.
    """

    encoding: str
    classes: tuple[str, ...]
    train: tuple[float, ...]
    validation: tuple[float, ...]

    @property
    def n_train(self) -> float:
        return float(sum(self.train))

    @property
    def n_validation(self) -> float:
        return float(sum(self.validation))


@dataclass(frozen=True)
class FitCall:
    """The arguments of one ``fit`` call, as plain values.

    ``batches`` / ``validation_batches``: what a ``tf.data.Dataset`` given as
    ``x`` / ``validation_data`` yields per pass (its cardinality), ``None`` when
    it is not a dataset, repeats forever or its size is unknown.  ``epochs`` is
    the number of epochs that run (``epochs - initial_epoch``, capped as Keras
    caps it); ``steps_per_epoch`` likewise.
    """

    model: str
    validation_split: float = 0.0
    labels: LabelCounts | None = None
    x_name: str | None = None
    y_name: str | None = None
    samples: int | None = None
    steps_per_epoch: int | None = None
    epochs: int = 1
    steps_per_execution: int = 1
    batches: int | None = None
    validation_steps: int | None = None
    validation_batches: int | None = None
    validation_name: str | None = None
    # under a tf.distribute strategy (D03, D04): the replicas, the global batch size, the size
    # of each epoch's last global batch (0: even), and the BatchNormalization layers that train
    # on per-replica batches (not synchronized)
    replicas: int = 1
    global_batch: int | None = None
    last_batch: int | None = None
    batchnorm: tuple[str, ...] = ()
    # how long the call ran (wall seconds), known once it returned: what is read after it
    # (P16's predictions) is bounded by a share of it
    seconds: float | None = None


# -- the class-level patch ------------------------------------------------------

_ACTIVE: contextvars.ContextVar[tuple[FitArgsRecorder, ...]] = contextvars.ContextVar(
    "tfnb_debug_fit_recorders", default=()
)
_LOCK = threading.RLock()


class _Installed:
    def __init__(self) -> None:
        self.users = 0
        self.original: Any = None
        self.patches = Patches()


_STATE = _Installed()


def _fit_owner() -> Any:
    """The class in ``keras.Model``'s MRO whose ``__dict__`` defines ``fit``."""
    import keras

    return next(c for c in keras.Model.__mro__ if "fit" in c.__dict__)


def original_fit() -> Any:
    """The unpatched ``fit`` function (whether or not a recorder is active)."""
    with _LOCK:
        if _STATE.original is not None:
            return _STATE.original
        return _fit_owner().__dict__["fit"]


def _make_patched_fit(original: Any) -> Any:
    @functools.wraps(original)
    def fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        recorders = _ACTIVE.get()
        call = None
        if recorders:
            call = describe_fit_call(original, self, args, kwargs, sys._getframe(1))
            if call is not None:
                for recorder in recorders:
                    recorder.calls.append(call)
        start = time.perf_counter()
        if any(recorder.retrace_models for recorder in recorders):
            from tfnb_debug.collect.retrace import model_functions, retraced

            # the model's own tf.function methods trace afresh, hooked, for this call, and
            # get their traces back after it (a hooked trace kept would fail the next fit)
            with retraced(model_functions(self)):
                result = original(self, *args, **kwargs)
        else:
            result = original(self, *args, **kwargs)
        if call is not None:
            call = dataclasses.replace(call, seconds=time.perf_counter() - start)
        for recorder in recorders:
            if recorder.after_fit is not None:
                recorder.read_outcome(original, self, args, kwargs, result, call)
        return result

    fit.__tfnb_debug_patch__ = True  # type: ignore[attr-defined]
    return fit


def _install() -> None:
    with _LOCK:
        if _STATE.users == 0:
            owner = _fit_owner()
            original = owner.__dict__["fit"]
            _STATE.patches.set(owner, "fit", _make_patched_fit(original))
            _STATE.original = original
        _STATE.users += 1


def _remove() -> None:
    with _LOCK:
        _STATE.users -= 1
        if _STATE.users == 0:
            _STATE.original = None
            _STATE.patches.restore()


class FitArgsRecorder:
    """Records every ``Model.fit`` call made in its ``with`` block into :attr:`calls`.

    ``retrace_models``: each fitted model's ``tf.function`` methods (a subclassed model's
    ``@tf.function train_step``) trace afresh for the call and get their own traces back
    after it (:func:`~tfnb_debug.collect.retrace.retraced`), for a recording whose hooks
    are traced into the step.
    ``after_fit(model, arguments, result, call)``, when given, is called after each
    ``fit`` returns (with its bound arguments, the ``History`` and the call's
    :class:`FitCall`, or None); what it returns,
    unless None, goes into :attr:`outcomes`.  It must not raise (it is guarded anyway).
    """

    def __init__(
        self, after_fit: Callable[..., Any] | None = None, *, retrace_models: bool = False
    ) -> None:
        self.calls: list[FitCall] = []
        self.after_fit = after_fit
        self.retrace_models = retrace_models
        self.outcomes: list[Any] = []
        self._token: contextvars.Token[tuple[FitArgsRecorder, ...]] | None = None

    def read_outcome(
        self,
        fit: Any,
        model: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        result: Any,
        call: FitCall | None,
    ) -> None:
        """Run :attr:`after_fit` on one finished ``fit`` call; never raises."""
        import inspect

        if self.after_fit is None:
            return
        try:
            bound = inspect.signature(fit).bind(model, *args, **kwargs)
            found = self.after_fit(model, dict(bound.arguments), result, call)
        except Exception:  # reading the outcome must never change what fit returns
            return
        if found is not None:
            self.outcomes.append(found)

    def __enter__(self) -> FitArgsRecorder:
        _install()
        try:
            self._token = _ACTIVE.set((*_ACTIVE.get(), self))
        except BaseException:
            _remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._token is not None:
                _ACTIVE.reset(self._token)
                self._token = None
        finally:
            _remove()


# -- describing one call --------------------------------------------------------


def describe_fit_call(
    fit: Any, model: Any, args: tuple[Any, ...], kwargs: dict[str, Any], frame: FrameType | None
) -> FitCall | None:
    """The plain facts of ``model.fit(*args, **kwargs)``; None when they cannot be read."""
    import inspect

    try:
        bound = inspect.signature(fit).bind(model, *args, **kwargs)
    except TypeError:
        return None  # Keras itself will say what is wrong with the arguments
    a = bound.arguments
    try:
        return _describe(model, a, frame)
    except Exception:  # describing must never change what fit does
        return None


def _describe(model: Any, a: dict[str, Any], frame: FrameType | None) -> FitCall:
    import keras

    x, y = a.get("x"), a.get("y")
    validation_data = a.get("validation_data")
    split = float(a.get("validation_split") or 0.0)
    labels = None
    samples = None
    if split and validation_data is None and y is not None and not is_dataset(x):
        samples = _leading(y)
        if samples is not None:
            split_at = int(math.floor(samples * (1.0 - split)))
            if 0 < split_at < samples:
                labels = label_counts(y, split_at)
    epochs = int(a.get("epochs", 1))
    if keras.config.max_epochs():
        epochs = min(epochs, int(keras.config.max_epochs()))
    initial = getattr(model, "_initial_epoch", None) or int(a.get("initial_epoch", 0))
    steps = a.get("steps_per_epoch")
    if steps is not None:
        steps = int(steps)
        if keras.config.max_steps_per_epoch():
            steps = min(steps, int(keras.config.max_steps_per_epoch()))
    validation_steps = a.get("validation_steps")
    val_x = validation_data
    if isinstance(validation_data, tuple | list) and validation_data:
        val_x = validation_data[0]
    user_frame = frame if frame is not None and frame.f_code.co_name != "fit" else None
    return FitCall(
        model=str(getattr(model, "name", type(model).__name__)),
        validation_split=split,
        labels=labels,
        x_name=_name_of(x, user_frame),
        y_name=_name_of(y, user_frame),
        samples=samples,
        steps_per_epoch=steps,
        epochs=max(0, epochs - int(initial)),
        steps_per_execution=int(getattr(model, "steps_per_execution", 1) or 1),
        batches=_finite_batches(x),
        validation_steps=int(validation_steps) if validation_steps is not None else None,
        validation_batches=_finite_batches(val_x),
        validation_name=_name_of(val_x, user_frame) if is_dataset(val_x) else None,
        **_distribution(model, x, y, a, split),
    )


def _distribution(model: Any, x: Any, y: Any, a: dict[str, Any], split: float) -> dict[str, Any]:
    """Replicas, global and last batch, and per-replica BatchNormalization (D03, D04)."""
    strategy = getattr(model, "distribute_strategy", None)
    replicas = int(getattr(strategy, "num_replicas_in_sync", 1) or 1)
    if replicas <= 1:
        return {}
    batch, last = _batches(x, y, a, split)
    return {
        "replicas": replicas,
        "global_batch": batch,
        "last_batch": last,
        "batchnorm": replica_batchnorm(model),
    }


def _batches(x: Any, y: Any, a: dict[str, Any], split: float) -> tuple[int | None, int | None]:
    """(global batch size, size of the last batch of an epoch) when they can be read."""
    if is_dataset(x):
        ds = x
        while ds is not None:
            if hasattr(ds, "_batch_size") and hasattr(ds, "_drop_remainder"):
                try:
                    batch, drop = int(ds._batch_size), bool(ds._drop_remainder)
                    size = int(ds._input_dataset.cardinality())
                except Exception:
                    return None, None
                last = 0 if drop else (size % batch if size >= 0 else None)
                return batch, last
            ds = getattr(ds, "_input_dataset", None)
        return None, None
    samples = _leading(y) if y is not None else _leading(x)
    batch = int(a.get("batch_size") or 32)  # Keras' default for arrays
    if samples is None:
        return batch, None
    train = int(math.floor(samples * (1.0 - split))) if split else samples
    return batch, train % batch


def replica_batchnorm(model: Any) -> tuple[str, ...]:
    """Paths of the BatchNormalization layers that train and normalize per replica."""
    from tfnb_debug.collect.batchnorm_training import batchnorm_modes

    try:
        training = batchnorm_modes(model).training
        synchronized = {
            layer.name
            for layer in model._flatten_layers(include_self=False)
            if type(layer).__name__ == "BatchNormalization"
            and getattr(layer, "synchronized", False)
        }
    except Exception:
        return ()
    return tuple(p for p in training if p.rsplit("/", 1)[-1] not in synchronized)


def is_dataset(value: Any) -> bool:
    """Whether ``value`` is a ``tf.data.Dataset`` (without importing TensorFlow)."""
    tf = sys.modules.get("tensorflow")
    return tf is not None and isinstance(value, tf.data.Dataset)


def _finite_batches(value: Any) -> int | None:
    """A dataset's known, finite cardinality (None for infinite, unknown or not a dataset)."""
    if not is_dataset(value):
        return None
    n = int(value.cardinality())
    return n if n >= 0 else None


def _leading(value: Any) -> int | None:
    shape = getattr(value, "shape", None)
    if shape is None or len(shape) == 0 or shape[0] is None:
        return None
    return int(shape[0])


def _name_of(value: Any, frame: FrameType | None) -> str | None:
    """The name the calling code binds ``value`` to (locals first), if any."""
    if value is None or frame is None:
        return None
    for scope in (frame.f_locals, frame.f_globals):
        for name, bound in list(scope.items()):
            if bound is value and not name.startswith("_"):
                return name
    return None


# -- labels -----------------------------------------------------------------------


def label_counts(y: Any, split_at: int, *, max_classes: int = MAX_CLASSES) -> LabelCounts | None:
    """Class counts of ``y[:split_at]`` and ``y[split_at:]``, or None if ``y`` is not class labels.

    Class labels are integer (or integral float) class ids of shape ``(N,)`` or
    ``(N, 1)`` with at most ``max_classes`` distinct values, a 0/1 column, or
    one-hot rows (non-negative, each summing to 1).  Anything else (regression
    targets, multi-label rows, sequences, nested structures) gives None.
    Only the label array is read; it is not copied unless it must be converted.
    """
    if isinstance(y, dict | list | tuple):
        return None
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        return _column_counts(arr, split_at, max_classes)
    if arr.ndim == 2 and 2 <= arr.shape[1] <= max_classes:
        return _one_hot_counts(arr, split_at)
    return None


def _column_counts(col: np.ndarray, split_at: int, max_classes: int) -> LabelCounts | None:
    if col.dtype == bool:
        col = col.astype(np.int8)
    if np.issubdtype(col.dtype, np.floating):
        if not np.all(np.isfinite(col)) or not np.all(col == np.round(col)):
            return None  # continuous values: a regression target
    elif not np.issubdtype(col.dtype, np.integer):
        return None
    values, inverse = np.unique(col, return_inverse=True)
    if len(values) > max_classes or len(values) < 2:
        return None
    inverse = inverse.reshape(-1)
    train = np.bincount(inverse[:split_at], minlength=len(values))
    validation = np.bincount(inverse[split_at:], minlength=len(values))
    binary = len(values) == 2 and set(values.tolist()) == {0, 1}
    return LabelCounts(
        encoding="binary" if binary else "class ids",
        classes=tuple(_class_name(v) for v in values.tolist()),
        train=tuple(float(n) for n in train),
        validation=tuple(float(n) for n in validation),
    )


def _one_hot_counts(arr: np.ndarray, split_at: int) -> LabelCounts | None:
    if not np.issubdtype(arr.dtype, np.number) or arr.min() < 0:
        return None
    if np.abs(arr.sum(axis=1) - 1.0).max() > 1e-3:
        return None  # multi-label or unnormalized rows: not one class per example
    train = arr[:split_at].sum(axis=0, dtype=np.float64)
    validation = arr[split_at:].sum(axis=0, dtype=np.float64)
    return LabelCounts(
        encoding="one-hot",
        classes=tuple(str(i) for i in range(arr.shape[1])),
        train=tuple(float(n) for n in train),
        validation=tuple(float(n) for n in validation),
    )


def _class_name(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
