"""P15's control run: do the real labels teach a fresh copy of the model more than shuffled ones?

:func:`run_label_control` takes a ``fit`` call's model and arguments (the
:class:`~tfnb_debug.collect.fit_args.FitArgsRecorder` keeps them until the recording
ends) and trains a copy of the model twice from the same fresh weights (``clone_model``:
the same architecture, new initial weights; compiled with the same loss and a fresh
optimizer from the same config), once on a bounded sample of the training rows with
their real labels and once with the same labels shuffled (one private permutation).
Both runs take the same steps on the same batches; each is then scored, in inference
mode, on the validation rows against their real labels.

Cost: at most :data:`MAX_ROWS` training rows, :data:`MAX_STEPS` steps per run and
:data:`MAX_HELD_OUT` validation rows; the real-label run stops at half of
``max_seconds`` after its first step (whose trace is a one-time cost) and the shuffled one takes the steps it took.  A model whose forward pass
says it cannot take :data:`MIN_STEPS` steps in that time is not trained at all, and a run
that does not is not judged (:attr:`ControlRun.ran` False, with the reason).

Everything runs under :class:`~tfnb_debug.collect.training_guard.TrainingGuard` on the
user's model (its weights, optimizer, metrics and every global random state are put back
bit for bit) and Keras' automatic layer-name counters are put back too, so the next
layer the user makes gets the name it would have had.  The copy is dropped afterwards.
Nothing here raises: a failure is a :class:`ControlRun` that did not run, with the reason.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfnb_debug.collect.fit_args import is_dataset
from tfnb_debug.collect.fit_outcome import ClassifierHead, ControlRun, class_ids, predicted_ids

__all__ = ["dataset_rows", "name_counters_kept", "run_label_control"]

#: training rows the control samples from the fit's training data
MAX_ROWS = 2048
#: validation rows the control is scored on
MAX_HELD_OUT = 2048
#: optimizer steps per run, at most
MAX_STEPS = 300
#: fewer steps than this in the time budget: the control is not judged
MIN_STEPS = 10
#: seconds for both runs together (copies, scoring and later pairs' tracing included; the
#: first step's trace is not: the budget starts when it ends)
MAX_SECONDS = 6.0
#: pairs of runs (real, shuffled), each from new weights, averaged while time allows
REPEATS = 3
_EVAL_BATCH = 256
_MAX_BATCHES = 64


def run_label_control(
    model: Any,
    arguments: dict[str, Any],
    head: ClassifierHead,
    *,
    max_seconds: float = MAX_SECONDS,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
) -> ControlRun:
    """The control for ``model.fit(**arguments)`` (see the module docstring); never raises."""
    start = time.monotonic()
    try:
        data = _control_data(arguments, head, seed)
        if isinstance(data, str):
            return ControlRun(False, data)
        return _guarded_run(model, arguments, head, data, start, max_seconds, max_steps, seed)
    except Exception as err:  # the control must never change what the cell did
        reason = f"it failed ({type(err).__name__}: {str(err).splitlines()[0][:120] if str(err) else ''})"
        return ControlRun(False, reason, seconds=time.monotonic() - start)


@dataclass
class _Data:
    x: Any  # training rows (a structure of arrays)
    y: np.ndarray
    x_val: Any
    val_ids: np.ndarray  # class id per validation row
    batch_size: int


def _control_data(a: dict[str, Any], head: ClassifierHead, seed: int) -> _Data | str:
    """Training and validation rows as arrays, or why there are none."""
    import keras

    x, y = a.get("x"), a.get("y")
    batch = int(a.get("batch_size") or 32)
    if is_dataset(x):
        got = dataset_rows(x, MAX_ROWS)
        if got is None:
            return "the training dataset does not yield (x, y) pairs"
        x, y, batch = got
    elif y is None:
        return "fit was given no labels"
    y = np.asarray(y)
    n = int(y.shape[0])
    split = float(a.get("validation_split") or 0.0)
    train_n = int(math.floor(n * (1.0 - split))) if split else n
    data: Any = a.get("validation_data")
    if isinstance(data, tuple | list) and len(data) >= 2:
        x_val, y_val = data[0], np.asarray(data[1])
    elif is_dataset(data):
        got = dataset_rows(data, MAX_HELD_OUT)
        if got is None:
            return "the validation dataset does not yield (x, y) pairs"
        x_val, y_val, _ = got
    elif split and 0 < train_n < n:
        x_val = keras.tree.map_structure(lambda v: np.asarray(v)[train_n:], x)
        y_val = y[train_n:]
    else:
        return "fit had no validation data to score it on"
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.permutation(train_n)[:MAX_ROWS])
    x_train = keras.tree.map_structure(lambda v: np.asarray(v)[rows], x)
    y_train = y[rows]
    held = np.sort(rng.permutation(len(y_val))[:MAX_HELD_OUT])
    x_val = keras.tree.map_structure(lambda v: np.asarray(v)[held], x_val)
    val_ids = class_ids(head, y_val[held])
    if val_ids is None or class_ids(head, y_train) is None:
        return "the labels are not one class per example"
    return _Data(x_train, y_train, x_val, val_ids, max(1, batch))


def _guarded_run(
    model: Any,
    a: dict[str, Any],
    head: ClassifierHead,
    data: _Data,
    start: float,
    max_seconds: float,
    max_steps: int,
    seed: int,
) -> ControlRun:
    from tfnb_debug.collect.training_guard import TrainingGuard

    rows = len(data.y)
    batch = min(data.batch_size, rows)
    epochs = max(1, int(a.get("epochs") or 1) - int(a.get("initial_epoch") or 0))
    steps = min(max_steps, epochs * math.ceil(rows / batch))
    real: list[float] = []
    shuffled: list[float] = []
    budget_start = start  # moved to the end of the first training step once it ran
    with TrainingGuard(model), name_counters_kept():
        for pair in range(REPEATS):
            elapsed = time.monotonic() - budget_start
            if pair and elapsed * (pair + 1) / pair > max_seconds:
                break  # another pair would not fit in the time budget
            copy = _fresh_copy(model, data)
            if isinstance(copy, str):
                return ControlRun(False, copy, seconds=time.monotonic() - start)
            if not pair:
                slow = _too_slow(copy, data, batch, max_seconds)
                if slow:
                    return ControlRun(False, slow, seconds=time.monotonic() - start)
            rng = np.random.default_rng([seed, pair])
            order = np.concatenate(
                [rng.permutation(rows) for _ in range(math.ceil(steps * batch / rows) + 1)]
            )
            shuffled_y = data.y[rng.permutation(rows)]
            initial = [v.numpy() for v in copy.variables]
            optimizer_initial = [v.numpy() for v in copy.optimizer.variables]
            if not pair:
                # the budget runs from the end of the first step: its trace is a one-time
                # cost (seconds on a loaded machine) that says nothing of the step rate
                taken, budget_start = _train(
                    copy, data, data.y, order, batch, steps, max_seconds / 2
                )
            else:
                taken, _ = _train(
                    copy, data, data.y, order, batch, steps, 2 * max_seconds, budget_start
                )
            if not pair and taken < min(MIN_STEPS, steps):
                return ControlRun(
                    False,
                    f"it took {taken} of {steps} steps in {max_seconds / 2:.0f} s after its first "
                    "step (the model is too slow for a quick control)",
                    seconds=time.monotonic() - start,
                )
            if not pair:
                steps = taken  # every run takes the steps the first one took
            scored = _accuracy(copy, data, head)
            for v, value in zip(copy.variables, initial, strict=True):
                v.assign(value)
            for v, value in zip(copy.optimizer.variables, optimizer_initial, strict=True):
                v.assign(value)
            again, _ = _train(
                copy, data, shuffled_y, order, batch, steps, 2 * max_seconds, budget_start
            )
            if again != steps or taken != steps:
                break  # out of time: the pairs so far are the control
            real.append(scored)
            shuffled.append(_accuracy(copy, data, head))
            del copy
    if not real:
        return ControlRun(
            False,
            "it ran out of time before one pair of runs ended",
            seconds=time.monotonic() - start,
        )
    counts = np.bincount(data.val_ids)
    return ControlRun(
        True,
        real=float(np.mean(real)),
        shuffled=float(np.mean(shuffled)),
        chance=float(counts.max() / counts.sum()),
        held_out=len(data.val_ids),
        rows=rows,
        steps=steps,
        batch_size=batch,
        pairs=len(real),
        seconds=time.monotonic() - start,
    )


def _fresh_copy(model: Any, data: _Data) -> Any:
    """``model``'s architecture with new weights, compiled with its loss and a fresh
    optimizer from its optimizer's config, optimizer built; or why it cannot be made.
    A copy that is not built yet (a subclassed model) is built on a few training rows."""
    import keras

    optimizer = getattr(model, "optimizer", None)
    loss = getattr(model, "loss", None)
    if optimizer is None or loss is None:
        return "the model was not compiled with a loss and an optimizer"
    try:
        copy = keras.models.clone_model(model)
    except Exception as err:
        return f"the model could not be copied with keras.models.clone_model ({type(err).__name__})"
    fresh = optimizer.__class__.from_config(optimizer.get_config())
    copy.compile(optimizer=fresh, loss=loss, jit_compile=False)
    if not copy.built:
        copy(keras.tree.map_structure(lambda v: v[:2], data.x), training=False)
    fresh.build(copy.trainable_variables)
    return copy


def _too_slow(copy: Any, data: _Data, batch: int, max_seconds: float) -> str:
    """Why the control would not fit its budget, judged from one forward pass of the copy
    on a batch before any training step is traced (a step costs about three forward
    passes); "" when it may."""
    import keras

    began = time.monotonic()
    copy(keras.tree.map_structure(lambda v: v[:batch], data.x), training=False)
    forward = time.monotonic() - began
    if forward * 3 * MIN_STEPS <= max_seconds / 2:
        return ""
    return (
        f"one forward pass of a copy took {forward:.2f} s, so {MIN_STEPS} training steps would "
        f"not fit in {max_seconds / 2:.0f} s (the model is too slow for a quick control)"
    )


def _train(
    copy: Any,
    data: _Data,
    y: np.ndarray,
    order: np.ndarray,
    batch: int,
    steps: int,
    seconds: float,
    since: float | None = None,
) -> tuple[int, float]:
    """Up to ``steps`` steps, stopping ``seconds`` after ``since`` (default: after the end of
    the first step); the steps taken and when the first one ended."""
    import keras

    done = 0
    first_end = 0.0
    for step in range(steps):
        idx = order[step * batch : (step + 1) * batch]
        xb = keras.tree.map_structure(lambda v, i=idx: v[i], data.x)
        copy.train_on_batch(xb, y[idx])
        done += 1
        now = time.monotonic()
        if done == 1:
            first_end = now
        if now > (first_end if since is None else since) + seconds:
            break
    return done, first_end


def _accuracy(copy: Any, data: _Data, head: ClassifierHead) -> float:
    import keras

    correct = 0
    n = len(data.val_ids)
    for first in range(0, n, _EVAL_BATCH):
        xb = keras.tree.map_structure(lambda v, s=first: v[s : s + _EVAL_BATCH], data.x_val)
        flat = keras.tree.flatten(copy(xb, training=False))
        outputs = np.asarray(flat[0], dtype=np.float64)
        correct += int(
            np.sum(predicted_ids(head, outputs) == data.val_ids[first : first + _EVAL_BATCH])
        )
    return correct / n


class name_counters_kept:  # noqa: N801 - used as a context manager
    """Keras' automatic layer-name counters, put back as they were (the copy's layers
    would otherwise move the names of the user's next layers)."""

    def __enter__(self) -> None:
        from tfnb_debug.collect.keras_access import private

        try:
            self._uids = private("global_state").get_global_attribute("object_name_uids")
        except Exception:  # private API moved: names are then not kept
            self._uids = None
        self._saved = dict(self._uids) if self._uids is not None else None

    def __exit__(self, *exc: object) -> None:
        if self._uids is not None and self._saved is not None:
            self._uids.clear()
            self._uids.update(self._saved)


def dataset_rows(dataset: Any, limit: int) -> tuple[Any, np.ndarray, int] | None:
    """The first ``limit`` rows (at most 64 batches) of a dataset of ``(x, y)`` batches, and
    the size of its first batch."""
    import keras

    xs, ys = [], []
    seen = 0
    for i, element in enumerate(dataset):
        if not isinstance(element, tuple | list) or len(element) < 2 or element[1] is None:
            return None
        flat = keras.tree.flatten(element[1])
        if len(flat) != 1:
            return None
        xs.append(keras.tree.map_structure(np.asarray, element[0]))
        ys.append(np.asarray(flat[0]))
        seen += len(ys[-1])
        if seen >= limit or i + 1 >= _MAX_BATCHES:
            break
    if not ys:
        return None
    x = keras.tree.map_structure(lambda *parts: np.concatenate(parts), *xs)
    return x, np.concatenate(ys), len(ys[0])
