"""The run behind ``%tfoverfit``: the examples, the training through ``fit``, the evaluations.

Everything here touches the user's model and TensorFlow; :mod:`tfnb_debug.features.overfit`
turns what it returns (:class:`Run`, plain numbers) into the verdict.  The run
is bounded three ways: it stops as soon as the examples are memorized (checked
in inference mode, as the verdict is, at most every few steps so that the
checks cost a fifth of the training at most), after ``budget`` seconds of
training (the first step, which compiles the train step, is not counted), and
on a non-finite loss.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tfnb_debug.ground.errors import TfnbDebugError

__all__ = [
    "DEFAULT_SAMPLES",
    "Capacity",
    "Progress",
    "Run",
    "capacity",
    "fit_sample",
    "take_examples",
    "train",
]

#: examples memorized when ``--samples`` is not given ...
DEFAULT_SAMPLES = 16
#: ... unless the inputs are large: at most this many input values in the batch ...
SAMPLE_VALUES = 2**19
#: ... but never fewer examples than this
MIN_SAMPLES = 4
#: the memorization checks may take this share of the training time at most
CHECK_SHARE = 0.2


@dataclass(frozen=True)
class Progress:
    """Where a running check is: shown by ``%tfoverfit`` while it trains."""

    step: int
    steps: int
    loss: float
    elapsed: float  # seconds since training began
    budget: float | None  # seconds of training allowed after the first step

    def text(self) -> str:
        budget = f" (time budget {self.budget:g} s)" if self.budget else ""
        return (
            f"tfoverfit: step {self.step}/{self.steps}, loss {self.loss:.4g}, "
            f"{self.elapsed:.1f} s{budget}"
        )


@dataclass(frozen=True)
class Run:
    """What one run measured.  ``stopped``: why training ended: ``"steps"`` (all of them
    ran), ``"memorized"`` (a check found the examples memorized), ``"time"`` (the budget
    ran out first), ``"nonfinite"`` (the loss became NaN/Inf) or ``"already"`` (the
    examples met the criterion before any step, so none ran)."""

    losses: tuple[float, ...]
    initial: float
    final: float
    accuracy: float | None
    loss_key: str
    stopped: str = "steps"
    seconds: float = 0.0
    initial_accuracy: float | None = None  # on the examples before training (classifiers)


Done = Callable[[float, float, "float | None"], bool]


def fit_sample(x: Any, y: Any, n: int) -> tuple[Any, Any, int, int]:
    """The first examples of ``(x, y)``, fewer than ``n`` when each input is large.

    Returns ``x, y``, the number of examples kept and the input values per example.
    """
    import keras
    import numpy as np

    per_example = sum(int(np.prod(leaf.shape[1:])) for leaf in keras.tree.flatten(x))
    keep = max(MIN_SAMPLES, min(n, SAMPLE_VALUES // max(per_example, 1)))
    if keep >= n:
        return x, y, n, per_example

    def head(tree: Any) -> Any:
        return keras.tree.map_structure(lambda a: a[:keep], tree) if tree is not None else None

    return head(x), head(y), keep, per_example


def leading_dim(x: Any) -> int:
    import keras

    return int(keras.tree.flatten(x)[0].shape[0])


def _is_batched(data: Any, model: Any) -> bool:
    """Whether a dataset yields batches: from the model's input rank, else its transformations."""
    import keras

    element = data.element_spec
    first = keras.tree.flatten(element[0] if isinstance(element, tuple) else element)[0]
    inputs = getattr(model, "inputs", None) if model.built else None
    if inputs:
        return bool(first.shape.rank != len(inputs[0].shape) - 1)
    if first.shape.rank and first.shape[0] is None:
        return True
    pending = [data]
    while pending:  # the chain of datasets (private but long-lived; see TRAPS.md)
        ds = pending.pop()
        if "Batch" in type(ds).__name__:
            return True
        try:
            pending.extend(ds._inputs())
        except Exception:
            break
    return False


