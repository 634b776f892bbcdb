"""Rules over what a trained classifier predicts and what its history says: P15
labels-unlearnable, P16 majority-class (and, through
:func:`outcome_findings`, P17 for the datasets a ``fit`` split).

The facts are :class:`~tfnb_debug.collect.fit_outcome.Predictions` (labels and
predicted classes on a sample of the training examples) and, after ``fit``,
the :class:`~tfnb_debug.collect.fit_outcome.FitOutcome` with the history's
accuracy per epoch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tfnb_debug.collect.fit_outcome import ControlRun, FitOutcome, Predictions
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, finding
from tfnb_debug.ground.values import format_float

__all__ = [
    "ACCURACY_KEYS",
    "OutcomeThresholds",
    "control_margin",
    "labels_unlearnable",
    "majority_class",
    "needs_label_control",
    "outcome_findings",
]

#: history keys that hold an accuracy of the (single) output, most specific first
ACCURACY_KEYS = (
    "accuracy",
    "acc",
    "binary_accuracy",
    "sparse_categorical_accuracy",
    "categorical_accuracy",
)


@dataclass(frozen=True)
class OutcomeThresholds:
    """P16: the minority classes hold at least ``min_minority`` of the labels, at least
    ``collapsed`` of the predictions (on at least ``min_examples`` examples) are the
    majority class, and the accuracy lies within ``z`` binomial standard errors (and at
    least ``tolerance``) of the majority share.

    P15: at least ``min_epochs`` epochs; the training accuracy ends ``fits`` above chance;
    its control counts the real labels as learnable when they beat shuffled ones by more
    than ``control_z`` standard errors of the difference (:func:`control_margin`)."""

    min_minority: float = 0.05
    collapsed: float = 0.98
    min_examples: int = 30
    z: float = 3.0
    tolerance: float = 0.01
    min_epochs: int = 3
    fits: float = 0.15
    control_z: float = 1.5

    def __post_init__(self) -> None:
        if not 0.0 < self.min_minority < 0.5:
            raise TfnbDebugError(f"min_minority must be in (0, 0.5), got {self.min_minority!r}")
        if not 0.5 < self.collapsed <= 1.0:
            raise TfnbDebugError(f"collapsed must be in (0.5, 1], got {self.collapsed!r}")


def outcome_findings(
    outcomes: list[FitOutcome], thresholds: OutcomeThresholds | None = None
) -> list[Finding]:
    """P15, P16 and P17 for each recorded ``fit`` outcome; the same finding from several fits once."""
    from tfnb_debug.diagnostics.splits import overlapping_splits

    found: dict[Finding, None] = {}
    for outcome in outcomes:
        for split in outcome.splits:
            found.update(dict.fromkeys(overlapping_splits(split)))
        found.update(dict.fromkeys(labels_unlearnable(outcome, thresholds)))
        if outcome.predictions is None:
            continue
        accuracy = _history_accuracy(outcome)
        for f in majority_class(
            outcome.predictions,
            accuracy=accuracy,
            model=outcome.model,
            metric_kinds=outcome.metric_kinds,
            class_weight=outcome.class_weight,
            x_name=outcome.x_name,
            thresholds=thresholds,
        ):
            found[f] = None
    return list(found)


def _history_accuracy(outcome: FitOutcome) -> tuple[str, float] | None:
    for key in ACCURACY_KEYS:
        values = outcome.metric(key)
        if values and math.isfinite(values[-1]):
            return key, values[-1]
    return None


def majority_class(
    p: Predictions,
    *,
    accuracy: tuple[str, float] | None = None,
    model: str = "model",
    metric_kinds: tuple[str, ...] = (),
    class_weight: bool = False,
    x_name: str | None = None,
    thresholds: OutcomeThresholds | None = None,
    examples_of: str = "training examples",
) -> list[Finding]:
    """P16: (nearly) every prediction is the majority class, and the accuracy is just its share.

    ``accuracy``: the metric ``fit`` reported at its last epoch, as ``(name, value)``;
    without it the accuracy measured on the sampled examples is used.  ``examples_of``
    names what the examples are (``%tflint --data`` may be given any data).
    """
    th = thresholds or OutcomeThresholds()
    if p.examples < th.min_examples or p.labelled < th.min_examples or not any(p.labels):
        return []
    major = max(range(len(p.labels)), key=lambda i: p.labels[i])
    share = p.labels[major] / p.labelled
    if 1.0 - share < th.min_minority:
        return []  # the minority is too rare for the collapse to be a finding
    if p.predicted[major] < th.collapsed * p.examples:
        return []  # the model predicts more than one class
    if accuracy is not None:  # fit's number, over all the training labels
        name, value = accuracy
        shown, n = share, p.labelled
    else:  # measured on the sampled examples: compare with their own labels
        name, value = "accuracy", p.correct / p.examples
        shown, n = p.sampled[major] / p.examples, p.examples
    bound = max(th.z * math.sqrt(shown * (1.0 - shown) / n), th.tolerance)
    if abs(value - shown) > bound:
        return []  # the accuracy is not the majority share: something else is going on
    cls = p.classes[major]
    others = [i for i in range(len(p.classes)) if i != major]
    never = [p.classes[i] for i in others if p.predicted[i] == 0 and p.labels[i] > 0]
    minority = sum(p.labels[i] for i in others) / p.labelled
    said = "fit reported" if accuracy is not None else "measured"
    if len(others) == 1:
        rest = f"while class {p.classes[others[0]]} is {minority:.1%} of them"
        rest += " and never predicted" if never else ""
    else:
        rest = f"while the other classes are {minority:.1%} of them"
        rest += (
            f"; class{'es' if len(never) > 1 else ''} {', '.join(never)} never predicted"
            if never
            else ""
        )
    message = (
        f"model '{model}' predicts class {cls} for {p.predicted[major]} of {p.examples} "
        f"{examples_of}: its {name} {value:.3f} ({said}) is just the share of class "
        f"{cls} in the {'labels' if accuracy is not None else 'labels of those examples'} "
        f"({shown:.1%}), {rest}"
    )
    counts = ", ".join(
        f"{c}: {n} ({n / p.labelled:.1%})" for c, n in zip(p.classes, p.labels, strict=True)
    )
    preds = ", ".join(f"{c}: {n}" for c, n in zip(p.classes, p.predicted, strict=True))
    evidence = (
        f"labels: {counts} of {p.labelled}; predictions on {p.source}: {preds}; "
        f"{name} {value:.3f} vs majority share {shown:.3f} (within {bound:.3f})"
    )
    constant = p.spread <= 1e-3 * max(1.0, max(abs(v) for v in p.first_output))
    if constant:
        evidence += f"; the output is {_row(p.first_output)} for every example"
    place = f"predictions of model '{model}' (output '{p.output}')"
    return [
        finding(
            "P16",
            message,
            place=place,
            evidence=evidence,
            hint=_hint(p, constant, major, metric_kinds, class_weight, x_name),
        )
    ]


def _row(values: tuple[float, ...]) -> str:
    if len(values) == 1:
        return format_float(values[0])
    return "[" + ", ".join(format_float(v) for v in values) + "]"


def _hint(
    p: Predictions,
    constant: bool,
    major: int,
    metric_kinds: tuple[str, ...],
    class_weight: bool,
    x_name: str | None,
) -> str:
    """Derived from the evidence: scaling only for raw inputs, class_weight from the counts,
    a minority metric only when none is compiled, the output layer when it ignores the input."""
    parts = []
    x = x_name or "x"
    if p.input_peak is not None and p.input_peak > 10 and p.scaling_layer is None:
        parts.append(
            f"scale the inputs (their values reach {format_float(p.input_peak)}): e.g. "
            f"norm = keras.layers.Normalization(); norm.adapt({x}) as the model's first layer"
        )
    if constant:
        parts.append(_constant_output_hint(p, scaled=bool(parts)))
    if not class_weight:
        total = p.labelled
        k = sum(1 for n in p.labels if n)
        weights = ", ".join(
            f"{c}: {total / (k * n):.2f}" for c, n in zip(p.classes, p.labels, strict=True) if n
        )
        parts.append(f"weight the classes: fit(..., class_weight={{{weights}}})")
    if not {"auc", "recall", "precision"} & set(metric_kinds):
        if p.binary:
            parts.append(
                "watch a metric that sees the minority: metrics=['accuracy', "
                "keras.metrics.AUC(), keras.metrics.Recall()]"
            )
        else:
            parts.append(
                "watch a metric that sees the minority classes: per-class recall of "
                "model.predict (accuracy cannot)"
            )
    return "; ".join(parts)


_HIDDEN_CAUSES = {
    "initializer": "initializers that cannot start learning: {}",
    "relu": "dead ReLUs in {}",
    "saturating": "saturated sigmoid/tanh units in {}",
}


def _constant_output_hint(p: Predictions, *, scaled: bool) -> str:
    """What the model's configuration holds that could keep the input from the output (its
    hidden layers' kinds, initializers that cannot start), only those it has."""
    causes = [
        _HIDDEN_CAUSES[kind].format(", ".join(f"'{n}'" if "'" not in n else n for n in names))
        for kind, names in p.hidden
    ]
    what = " or ".join(causes) if causes else "what each layer before it outputs"
    return (
        f"the output layer '{p.output}' gives the same output for every example, so nothing "
        f"of the input reaches it: {'after scaling, ' if scaled else ''}check {what} "
        "(%tfshape shows each layer's output)"
    )


