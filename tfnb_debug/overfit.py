"""``%tfoverfit``: can the model memorize a handful of examples?

The standard first step when the loss does not fall: train the model itself
on a few examples, full batch, and say whether the loss collapses.  Training
runs through ``model.fit``, so a model with its own ``train_step`` (a VAE, a
GAN) trains exactly as it does for the user, and its logged loss is read.
Everything the run changes is put back afterwards by
:class:`tfnb_debug.collect.training_guard.TrainingGuard` (weights, optimizer
and metric state, random states, the compiled train function), also when the
run raises or is interrupted; augmentation layers run as in inference during
the check.  If the model does not memorize the examples, the lint findings
(:func:`tfnb_debug.lint.lint_model`) that explain why are attached.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.reports import Finding, Report, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["OverfitReport", "OverfitThresholds", "overfit_small_batch"]


@dataclass(frozen=True)
class OverfitThresholds:
    """When a model counts as having memorized its examples.

    Classification (a cross-entropy loss): the accuracy on the examples
    reaches ``accuracy``.  Otherwise: the final loss is at most ``loss_ratio``
    times the initial loss (or below ``loss_floor``).
    """

    accuracy: float = 1.0
    loss_ratio: float = 0.05
    loss_floor: float = 1e-3

    def __post_init__(self) -> None:
        if not 0 < self.accuracy <= 1:
            raise TfnbDebugError("OverfitThresholds.accuracy must be in (0, 1]")
        if not 0 < self.loss_ratio < 1:
            raise TfnbDebugError("OverfitThresholds.loss_ratio must be in (0, 1)")


@dataclass(frozen=True, kw_only=True, repr=False)
class OverfitReport(Report):
    """What ``%tfoverfit`` shows; every field is a plain value.

    ``loss_key`` is the log entry read as the loss (``"loss"`` for compiled
    models); ``own_train_step`` says the model computes its loss in its own
    ``train_step``, so the initial and final losses are the first and last
    logged training losses rather than an inference-mode evaluation.
    """

    model_name: str
    samples: int
    steps: int
    losses: tuple[float, ...]
    initial_loss: float
    final_loss: float
    accuracy: float | None
    memorized: bool
    augmentation_removed: tuple[str, ...]
    loss_key: str = "loss"
    own_train_step: bool = False
    plot: bool = field(default=True, repr=False)  # show the loss curve (drawn when first shown)

    def figure(self) -> Figure | None:
        """The training-loss curve as a new Figure, or None when no step ran."""
        from tfnb_debug.render.overfit import loss_figure

        return loss_figure(self.losses, self.loss_key) if self.losses else None

    def to_text(self, width: int = 100) -> str:
        return super(OverfitReport, self._with_loss(draw=False)).to_text(width=width)

    def to_html(self) -> str:
        return self._html

    @cached_property
    def _html(self) -> str:
        return super(OverfitReport, self._with_loss(draw=True)).to_html()

    def _with_loss(self, *, draw: bool) -> OverfitReport:
        if not (self.plot and self.losses):
            return self
        from tfnb_debug.render.overfit import loss_section

        section = loss_section(self.losses, self.loss_key, draw=draw)
        return replace(self, sections=(*self.sections, section))


@dataclass(frozen=True)
class _Run:
    losses: tuple[float, ...]
    initial: float
    final: float
    accuracy: float | None
    loss_key: str


def overfit_small_batch(
    model: Any,
    data: Any,
    *,
    samples: int = 16,
    steps: int = 200,
    thresholds: OverfitThresholds | None = None,
    plot: bool = True,
    loss_key: str | None = None,
) -> OverfitReport:
    """Train ``model`` on ``samples`` examples of ``data`` for ``steps`` full-batch steps.

    ``data`` is a ``tf.data.Dataset`` of ``(x, y)`` (batched or not) or an
    ``(x, y)`` tuple of arrays; a model with its own ``train_step`` also takes
    inputs alone.  The model must be compiled.  It trains through ``fit``
    and every variable, optimizer, metric and random state it touches is
    restored afterwards, bit for bit.  ``loss_key`` names the logged value to
    read when a ``train_step`` logs no ``"loss"`` (a GAN's ``"g_loss"``).
    Returns whether the model memorized the examples.
    """
    from tfnb_debug.collect.snapshot import has_own_train_step, require_keras_model
    from tfnb_debug.collect.training_guard import TrainingGuard

    thresholds = thresholds or OverfitThresholds()
    model = require_keras_model(model, built=False)
    if samples < 1 or steps < 1:
        raise TfnbDebugError("--samples and --steps must be positive integers")
    if getattr(model, "optimizer", None) is None:
        raise TfnbDebugError(
            f"model {model.name!r} is not compiled: call model.compile(optimizer=..., loss=...) "
            "first, so that it trains with its own loss and optimizer"
        )
    own = has_own_train_step(model)
    if not own:
        model = require_keras_model(model)
        if getattr(model, "loss", None) is None:
            raise TfnbDebugError(
                f"model {model.name!r} was compiled without a loss and trains with Keras' own "
                "train_step: pass loss=... to model.compile"
            )
    x, y = take_examples(model, data, samples, labels=not own)
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    with TrainingGuard(model) as guard:
        run = _train(model, x, y, steps, own=own, loss_key=loss_key)
    n = int(_leading_dim(x))
    memorized = _memorized(run.initial, run.final, run.accuracy, thresholds)
    findings: list[Finding] = []
    if not memorized:
        from tfnb_debug.lint import lint_model

        findings = list(lint_model(model, data=None if own else (x, y)).findings)
    capacity = _capacity(model, y, n, classification=run.accuracy is not None)
    return _report(
        model, n, steps, run, memorized, guard.removed, findings, thresholds, plot, own, capacity
    )


# -- collect ----------------------------------------------------------------------------


def _leading_dim(x: Any) -> int:
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
            count += _leading_dim(xs[-1])
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


def _train(model: Any, x: Any, y: Any, steps: int, *, own: bool, loss_key: str | None) -> _Run:
    """One ``fit`` epoch of ``steps`` full-batch steps, reading the loss of every step.

    The metrics are reset before each step (as ``train_on_batch`` does), so the
    logged loss is that step's, not a running mean.
    """
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    import keras
    import tensorflow as tf

    n = _leading_dim(x)
    losses: list[float] = []
    chosen: list[str] = []

    class LossLog(keras.callbacks.Callback):
        def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
            model.reset_metrics()

        def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
            logs = logs or {}
            if not chosen:
                chosen.append(_pick_loss_key(logs, loss_key))
            value = float(logs[chosen[0]])
            losses.append(value)
            if not math.isfinite(value):
                model.stop_training = True

    initial = final = math.nan
    if not own:
        initial = _first_evaluation(model, x, y, n)
    batch = x if y is None else (x, y)
    data = tf.data.Dataset.from_tensors(batch).repeat()
    model.fit(
        data, epochs=1, steps_per_epoch=steps, shuffle=False, verbose=0, callbacks=[LossLog()]
    )
    accuracy = None
    if own:
        initial, final = losses[0], losses[-1]
    else:
        final = _evaluate(model, x, y, n)
        accuracy = _accuracy(model, x, y)
    return _Run(tuple(losses), initial, final, accuracy, chosen[0] if chosen else "loss")


def _first_evaluation(model: Any, x: Any, y: Any, n: int) -> float:
    """:func:`_evaluate` before any training: data the model cannot take is a one-line error."""
    from tfnb_debug.text import first_line, key_sentence

    try:
        return _evaluate(model, x, y, n)
    except Exception as err:
        said = key_sentence(str(err)) or first_line(err)
        raise TfnbDebugError(
            f"model {model.name!r} cannot take DATA's first {n} examples (evaluating the loss "
            f"on them failed): {type(err).__name__}: {said}"
        ) from None


def _evaluate(model: Any, x: Any, y: Any, n: int) -> float:
    """The compiled loss on the examples in inference mode (metrics and loss weights aside)."""
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
    logs = model.evaluate(x, y, batch_size=n, verbose=0, return_dict=True)
    return float(logs["loss"])


def _is_classification(model: Any) -> bool:
    name = model.loss if isinstance(model.loss, str) else type(model.loss).__name__
    if (
        callable(model.loss)
        and not isinstance(model.loss, type)
        and hasattr(model.loss, "__name__")
    ):
        name = model.loss.__name__
    return "crossentropy" in str(name).lower().replace("_", "")


def _accuracy(model: Any, x: Any, y: Any) -> float | None:
    import keras
    import numpy as np

    if not _is_classification(model):
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
class _Capacity:
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


def _capacity(model: Any, y: Any, n: int, *, classification: bool) -> _Capacity | None:
    """Target values (one class id per example and output when classifying) vs trainable parameters."""
    import keras
    import numpy as np

    if y is None or n < 1:
        return None
    leaves = keras.tree.flatten(y)
    per_example = (
        len(leaves) if classification else sum(int(np.prod(np.shape(a)[1:])) for a in leaves)
    )
    parameters = sum(int(np.prod(v.shape)) for v in model.trainable_weights)
    return _Capacity(per_example * n, per_example, parameters)


def _memorized(initial: float, final: float, accuracy: float | None, t: OverfitThresholds) -> bool:
    if not math.isfinite(final):
        return False
    if accuracy is not None:
        return accuracy >= t.accuracy
    return final <= t.loss_floor or final <= t.loss_ratio * initial


# -- report -----------------------------------------------------------------------------


def _report(
    model: Any,
    n: int,
    steps: int,
    run: _Run,
    memorized: bool,
    removed: tuple[str, ...],
    findings: list[Finding],
    t: OverfitThresholds,
    plot: bool,
    own: bool,
    capacity: _Capacity | None = None,
) -> OverfitReport:
    from tfnb_debug.reports import sort_findings

    losses, initial, final, accuracy = run.losses, run.initial, run.final, run.accuracy
    if memorized:
        verdict = f"yes: {model.name!r} memorized {n} examples in {len(losses)} steps"
    else:
        verdict = f"NO: {model.name!r} could not memorize {n} examples in {len(losses)} steps" + (
            " (the loss became NaN/Inf)" if losses and not math.isfinite(losses[-1]) else ""
        )
    criterion = (
        f"criterion: accuracy on the examples >= {t.accuracy:g}"
        if accuracy is not None
        else f"criterion: final loss <= {t.loss_ratio:g} x initial loss or <= {t.loss_floor:g}"
    )
    summary = [verdict, criterion]
    if own:
        summary.append(
            f"trained through the model's own train_step (fit), reading its logged "
            f"{run.loss_key!r}: before/after are the first and last training steps"
        )
    if removed:
        summary.append("augmentation layers ran as in inference: " + ", ".join(removed))
    too_hard = not memorized and capacity is not None and capacity.too_small
    if too_hard and capacity is not None:
        check = (
            f"check with --samples {min(capacity.samples_that_fit, max(1, n - 1))} or fewer"
            if capacity.per_example <= capacity.parameters
            else f"even one example holds {capacity.per_example:,} target values"
        )
        summary.append(
            f"the {n} examples hold {capacity.values:,} target values and {model.name!r} has "
            f"{capacity.parameters:,} trainable parameters: fewer parameters than values to fit, "
            "so it cannot memorize arbitrary targets; that is its capacity, not a sign of a bug "
            f"({check})"
        )
    if not memorized:
        if findings:
            summary.append("lint findings that can explain it are listed below")
        elif too_hard:
            summary.append("no lint finding points to a bug")
        elif own:
            summary.append(
                "a loss with a floor above 0 (a KL term, cross-entropy on soft targets) never "
                "meets this criterion: judge the loss curve"
            )
        else:
            summary.append(
                "no lint finding explains it: try a larger model, a higher learning rate, "
                "or check the labels match the inputs"
            )
    summary.append(
        "the model trained itself; its weights, optimizer, metric and random states were "
        "restored bit for bit afterwards"
    )
    before, after = (
        ("loss at the first training step", "loss at the last training step")
        if own
        else ("loss before (inference mode)", "loss after (inference mode)")
    )
    rows: list[tuple[Any, ...]] = [
        ("examples", n),
        ("steps run", len(losses)),
        (before, initial),
        (after, final),
        ("loss ratio after/before", final / initial if initial else float("nan")),
    ]
    if accuracy is not None:
        rows.append(("accuracy on the examples", accuracy))
    if capacity is not None:
        rows.append(("target values in the examples", capacity.values))
        rows.append(("trainable parameters", capacity.parameters))
    rows.append(("memorized", "yes" if memorized else "NO"))
    return OverfitReport(
        title=f"tfnb_debug overfit check of {model.name!r}",
        summary=tuple(summary),
        findings=sort_findings(findings),
        tables=(Table("result", ("item", "value"), tuple(rows)),),
        model_name=model.name,
        samples=n,
        steps=len(losses),
        losses=losses,
        initial_loss=initial,
        final_loss=final,
        accuracy=accuracy,
        memorized=memorized,
        augmentation_removed=removed,
        loss_key=run.loss_key,
        own_train_step=own,
        plot=plot,
    )