def take_examples(model: Any, data: Any, n: int, *, labels: bool = True) -> tuple[Any, Any]:
    """The first ``n`` examples of ``data`` as ``(x, y)`` NumPy structures (``y`` may be None).

    ``labels=False`` accepts inputs alone (for a model with its own ``train_step``).
    """
    import keras
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.collect.snapshot import first_batch

    def head(tree: Any) -> Any:
        # lists become tuples: tf.data cannot hold a list of labels of different shapes
        return keras.tree.lists_to_tuples(
            keras.tree.map_structure(lambda a: np.asarray(a)[:n], tree)
        )

    if isinstance(data, tf.data.Dataset):
        element = data.element_spec
        paired = isinstance(element, tuple) and len(element) >= 2
        if labels and not paired:
            raise TfnbDebugError("DATA must yield (x, y) pairs to train on")
        if not _is_batched(data, model):
            data = data.batch(n)
        xs: list[Any] = []
        ys: list[Any] = []
        count = 0
        for batch in data.take(max(n, 1)):
            first, second = (batch[0], batch[1]) if paired else (batch, None)
            xs.append(keras.tree.map_structure(lambda t: t.numpy(), first))
            if paired:
                ys.append(keras.tree.map_structure(lambda t: t.numpy(), second))
            count += leading_dim(xs[-1])
            if count >= n:
                break
        if not xs:
            raise TfnbDebugError("DATA is an empty dataset")
        x = keras.tree.map_structure(lambda *a: np.concatenate(a)[:n], *xs)
        y = keras.tree.map_structure(lambda *a: np.concatenate(a)[:n], *ys) if ys else None
        return _strings_as_tensors(x), _strings_as_tensors(y)
    x, y = first_batch(data)
    if y is None and labels:
        raise TfnbDebugError("DATA must be a (x, y) tuple of arrays or a tf.data.Dataset of pairs")
    return _strings_as_tensors(head(x)), _strings_as_tensors(head(y)) if y is not None else None


def _strings_as_tensors(tree: Any) -> Any:
    """String arrays as ``tf.string`` tensors: NumPy holds them as ``object``, which Keras rejects.

    A model that takes raw text (a ``TextVectorization`` inside) gets what its
    dataset gave it; numbers stay NumPy arrays.
    """
    import keras
    import numpy as np
    import tensorflow as tf

    if tree is None:
        return None

    def convert(a: Any) -> Any:
        array = np.asarray(a)
        return tf.constant(array, dtype=tf.string) if array.dtype.kind in "OSU" else a

    return keras.tree.map_structure(convert, tree)


def _pick_loss_key(logs: dict[str, Any], wanted: str | None) -> str:
    if wanted is not None:
        if wanted not in logs:
            raise TfnbDebugError(
                f"the training logs have no {wanted!r}; they have: {', '.join(sorted(logs))}"
            )
        return wanted
    if "loss" in logs:
        return "loss"
    losses = [key for key in logs if "loss" in key]
    if len(losses) == 1:
        return losses[0]
    raise TfnbDebugError(
        "the model's train_step logs no 'loss' but "
        + (", ".join(sorted(logs)) or "nothing")
        + ": name the value to read with loss_key=... (%tfoverfit --loss-key KEY)"
    )