# -- P15 --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Evidence:
    """What P15 reads from the history and the inference-mode look, before any control."""

    key: str
    train: tuple[float, ...]
    val: tuple[float, ...]
    n: int
    chance: float
    bound: float
    inference: float
    examples: int


def _evidence(outcome: FitOutcome, th: OutcomeThresholds) -> _Evidence | None:
    counts = outcome.validation_labels
    if not counts or sum(counts) < th.min_examples:
        return None
    key = next((k for k in ACCURACY_KEYS if outcome.metric(k) and outcome.metric(f"val_{k}")), None)
    if key is None:
        return None
    train, val = outcome.metric(key), outcome.metric(f"val_{key}")
    if len(val) < th.min_epochs or len(train) != len(val):
        return None
    n = sum(counts)
    chance = max(counts) / n
    bound = max(th.z * math.sqrt(chance * (1.0 - chance) / n), th.tolerance)
    if max(val) > chance + bound:
        return None  # validation rises above chance: something is learned
    p = outcome.predictions
    if p is None or not p.labelled or not p.examples:
        return None  # no inference-mode look at the training examples: say nothing
    train_chance = max(p.labels) / p.labelled
    if train[-1] < max(train_chance, max(val)) + th.fits or train[-1] <= train[0]:
        return None  # the model does not fit the training labels either: P16 or a hard task
    inference = p.correct / p.examples
    if inference < max(p.sampled) / p.examples + th.fits:
        # in inference mode it gets the training examples no better than chance either:
        # a training/inference gap (BatchNormalization statistics, Dropout), not the labels
        return None
    return _Evidence(key, train, val, n, chance, bound, inference, p.examples)


