"""Training-step markers for ``%%tfmem``: class-level patches that note each step.

``CallbackList.on_train_batch_end`` (``model.fit``), ``Model.train_on_batch``
and the eager calls of ``Optimizer.apply`` / ``apply_gradients`` (custom
loops).  At each step every memory probe is read right there, so the per-step
memory the R01 rule fits is exact.  :class:`StepMarkers` installs and restores
the patches; :class:`~tfnb_debug.collect.memory.MemoryRecorder` owns it and
restores it in ``finally``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect._patching import Patches

__all__ = ["StepMark", "StepMarkers", "watch_graph_optimizers"]

_INSTALLED: list[StepMarkers] = []  # the markers whose patches are in place now
_INSTALLED_LOCK = threading.Lock()


def watch_graph_optimizers(optimizers: Iterable[Any]) -> None:
    """Tell every installed :class:`StepMarkers` that these optimizers step inside a graph.

    For a train function that runs without being traced (``%%tfgrad`` reuses
    an instrumented one): the markers would otherwise learn it while tracing.
    """
    optimizers = list(optimizers)
    with _INSTALLED_LOCK:
        installed = list(_INSTALLED)
    for markers in installed:
        markers.watch(optimizers)


@dataclass(frozen=True)
class StepMark:
    """A training step: when it ended, what noted it, and every probe's current bytes then."""

    index: int
    time: float
    source: str
    readings: tuple[tuple[str, int], ...]

    def reading(self, series: str) -> int | None:
        for name, value in self.readings:
            if name == series:
                return value
        return None


