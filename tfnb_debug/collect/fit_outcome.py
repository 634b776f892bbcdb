"""What a classifier predicts after ``fit`` (P16), as plain values.

:func:`describe_outcome` runs right after a recorded ``fit`` call returns (the
:class:`~tfnb_debug.collect.fit_args.FitArgsRecorder` calls it through its
``after_fit`` hook, which ``%%tfgrad`` sets: :func:`tfnb_debug.features.fit_data.record_fit_args`);
:func:`predict_classes` serves ``%tflint --data`` too.  The caller says which
output is a classifier (a :class:`ClassifierHead`, from the compiled loss).  Both read:

* the labels: all of the training part of ``y`` arrays (the ``validation_split``
  tail left out), or the first batches of a dataset (up to 256 examples);
* the predictions of the trained model on at most 256 of those examples
  (evenly spaced over the arrays, so sorted data is sampled across), in
  inference mode (``model(x, training=False)``), under
  :func:`~tfnb_debug.collect._patching.preserved`, which puts every variable of
  the model, its metrics' variables and the random states back bit for bit (an
  inference call writes no optimizer variable: those are not read);
* the history ``fit`` returned (each metric per epoch).

Only single-output classifiers are read (binary with one unit, sparse or
categorical, on an output of rank 2).  Anything else gives no :class:`Predictions`.  A failure while reading is swallowed: ``fit``'s result
reaches the user unchanged.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfnb_debug.collect.fit_args import is_dataset
from tfnb_debug.collect.model_config import hidden_blockers
from tfnb_debug.collect.splits import SplitFacts

__all__ = [
    "ClassifierHead",
    "ControlRun",
    "FitOutcome",
    "Predictions",
    "class_ids",
    "describe_outcome",
    "fit_budget",
    "input_peak",
    "predict_classes",
    "predicted_ids",
    "rows_per_call",
    "scaling_layer",
]

#: at most this many examples are run through the model
MAX_EXAMPLES = 256
#: seconds of predicting after which no further batch is run
MAX_SECONDS = 2.0
#: after a fit: predicting stops past this share of the fit's own time (within
#: MIN_SECONDS..MAX_SECONDS), once MIN_EXAMPLES examples were read
FIT_SHARE = 0.05
MIN_SECONDS = 0.1
MIN_EXAMPLES = 64
#: input values per call of the model (a small input goes through in one call: each eager
#: call costs milliseconds of Python whatever its size); at least _MIN_ROWS examples a call
_CALL_ELEMENTS = 1 << 20
_MIN_ROWS = 16
_MAX_BATCHES = 16
_SCALING_LAYERS = ("Normalization", "Rescaling", "BatchNormalization", "LayerNormalization")


@dataclass(frozen=True)
class Predictions:
    """A classifier's predicted classes against its labels.

    ``labels``: examples per class over ``labelled`` labels (all of the training
    arrays, or the sampled batches of a dataset).  ``predicted`` and ``correct``:
    over the ``examples`` examples run through the model, whose labels per class are
    ``sampled``.  ``first_output`` is the
    output row of the first example (at most 10 values) and ``spread`` the largest
    difference between two examples' outputs on any unit.  ``input_peak`` is the
    largest absolute value among the numeric inputs of the sample;
    ``scaling_layer`` names a Normalization/Rescaling layer of the model, if any.
    ``hidden``: what could keep the input from reaching the output, read from the
    model's configuration: its hidden ReLU and sigmoid/tanh layers and its layers whose
    initializers cannot start learning, as ``(kind, names)`` pairs (kinds ``"relu"``,
    ``"saturating"``, ``"initializer"``).
    """

    output: str
    classes: tuple[str, ...]
    labels: tuple[int, ...]
    labelled: int
    predicted: tuple[int, ...]
    sampled: tuple[int, ...]
    correct: int
    examples: int
    first_output: tuple[float, ...]
    spread: float
    input_peak: float | None
    scaling_layer: str | None
    source: str
    binary: bool
    hidden: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class ControlRun:
    """The control's result, or why it did not run (``ran`` False, ``reason`` says why).

    ``real`` / ``shuffled``: accuracy on ``held_out`` validation rows of the copy trained
    on the real / shuffled labels, the mean over ``pairs`` pairs of runs (each pair from
    its own new weights); ``chance``: the majority class's share of those rows.
    ``rows``: training rows sampled; ``steps`` of ``batch_size`` per run; ``seconds``: the
    whole control.
    """

    ran: bool
    reason: str = ""
    real: float = math.nan
    shuffled: float = math.nan
    chance: float = math.nan
    held_out: int = 0
    rows: int = 0
    steps: int = 0
    batch_size: int = 0
    pairs: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class FitOutcome:
    """One ``fit`` call's end state: its history and what the model now predicts.

    ``history``: each metric Keras logged, per epoch (``"accuracy"``,
    ``"val_accuracy"``, ...).  ``metric_kinds``: the compiled metrics' kinds
    (``auc``, ``recall``, ...).  ``samples``: training examples per epoch, when
    known.  ``splits``: the training and validation datasets as parts of one
    reshuffling source (P17).  ``validation_labels``: examples per class in the
    validation labels (P15's chance level).  ``control``: P15's control run on shuffled
    labels (:mod:`tfnb_debug.collect.label_control`), or why it did not run; None when
    P15's evidence did not call for it.
    """

    model: str
    history: tuple[tuple[str, tuple[float, ...]], ...]
    metric_kinds: tuple[str, ...]
    class_weight: bool
    predictions: Predictions | None
    samples: int | None = None
    x_name: str | None = None
    splits: tuple[SplitFacts, ...] = ()
    validation_labels: tuple[int, ...] | None = None
    control: ControlRun | None = None

    def metric(self, name: str) -> tuple[float, ...]:
        return dict(self.history).get(name, ())


@dataclass(frozen=True)
class ClassifierHead:
    """The one output of a classifier: its layer, the loss kind (``binary``, ``sparse``,
    ``categorical``), whether the loss reads logits, and its units."""

    output: str
    kind: str
    from_logits: bool
    units: int


def describe_outcome(
    model: Any,
    arguments: dict[str, Any],
    result: Any,
    head: ClassifierHead | None,
    x_name: str | None = None,
    fit_seconds: float | None = None,
) -> FitOutcome | None:
    """The outcome of ``model.fit(**arguments)`` that returned ``result``; None if unreadable.
    ``head``: the classifier output to read predictions of (None: history only), for at most
    :func:`fit_budget` of ``fit_seconds``, the fit's own time."""
    try:
        return _outcome(model, arguments, result, head, x_name, fit_budget(fit_seconds))
    except Exception:  # reading must never change what fit returns
        return None


def _outcome(
    model: Any,
    a: dict[str, Any],
    result: Any,
    head: ClassifierHead | None,
    x_name: str | None,
    seconds: float,
) -> FitOutcome:
    from tfnb_debug.collect.metric_facts import collect_metrics

    logged = getattr(result, "history", None) or {}
    history = tuple(
        (str(k), tuple(float(v) for v in values))
        for k, values in logged.items()
        if isinstance(values, list | tuple) and all(_is_number(v) for v in values)
    )
    x, y = a.get("x"), a.get("y")
    split = float(a.get("validation_split") or 0.0)
    predictions = None
    samples = None
    if y is not None and not is_dataset(x):
        n = _length(y)
        if n:
            samples = int(math.floor(n * (1.0 - split))) if split else n
            if head is not None:
                predictions = predict_classes(
                    model, (x, y), head, limit=samples, max_seconds=seconds
                )
    elif is_dataset(x) and head is not None:
        predictions = predict_classes(model, x, head, max_seconds=seconds)
    kinds = tuple(sorted({fact.kind for fact in collect_metrics(model)}))
    names = tuple(str(getattr(m, "name", "")) for m in _user_metrics(model))
    validation = _validation_counts(a, head, samples) if head is not None else None
    return FitOutcome(
        model=str(getattr(model, "name", type(model).__name__)),
        history=history,
        metric_kinds=tuple(sorted({*kinds, *(_kind_of_name(n) for n in names)} - {"other"})),
        class_weight=a.get("class_weight") is not None,
        predictions=predictions,
        samples=samples,
        x_name=x_name,
        validation_labels=validation,
    )


def _validation_counts(
    a: dict[str, Any], head: ClassifierHead, samples: int | None
) -> tuple[int, ...] | None:
    """Examples per class in the validation labels (``validation_data`` arrays, the
    ``validation_split`` tail, or up to 16 batches of a validation dataset)."""
    import keras

    data: Any = a.get("validation_data")
    y = a.get("y")
    labels = None
    if isinstance(data, tuple | list) and len(data) >= 2:
        labels = np.asarray(data[1])
    elif data is None and y is not None and samples is not None and a.get("validation_split"):
        labels = np.asarray(y)[samples:]
    elif is_dataset(data):
        parts = []
        for i, element in enumerate(data):
            if not isinstance(element, tuple | list) or len(element) < 2 or i >= _MAX_BATCHES:
                break
            flat = keras.tree.flatten(element[1])
            if len(flat) != 1:
                return None
            parts.append(np.asarray(flat[0]))
        labels = np.concatenate(parts) if parts else None
    if labels is None or not len(labels):
        return None
    ids = class_ids(head, labels)
    if ids is None:
        return None
    n_classes = 2 if head.kind == "binary" else head.units
    return tuple(int(c) for c in np.bincount(ids, minlength=n_classes))


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _user_metrics(model: Any) -> list[Any]:
    compiled = getattr(model, "_compile_metrics", None)
    return list(getattr(compiled, "_user_metrics", None) or []) if compiled is not None else []


def _kind_of_name(name: str) -> str:
    low = name.lower()
    for kind in ("auc", "recall", "precision"):
        if kind in low:
            return kind
    return "other"


def _length(value: Any) -> int | None:
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) and shape[0] is not None:
        return int(shape[0])
    if isinstance(value, list):
        return len(value)
    return None