def needs_label_control(outcome: FitOutcome, thresholds: OutcomeThresholds | None = None) -> bool:
    """P15's evidence from the history holds: its control run on shuffled labels decides."""
    return _evidence(outcome, thresholds or OutcomeThresholds()) is not None


def control_margin(control: ControlRun, thresholds: OutcomeThresholds | None = None) -> float:
    """How much better than the shuffled labels the real ones must do to count as learnable:
    ``control_z`` standard errors of the difference of two accuracies at chance over the
    held-out rows and the pairs of runs (at least ``tolerance``)."""
    th = thresholds or OutcomeThresholds()
    c, n = control.chance, max(1, control.held_out * max(1, control.pairs))
    return max(th.control_z * math.sqrt(2.0 * c * (1.0 - c) / n), th.tolerance)


def labels_unlearnable(
    outcome: FitOutcome, thresholds: OutcomeThresholds | None = None
) -> list[Finding]:
    """P15: validation accuracy at chance every epoch while the training accuracy rose, and a
    control run on shuffled labels: fresh copies learn no more from the real labels.

    When the control ran and the real labels beat the shuffled ones by more than
    :func:`control_margin` (or the real-label copy rises above chance), the task is hard
    but learnable: silent.  When it did not run (skipped, or not possible), the finding is
    given from the history alone and says so, naming both causes that fit.
    """
    th = thresholds or OutcomeThresholds()
    ev = _evidence(outcome, th)
    if ev is None:
        return []
    key, val, n, chance = ev.key, ev.val, ev.n, ev.chance
    control = outcome.control
    ran = control is not None and control.ran
    if control is not None and control.ran:
        margin = control_margin(control, th)
        c_bound = max(
            th.z * math.sqrt(control.chance * (1.0 - control.chance) / control.held_out),
            th.tolerance,
        )
        if control.real - control.shuffled > margin or control.real > control.chance + c_bound:
            return []  # the real labels teach more than shuffled ones: a hard, learnable task
    seen = (
        f"validation {key} stays at chance for all {len(val)} epochs (best {max(val):.3f}; "
        f"chance, the majority class's share of the {n} validation labels, is {chance:.3f}) "
        f"while training {key} rose from {ev.train[0]:.3f} to {ev.train[-1]:.3f} (in inference "
        f"mode {ev.inference:.3f} on {ev.examples} training examples)"
    )
    evidence = (
        f"val_{key} per epoch: {', '.join(f'{v:.3f}' for v in val)}; chance {chance:.3f} "
        f"+ {ev.bound:.3f} (3 binomial standard errors over {n} labels); training {key} "
        f"{ev.train[-1]:.3f} at the end; "
    )
    x = outcome.x_name or "x"
    shuffle = f"idx = np.random.permutation(len({x})); {x}, y = {x}[idx], y[idx]"
    if ran:
        assert control is not None
        message = (
            f"{seen}, and fresh copies of the model learn no more from the real labels than "
            f"from a shuffled copy of them (validation accuracy {control.real:.3f} vs "
            f"{control.shuffled:.3f}): the labels carry no signal the model can find in the inputs"
        )
        evidence += (
            f"control: {control.pairs} pair{'s' if control.pairs != 1 else ''} of fresh copies, "
            f"{control.steps} steps of {control.batch_size} on {control.rows} training rows, "
            f"scored on {control.held_out} validation rows: accuracy {control.real:.3f} with "
            f"the real labels vs {control.shuffled:.3f} with shuffled ones (chance "
            f"{control.chance:.3f}; learnable labels beat shuffled ones by more than "
            f"{control_margin(control, th):.3f}), {control.seconds:.1f} s"
        )
        hint = (
            "check that each label belongs to its input: x and y shuffled or sorted "
            "separately, a wrong label column, labels joined on the wrong key; shuffle with "
            f"one permutation ({shuffle}). If they do belong together, these inputs do not "
            "predict these labels (labels too noisy, or features that do not carry the "
            "target): the data, not the model, needs the change"
        )
    else:
        why = control.reason if control is not None else "P15's control was not asked for"
        message = (
            f"{seen}: the model fits the training labels and nothing of it carries over to "
            "validation; either the labels do not belong to their inputs or the model cannot "
            f"generalize on this task (the control run on shuffled labels did not run: {why})"
        )
        evidence += f"no control run on shuffled labels: {why}"
        hint = (
            "check that each label belongs to its input: x and y shuffled or sorted "
            "separately, a wrong label column, labels joined on the wrong key; shuffle with "
            f"one permutation ({shuffle}). To tell this from a task the model cannot "
            "generalize on, fit a fresh copy on a shuffled copy of the labels for the same "
            "epochs: if it scores as well on the validation data as the real labels do, the "
            "labels carry no signal it can find"
        )
    place = f"fit of model '{outcome.model}'"
    return [finding("P15", message, place=place, evidence=evidence, hint=hint)]
