"""Throughput of a dataset (the way ``tfds.benchmark`` measures it) and a model's train-step rate.

``tfds.benchmark`` starts a clock, iterates, notes the time the first element
arrives, and reports the steady rate from there on.  :func:`measure_throughput`
does the same over a bounded number of elements and seconds, so an infinite
(``repeat()``) dataset is never iterated without bound.  The one difference is
deliberate: the steady rate counts only the examples that arrived after the
first element (``tfds`` divides all examples, the first batch's included, by
the time after it, which overstates short runs by ``n / (n - 1)``).

:func:`train_step_rate` times ``model.train_on_batch`` on one sampled batch
inside :func:`preserved_training_state`, which snapshots every variable of the
model, its optimizer and its metrics and restores them in ``finally``: the
inspection never trains the user's model.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from tfnb_debug.collect.keras_access import build_from_data
from tfnb_debug.ground.text import first_line

__all__ = [
    "ModelStep",
    "Throughput",
    "measure_throughput",
    "preserved_training_state",
    "train_step_rate",
]


@dataclass(frozen=True)
class Throughput:
    """One timing run: ``elements`` read in ``total_s``; the first after ``first_s``."""

    name: str
    elements: int
    examples: int
    first_examples: int
    first_s: float
    total_s: float
    stopped_by: str  # "count", "time" or "end"
    error: str = ""

    @property
    def steady_s(self) -> float:
        return self.total_s - self.first_s

    @property
    def examples_per_s(self) -> float | None:
        if self.elements < 2 or self.steady_s <= 0:
            return None
        return (self.examples - self.first_examples) / self.steady_s

    @property
    def elements_per_s(self) -> float | None:
        if self.elements < 2 or self.steady_s <= 0:
            return None
        return (self.elements - 1) / self.steady_s


@dataclass(frozen=True)
class ModelStep:
    """The model's measured training speed on one sampled batch."""

    steps: int
    seconds: float
    batch_examples: int
    error: str = ""

    @property
    def steps_per_s(self) -> float | None:
        return self.steps / self.seconds if self.steps and self.seconds > 0 else None


def measure_throughput(
    ds: tf.data.Dataset,
    *,
    name: str,
    batched: bool,
    max_elements: int,
    max_seconds: float,
    progress: Callable[[int, int], None] | None = None,
    keep: list[Any] | None = None,
    keep_count: int = 0,
) -> Throughput:
    """Iterate ``ds.take(max_elements)`` until it ends or ``max_seconds`` have passed.

    The first ``keep_count`` elements are appended to ``keep`` (so a sample
    needs no second pass over the pipeline).
    """
    elements = examples = first_examples = 0
    first_s = total_s = 0.0
    stopped = "end"
    iterator = None
    start = time.perf_counter()
    try:
        iterator = iter(ds.take(max_elements))
        for element in iterator:
            now = time.perf_counter()
            count = _examples_in(element) if batched else 1
            if keep is not None and elements < keep_count:
                keep.append(element)
            elements += 1
            examples += count
            if elements == 1:
                first_s = now - start
                first_examples = count
            total_s = now - start
            if progress is not None:
                progress(elements, max_elements)
            if elements >= max_elements:
                stopped = "count"
                break
            if total_s - first_s >= max_seconds:
                stopped = "time"
                break
    except tf.errors.OpError as err:
        return Throughput(
            name, elements, examples, first_examples, first_s, total_s, "error", _err(err)
        )
    finally:
        del iterator
    return Throughput(name, elements, examples, first_examples, first_s, total_s, stopped)


def _examples_in(element: Any) -> int:
    leaf = tf.nest.flatten(element)[0]
    try:
        if isinstance(leaf, tf.SparseTensor):
            return int(leaf.dense_shape[0])
        if isinstance(leaf, tf.RaggedTensor):
            return int(leaf.nrows())
        return int(leaf.shape[0]) if len(leaf.shape) else 1
    except Exception:
        return 1


@contextlib.contextmanager
def preserved_training_state(model: Any) -> Iterator[None]:
    """Snapshot the model's, optimizer's and metrics' variables; restore them in ``finally``.

    Also restores ``model.train_function`` (TRAPS 7), so the inspection leaves
    no traced function behind.  An optimizer that was not built yet is built
    first (what ``fit`` does on its first step), so its fresh state is what
    gets restored.
    """
    from tfnb_debug.collect._patching import patched, preserved

    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and not getattr(optimizer, "built", True):
        optimizer.build(model.trainable_variables)
    with preserved(model), patched() as patches:
        patches.keep(model, "train_function")
        yield


def train_step_rate(model: Any, x: Any, y: Any, *, steps: int, max_seconds: float) -> ModelStep:
    """Time ``model.train_on_batch(x, y)`` after one warm-up step; the model is left unchanged."""
    batch = _examples_in(x)
    if getattr(model, "optimizer", None) is None or getattr(model, "loss", None) is None:
        return ModelStep(0, 0.0, batch, "the model is not compiled, so it has no training step")
    done = 0
    seconds = 0.0
    # a model without an Input is built first, as its first fit would build it: the
    # optimizer is then built for its variables (built on none, fit's next step fails)
    build_from_data(model, x)
    try:
        with preserved_training_state(model):
            model.train_on_batch(x, y)  # traces the train function
            start = time.perf_counter()
            while done < steps:
                model.train_on_batch(x, y)
                done += 1
                seconds = time.perf_counter() - start
                if seconds >= max_seconds:
                    break
    except Exception as err:  # a model that cannot train on this batch: say so in the report
        return ModelStep(0, 0.0, batch, f"train_on_batch failed: {_err(err)}")
    return ModelStep(done, seconds, batch)


def _err(err: BaseException) -> str:
    return f"{type(err).__name__}: {first_line(err)}"