# -- predictions ---------------------------------------------------------------------


def predict_classes(
    model: Any,
    data: Any,
    head: ClassifierHead,
    *,
    limit: int | None = None,
    examples: int = MAX_EXAMPLES,
    max_seconds: float = MAX_SECONDS,
    examples_of: str = "training examples",
) -> Predictions | None:
    """Predicted classes of ``model``'s ``head`` on ``data`` (``(x, y)`` arrays or a dataset of
    ``(x, y)``), inference mode, every state it could write restored; None when the labels are
    not one class per example.  ``limit``: only the first ``limit`` rows of the arrays are the
    training part.  Predicting stops after the batch that passes ``max_seconds`` (a large
    model is read on fewer examples).  ``examples_of`` names the rows in
    :attr:`Predictions.source`."""
    from tfnb_debug.collect._patching import preserved

    if isinstance(data, tuple | list):
        labels = np.asarray(data[1])
        if class_ids(head, labels if limit is None else labels[: max(int(limit), 0)]) is None:
            return None  # not one class per example (a mask, a sequence): nothing to predict
    with preserved(model, optimizer=False):  # an inference call never writes the optimizer
        if isinstance(data, tuple | list):
            read = _from_arrays(model, data[0], data[1], limit, examples, max_seconds, examples_of)
        else:
            read = _from_dataset(model, data, head, examples, max_seconds)
    if read is None:
        return None
    all_labels, sample_labels, outputs, peak, source = read
    return _summarize(model, head, all_labels, sample_labels, outputs, peak, source)