def train(
    model: Any,
    x: Any,
    y: Any,
    steps: int,
    *,
    own: bool,
    loss_key: str | None,
    done: Done,
    budget: float | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> Run:
    """One ``fit`` epoch of at most ``steps`` full-batch steps, reading the loss of every step.

    The metrics are reset before each step (as ``train_on_batch`` does), so the
    logged loss is that step's, not a running mean.  ``done(initial, final,
    accuracy)`` is the verdict's criterion: training stops once it holds
    (checked on the logged loss for a model with its own ``train_step``, else in
    inference mode, as the verdict is), when the loss is not finite, or after
    ``budget`` seconds counted from the end of the first step.
    """
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    import keras
    import tensorflow as tf

    n = leading_dim(x)
    losses: list[float] = []
    chosen: list[str] = []
    classification = not own and is_classification(model)
    initial = math.nan if own else first_evaluation(model, x, y, n)
    before = accuracy(model, x, y) if classification else None
    if not own and done(initial, initial, before):
        # a trained model may fit these examples already: no step of training then shows
        # anything about whether its training can memorize them
        return Run((), initial, initial, before, "loss", "already", initial_accuracy=before)
    state: dict[str, Any] = {"stopped": "steps", "checked": None, "next": 0.0}
    began = time.perf_counter()
    clock = {"first": 0.0}

    def check() -> tuple[float, float | None] | None:
        """The verdict's numbers now, when the examples are memorized (else None)."""
        if own:
            return (losses[-1], None) if done(losses[0], losses[-1], None) else None
        correct = accuracy(model, x, y) if classification else None
        if correct is not None and not done(initial, initial, correct):
            return None  # not yet: no need to evaluate the loss
        final = evaluate(model, x, y, n)
        return (final, correct) if done(initial, final, correct) else None

    class Bounds(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
            model.reset_metrics()

        def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
            __tracebackhide__ = True
            logs = logs or {}
            if not chosen:
                chosen.append(_pick_loss_key(logs, loss_key))
            value = float(logs[chosen[0]])
            losses.append(value)
            now = time.perf_counter()
            if len(losses) == 1:
                clock["first"] = now
            if progress is not None:
                progress(Progress(len(losses), steps, value, now - began, budget))
            if not math.isfinite(value):
                state["stopped"] = "nonfinite"
                model.stop_training = True
                return
            if len(losses) >= steps:
                return
            if own or (len(losses) >= 2 and now >= state["next"]):
                found = check()
                spent = time.perf_counter() - now
                state["next"] = time.perf_counter() + spent * (1 - CHECK_SHARE) / CHECK_SHARE
                if found is not None:
                    state["stopped"], state["checked"] = "memorized", found
                    model.stop_training = True
                    return
            if budget and len(losses) >= 2 and time.perf_counter() - clock["first"] > budget:
                state["stopped"] = "time"
                model.stop_training = True

    batch = x if y is None else (x, y)
    data = tf.data.Dataset.from_tensors(batch).repeat()
    model.fit(data, epochs=1, steps_per_epoch=steps, shuffle=False, verbose=0, callbacks=[Bounds()])
    seconds = time.perf_counter() - began
    correct = None
    if own:
        initial, final = losses[0], losses[-1]
    elif state["checked"] is not None:
        final, correct = state["checked"]
    else:
        final = evaluate(model, x, y, n)
        correct = accuracy(model, x, y)
    key = chosen[0] if chosen else "loss"
    return Run(tuple(losses), initial, final, correct, key, state["stopped"], seconds, before)


def first_evaluation(model: Any, x: Any, y: Any, n: int) -> float:
    """:func:`evaluate` before any training: data the model cannot take is a one-line error."""
    from tfnb_debug.ground.text import first_line, key_sentence

    try:
        return evaluate(model, x, y, n)
    except Exception as err:
        said = key_sentence(str(err)) or first_line(err)
        raise TfnbDebugError(
            f"model {model.name!r} cannot take DATA's first {n} examples (evaluating the loss "
            f"on them failed): {type(err).__name__}: {said}"
        ) from None


def evaluate(model: Any, x: Any, y: Any, n: int) -> float:
    """The compiled loss on the examples in inference mode (metrics and loss weights aside)."""
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    logs = model.evaluate(x, y, batch_size=n, verbose=0, return_dict=True)
    return float(logs["loss"])


def is_classification(model: Any) -> bool:
    name = model.loss if isinstance(model.loss, str) else type(model.loss).__name__
    if (
        callable(model.loss)
        and not isinstance(model.loss, type)
        and hasattr(model.loss, "__name__")
    ):
        name = model.loss.__name__
    return "crossentropy" in str(name).lower().replace("_", "")


def accuracy(model: Any, x: Any, y: Any) -> float | None:
    import keras
    import numpy as np

    if not is_classification(model):
        return None
    outputs = keras.tree.flatten(model(x, training=False))
    labels = keras.tree.flatten(y)
    if len(outputs) != 1 or len(labels) != 1:
        return None
    pred = np.asarray(outputs[0])
    true = np.asarray(labels[0])
    if pred.ndim >= 2 and pred.shape[-1] > 1:
        guess = pred.argmax(-1)
        target = true.argmax(-1) if true.shape == pred.shape else true.reshape(guess.shape)
    else:
        probs = (
            "sigmoid" in str(getattr(model.layers[-1], "activation", "")).lower()
            if getattr(model, "layers", None)
            else False
        )
        cut = 0.5 if probs else 0.0
        guess = (pred.reshape(-1) > cut).astype(int)
        target = true.reshape(-1).round().astype(int)
    return float(np.mean(guess == target))


@dataclass(frozen=True)
class Capacity:
    """How many target values the examples hold against the model's trainable parameters."""

    values: int
    per_example: int
    parameters: int

    @property
    def too_small(self) -> bool:
        return self.values > self.parameters

    @property
    def samples_that_fit(self) -> int:
        return max(1, self.parameters // max(1, self.per_example))


def capacity(model: Any, y: Any, n: int, *, classification: bool) -> Capacity | None:
    """Target values in the examples vs trainable parameters.

    Each label value is a target, except the class axis of one-hot labels under a
    categorical (not sparse, not binary) cross-entropy, which together make one class
    id: a sequence of 100 token ids is 100 targets, a 64x64 mask 4,096, a one-hot row one.
    """
    import keras
    import numpy as np

    if y is None or n < 1:
        return None
    one_hot = classification and _one_hot_loss(model)
    per_example = 0
    for leaf in keras.tree.flatten(y):
        rest = tuple(int(d) for d in np.shape(leaf)[1:])
        if one_hot and rest and rest[-1] > 1:
            rest = rest[:-1]
        per_example += int(np.prod(rest)) if rest else 1
    parameters = sum(int(np.prod(v.shape)) for v in model.trainable_weights)
    return Capacity(per_example * n, per_example, parameters)


def _one_hot_loss(model: Any) -> bool:
    """A categorical cross-entropy that takes one-hot rows (not the sparse or binary one)."""
    loss = model.loss
    name = loss if isinstance(loss, str) else getattr(loss, "__name__", type(loss).__name__)
    name = str(name).lower().replace("_", "")
    return "categoricalcrossentropy" in name and "sparse" not in name