class StepMarkers:
    """Class-level patches that note each training step; ``install``/``restore`` pair up.

    Nested calls (``train_on_batch`` -> ``apply_gradients`` -> ``apply`` run
    eagerly) note one step, from the outermost call.  ``model.fit`` with
    ``run_eagerly=True`` reaches both the optimizer and the callback: a batch
    end right after an eager step of the model's own optimizer is that same
    step (no tensor is read to tell).  Calls made while a ``tf.function``
    traces are ignored (they are not steps).
    """

    def __init__(self, read: Callable[[], list[tuple[int, int | None]]], names: list[str]):
        self._read = read
        self._names = names
        self.origin = time.perf_counter()
        self.marks: list[StepMark] = []
        self.models: weakref.WeakSet[Any] = weakref.WeakSet()
        # optimizers stepping inside a tf.function: their ``iterations`` are read per sample
        self.graph_optimizers: weakref.WeakSet[Any] = weakref.WeakSet()
        # each one's ``iterations`` when first watched (before any step of this cell ran)
        self._graph_baselines: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        # what :meth:`graph_step_count` counts from: 0 once an optimizer's count was read
        self.graph_baseline: int | None = None
        self._patches = Patches()
        self._depth = threading.local()
        self._last_optimizer: int | None = None  # id of the optimizer of the last eager step
        self._thread = threading.get_ident()

    # -- the patches ---------------------------------------------------------------------
    def install(self) -> None:
        import keras
        import tensorflow as tf

        markers = self

        callback_list = keras.callbacks.CallbackList
        batch_end = callback_list.on_train_batch_end

        def on_train_batch_end(self: Any, batch: Any, logs: Any = None) -> Any:
            result = batch_end(self, batch, logs)
            model = getattr(self, "model", None)
            markers._note("fit", getattr(model, "optimizer", None), model)
            return result

        self._patch(callback_list, "on_train_batch_end", on_train_batch_end)

        trainer = _defining_class(keras.Model, "train_on_batch")
        train_on_batch = trainer.__dict__["train_on_batch"]

        def patched_train_on_batch(self: Any, *args: Any, **kwargs: Any) -> Any:
            with markers._outer() as outermost:
                result = train_on_batch(self, *args, **kwargs)
            if outermost:
                markers._note("train_on_batch", getattr(self, "optimizer", None), self)
            return result

        self._patch(trainer, "train_on_batch", patched_train_on_batch)

        for method in ("apply_gradients", "apply"):
            owner = _defining_class(keras.optimizers.Optimizer, method)
            self._patch(owner, method, self._optimizer_wrapper(tf, owner.__dict__[method], method))
        with _INSTALLED_LOCK:
            _INSTALLED.append(self)

    def restore(self) -> None:
        with _INSTALLED_LOCK:
            if self in _INSTALLED:
                _INSTALLED.remove(self)
        self._patches.restore()

    def _patch(self, owner: type, name: str, replacement: Callable[..., Any]) -> None:
        original = owner.__dict__[name]
        replacement.__wrapped__ = original  # type: ignore[attr-defined]
        replacement.__name__ = name
        replacement.__doc__ = getattr(original, "__doc__", None)
        self._patches.set(owner, name, replacement)

    def _optimizer_wrapper(
        self, tf: Any, original: Callable[..., Any], method: str
    ) -> Callable[..., Any]:
        markers = self

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True  # IPython leaves this frame out of the user's traceback
            if not tf.executing_eagerly():  # being traced: count its steps by sampling
                markers.watch([self])
                return original(self, *args, **kwargs)
            with markers._outer() as outermost:
                result = original(self, *args, **kwargs)
            if outermost:
                markers._note(method, self, None)
            return result

        return wrapper

    # -- steps inside tf.function --------------------------------------------------------
    def watch(self, optimizers: Iterable[Any]) -> None:
        """Count the steps of these optimizers by reading their ``iterations`` when sampling."""
        for optimizer in optimizers:
            with contextlib.suppress(TypeError):
                if optimizer not in self.graph_optimizers:
                    self._baseline(optimizer)
                self.graph_optimizers.add(optimizer)

    def _baseline(self, optimizer: Any) -> None:
        """Remember ``optimizer``'s ``iterations`` as it is now: the count its steps in this cell
        add to (each optimizer its own: an optimizer trained in an earlier cell and one the cell
        creates start from different counts).

        ``watch`` runs while a ``tf.function`` traces (before its first step
        executes) or before the cell runs; ``tf.init_scope`` reads the value
        eagerly even from inside a trace.
        """
        try:
            import tensorflow as tf

            with tf.init_scope():
                count = int(optimizer.iterations.numpy())
        except Exception:
            return
        self._graph_baselines[optimizer] = count
        self.graph_baseline = 0

    def graph_step_count(self) -> int | None:
        """The most steps any watched optimizer took since it was first watched (None: none
        to read).

        Called from the sampler thread.  The largest, not the sum: a
        LossScaleOptimizer and its inner optimizer, or a GAN's two optimizers,
        advance together once per step.
        """
        try:
            optimizers = list(self.graph_optimizers)
        except RuntimeError:  # the set changed while being copied: next sample
            return None
        counts = []
        for optimizer in optimizers:
            with contextlib.suppress(Exception):
                start = self._graph_baselines.get(optimizer)
                if start is not None:
                    counts.append(int(optimizer.iterations.numpy()) - start)
        return max(counts) if counts else None

    # -- bookkeeping ---------------------------------------------------------------------
    @contextlib.contextmanager
    def _outer(self) -> Iterator[bool]:
        depth = getattr(self._depth, "value", 0)
        self._depth.value = depth + 1
        try:
            yield depth == 0
        finally:
            self._depth.value = depth

    def _note(self, source: str, optimizer: Any, model: Any) -> None:
        if threading.get_ident() != self._thread:
            return  # another thread's training is not this cell's
        if model is not None:
            with contextlib.suppress(TypeError):
                self.models.add(model)
        if source in ("fit", "train_on_batch"):
            same = optimizer is not None and id(optimizer) == self._last_optimizer
            self._last_optimizer = None
            if same and self.marks:  # run_eagerly: the optimizer already noted this step
                self.marks[-1] = dataclasses.replace(self.marks[-1], source=source)
                return
        else:
            self._last_optimizer = id(optimizer)
        now = time.perf_counter() - self.origin
        try:
            readings = self._read()
        except Exception:
            return
        self.marks.append(
            StepMark(
                index=len(self.marks),
                time=now,
                source=source,
                readings=tuple(
                    (name, value[0]) for name, value in zip(self._names, readings, strict=True)
                ),
            )
        )


def _defining_class(cls: type, name: str) -> type:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass
    raise AttributeError(f"{cls.__name__} has no {name!r}")