_Read = tuple[np.ndarray, np.ndarray, np.ndarray, float | None, str]


def _from_arrays(
    model: Any,
    x: Any,
    y: Any,
    limit: int | None,
    examples: int,
    max_seconds: float,
    examples_of: str,
) -> _Read | None:
    import keras

    y = np.asarray(y)
    n = int(y.shape[0]) if limit is None else min(int(limit), int(y.shape[0]))
    if n <= 0:
        return None
    idx = np.unique(np.linspace(0, n - 1, min(n, examples)).round().astype(np.int64))
    # a fixed private permutation: any prefix (a run cut short by the time budget) is spread
    # over the whole array, also when the data is sorted; the global RNGs are not touched
    idx = np.random.default_rng(0).permutation(idx)
    xs = keras.tree.map_structure(lambda a: np.asarray(a)[idx], x)
    rows = rows_per_call(xs)
    outputs = []
    start = time.monotonic()
    for first in range(0, len(idx), rows):
        part = keras.tree.map_structure(lambda a, s=first: a[s : s + rows], xs)
        outputs.append(_single_output(model(part, training=False)))
        done = first + len(outputs[-1])
        if done >= MIN_EXAMPLES and time.monotonic() - start > max_seconds:
            break
    done = sum(len(o) for o in outputs)
    what = f"{done} of the {n} {examples_of}, evenly spaced"
    xs = keras.tree.map_structure(lambda a: a[:done], xs)
    return y[:n], y[idx[:done]], np.concatenate(outputs), input_peak(xs), what


def _from_dataset(
    model: Any, dataset: Any, head: ClassifierHead, examples: int, max_seconds: float
) -> _Read | None:
    import keras

    labels, outputs, peaks = [], [], []
    seen = batches = 0
    start = time.monotonic()
    for element in dataset:
        if not isinstance(element, tuple | list) or len(element) < 2 or element[1] is None:
            return None
        x, y = element[0], element[1]
        if not batches and class_ids(head, np.asarray(y)) is None:
            return None  # not one class per example: nothing to predict
        outputs.append(_single_output(model(x, training=False)))
        labels.append(np.asarray(y))
        peak = input_peak(keras.tree.map_structure(np.asarray, x))
        if peak is not None:
            peaks.append(peak)
        seen += len(labels[-1])
        batches += 1
        late = seen >= MIN_EXAMPLES and time.monotonic() - start > max_seconds
        if seen >= examples or batches >= _MAX_BATCHES or late:
            break
    if not labels:
        return None
    y = np.concatenate(labels)
    what = (
        f"the first {batches} batch{'es' if batches > 1 else ''} of the dataset ({seen} examples)"
    )
    return y, y, np.concatenate(outputs), (max(peaks) if peaks else None), what


