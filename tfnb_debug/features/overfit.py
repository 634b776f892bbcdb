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
(:func:`tfnb_debug.features.lint.lint_model`) that explain why are attached.

The run (``_overfit_run.py``) is bounded: it stops once the examples are
memorized, takes fewer examples when each input is large, and trains for a
time budget (5 s by default) after which the verdict says it is that of a
shorter run: a run cut short never claims the model cannot memorize.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Report, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tfnb_debug.features.overfit_run import Capacity, Progress, Run

#: seconds of training (after the first step) before the check stops and says so
DEFAULT_BUDGET = 5.0

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
    out_of_time: bool = False  # the time budget ended training before the verdict was reached
    #: the examples met the criterion before any training step (a trained model): none ran
    already: bool = False
    seconds: float = 0.0  # the training's wall time
    plot: bool = field(default=True, repr=False)  # show the loss curve (drawn when first shown)

    def figure(self) -> Figure | None:
        """The training-loss curve as a new Figure (for an export: the report itself shows
        it as SVG), or None when no step ran."""
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


def overfit_small_batch(
    model: Any,
    data: Any,
    *,
    samples: int | None = None,
    steps: int = 200,
    thresholds: OverfitThresholds | None = None,
    plot: bool = True,
    loss_key: str | None = None,
    time_budget: float | None = DEFAULT_BUDGET,
    progress: Callable[[Progress], None] | None = None,
) -> OverfitReport:
    """Train ``model`` on ``samples`` examples of ``data`` for at most ``steps`` full-batch steps.

    ``data`` is a ``tf.data.Dataset`` of ``(x, y)`` (batched or not) or an
    ``(x, y)`` tuple of arrays; a model with its own ``train_step`` also takes
    inputs alone.  The model must be compiled.  It trains through ``fit``
    and every variable, optimizer, metric and random state it touches is
    restored afterwards, bit for bit.  ``loss_key`` names the logged value to
    read when a ``train_step`` logs no ``"loss"`` (a GAN's ``"g_loss"``).

    Training stops as soon as the examples are memorized, and after
    ``time_budget`` seconds (counted from the end of the first step, which
    compiles the train step; None: no limit); the report then says it ran out
    of time rather than that the model cannot memorize.  ``samples`` None: 16,
    fewer (down to 4) when each input holds many values.  ``progress`` is
    called after every step with a :class:`~tfnb_debug.features.overfit_run.Progress`.
    Returns whether the model memorized the examples.
    """
    from tfnb_debug.collect.keras_access import build_from_data
    from tfnb_debug.collect.snapshot import first_batch, has_own_train_step, require_keras_model
    from tfnb_debug.collect.training_guard import TrainingGuard
    from tfnb_debug.features.overfit_run import (
        DEFAULT_SAMPLES,
        capacity,
        fit_sample,
        leading_dim,
        take_examples,
        train,
    )

    thresholds = thresholds or OverfitThresholds()
    model = require_keras_model(model, built=False)
    if (samples is not None and samples < 1) or steps < 1:
        raise TfnbDebugError("--samples and --steps must be positive integers")
    if time_budget is not None and not time_budget > 0:
        raise TfnbDebugError(
            f"the time budget must be a positive number of seconds, got {time_budget!r} "
            "(None or %tfoverfit --time 0: no limit)"
        )
    if getattr(model, "optimizer", None) is None:
        raise TfnbDebugError(
            f"model {model.name!r} is not compiled: call model.compile(optimizer=..., loss=...) "
            "first, so that it trains with its own loss and optimizer"
        )
    own = has_own_train_step(model)
    if not own:
        if not model.built:  # built on the data as its first fit would build it
            build_from_data(model, first_batch(data, what="DATA")[0])
        model = require_keras_model(model)
        if getattr(model, "loss", None) is None:
            raise TfnbDebugError(
                f"model {model.name!r} was compiled without a loss and trains with Keras' own "
                "train_step: pass loss=... to model.compile"
            )
    x, y = take_examples(model, data, samples or DEFAULT_SAMPLES, labels=not own)
    reduced = None
    if samples is None:
        x, y, kept, per_example = fit_sample(x, y, DEFAULT_SAMPLES)
        if kept < DEFAULT_SAMPLES:
            reduced = (
                f"{kept} examples, not {DEFAULT_SAMPLES}: each input holds {per_example:,} "
                "values, so a step on fewer is quicker (--samples N to choose)"
            )
    __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out

    def done(initial: float, final: float, accuracy: float | None) -> bool:
        return _memorized(initial, final, accuracy, thresholds)

    with TrainingGuard(model) as guard:
        run = train(
            model,
            x,
            y,
            steps,
            own=own,
            loss_key=loss_key,
            done=done,
            budget=time_budget,
            progress=progress,
        )
    n = int(leading_dim(x))
    memorized = done(run.initial, run.final, run.accuracy)
    findings: list[Finding] = []
    if not memorized:
        from tfnb_debug.features.lint import lint_model

        findings = list(lint_model(model, data=None if own else (x, y)).findings)
    room = capacity(model, y, n, classification=run.accuracy is not None)
    return _report(
        model,
        n,
        steps,
        run,
        memorized,
        guard.removed,
        findings,
        thresholds,
        plot,
        own,
        room,
        budget=time_budget,
        reduced=reduced,
    )


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
    run: Run,
    memorized: bool,
    removed: tuple[str, ...],
    findings: list[Finding],
    t: OverfitThresholds,
    plot: bool,
    own: bool,
    capacity: Capacity | None = None,
    *,
    budget: float | None = None,
    reduced: str | None = None,
) -> OverfitReport:
    from tfnb_debug.ground.reports import sort_findings

    losses, initial, final, accuracy = run.losses, run.initial, run.final, run.accuracy
    out_of_time = not memorized and run.stopped == "time"
    already = run.stopped == "already"
    if already:
        score = (
            f"accuracy {accuracy:.3g} on them" if accuracy is not None else f"loss {initial:.4g}"
        )
        verdict = (
            f"ALREADY FIT: {model.name!r} fits these {n} examples before any training step "
            f"({score}), so no step ran: this says nothing about whether its training can "
            "memorize them; to check that, run %tfoverfit on an untrained copy "
            "(keras.models.clone_model(model), compiled the same way)"
        )
    elif memorized:
        verdict = f"yes: {model.name!r} memorized {n} examples in {len(losses)} steps"
        if run.initial_accuracy is not None:
            verdict += f" (accuracy {run.initial_accuracy:.3g} before training)"
    elif out_of_time:
        verdict = (
            f"NOT YET: {model.name!r} did not memorize {n} examples in the {len(losses)} of "
            f"{steps} steps that fit in the time budget of {budget:g} s; this is the verdict "
            "of a shorter run, not a sign that it cannot: give it longer (--time SECONDS, "
            "time_budget=...) or fewer examples (--samples N)"
        )
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
    if memorized and run.stopped == "memorized" and len(losses) < steps:
        summary.append(f"stopped once memorized, after {len(losses)} of {steps} steps")
    if reduced:
        summary.append(f"trained on {reduced}")
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
    if out_of_time:
        if findings:
            summary.append("lint findings about this model are listed below")
    elif not memorized:
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
        "no training step ran; the model's state is as it was"
        if already
        else "the model trained itself; its weights, optimizer, metric and random states were "
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
    if run.initial_accuracy is not None:
        rows.append(("accuracy before training", run.initial_accuracy))
    if accuracy is not None:
        rows.append(("accuracy on the examples", accuracy))
    if capacity is not None:
        rows.append(("target values in the examples", capacity.values))
        rows.append(("trainable parameters", capacity.parameters))
    rows.append(("training time (s)", round(run.seconds, 2)))
    rows.append(
        (
            "memorized",
            "yes, before any training step"
            if already
            else "yes"
            if memorized
            else "not yet (out of time)"
            if out_of_time
            else "NO",
        )
    )
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
        out_of_time=out_of_time,
        already=already,
        seconds=run.seconds,
        plot=plot,
    )