def rows_per_call(xs: Any) -> int:
    """Examples per call of the model: as many as fit in :data:`_CALL_ELEMENTS` input values
    (all of them for a small input), at least :data:`_MIN_ROWS`."""
    import keras

    per_row = sum(int(np.prod(np.shape(a)[1:], dtype=np.int64)) for a in keras.tree.flatten(xs))
    return max(_MIN_ROWS, min(MAX_EXAMPLES, _CALL_ELEMENTS // max(per_row, 1)))


def fit_budget(fit_seconds: float | None) -> float:
    """Seconds of predicting allowed after a fit that took ``fit_seconds`` (None: unknown)."""
    if fit_seconds is None:
        return MAX_SECONDS
    return min(MAX_SECONDS, max(MIN_SECONDS, FIT_SHARE * fit_seconds))


def _single_output(value: Any) -> np.ndarray:
    import keras

    flat = keras.tree.flatten(value)
    if len(flat) != 1:
        raise ValueError("not a single output")
    return np.asarray(flat[0], dtype=np.float64)


def input_peak(x: Any) -> float | None:
    import keras

    peaks = [
        float(np.max(np.abs(a)))
        for a in (np.asarray(t) for t in keras.tree.flatten(x))
        if a.size and np.issubdtype(a.dtype, np.number)
    ]
    return max(peaks) if peaks else None


def class_ids(head: ClassifierHead, y: np.ndarray) -> np.ndarray | None:
    """One class id per example, or None (soft, multi-label or sequence labels)."""
    if head.kind == "categorical":
        if y.ndim != 2 or y.shape[1] != head.units:
            return None
        if np.abs(y.sum(axis=1) - 1.0).max(initial=0.0) > 1e-3 or y.min(initial=0.0) < 0:
            return None
        return np.argmax(y, axis=1)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or not np.all(np.isfinite(y)) or not np.all(y == np.round(y)):
        return None
    ids = y.astype(np.int64)
    top = 1 if head.kind == "binary" else head.units - 1
    if ids.size and (ids.min() < 0 or ids.max() > top):
        return None
    return ids


def predicted_ids(head: ClassifierHead, outputs: np.ndarray) -> np.ndarray:
    """The class each output row predicts (a binary unit: above 0.5, or 0 for logits)."""
    if head.kind == "binary":
        return (outputs[:, 0] > (0.0 if head.from_logits else 0.5)).astype(np.int64)
    return np.argmax(outputs, axis=1)


def _summarize(
    model: Any,
    head: ClassifierHead,
    all_labels: np.ndarray,
    sample_labels: np.ndarray,
    outputs: np.ndarray,
    peak: float | None,
    source: str,
) -> Predictions | None:
    if outputs.ndim != 2 or outputs.shape[1] != head.units or not len(outputs):
        return None
    labels, truth = class_ids(head, all_labels), class_ids(head, sample_labels)
    if labels is None or truth is None or len(truth) != len(outputs):
        return None
    n_classes = 2 if head.kind == "binary" else head.units
    predicted = predicted_ids(head, outputs)
    finite = outputs[np.all(np.isfinite(outputs), axis=1)]
    spread = float(np.max(finite.max(axis=0) - finite.min(axis=0))) if len(finite) else math.inf
    return Predictions(
        output=head.output,
        classes=tuple(str(i) for i in range(n_classes)),
        labels=tuple(int(c) for c in np.bincount(labels, minlength=n_classes)),
        labelled=len(labels),
        predicted=tuple(int(c) for c in np.bincount(predicted, minlength=n_classes)),
        sampled=tuple(int(c) for c in np.bincount(truth, minlength=n_classes)),
        correct=int(np.sum(predicted == truth)),
        examples=len(truth),
        first_output=tuple(float(v) for v in outputs[0][:10]),
        spread=spread,
        input_peak=peak,
        scaling_layer=scaling_layer(model),
        source=source,
        binary=head.kind == "binary",
        hidden=hidden_blockers(model)
        if spread <= 1e-3 * max(1.0, *np.abs(outputs[0][:10]))
        else (),
    )


def scaling_layer(model: Any) -> str | None:
    from tfnb_debug.collect.keras_access import layer_paths

    for path, layer in layer_paths(model):
        if type(layer).__name__ in _SCALING_LAYERS:
            return str(path)
    return None
