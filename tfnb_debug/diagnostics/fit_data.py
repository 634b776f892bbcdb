"""Rules over the recorded arguments of ``fit`` calls: P13 validation-split-skew, P14 steps-exceed-data,
and under a ``tf.distribute`` strategy D03 tiny-replica-batch and D04 empty-replica-batch.

D03 and D04 have a second form for custom loops (``strategy.run``):
:func:`measured_replica_batch` reads the examples each replica received in the
recorded steps (:class:`~tfnb_debug.records.replicas.ReplicaHistory`) instead of
``fit``'s arguments.

Both take :class:`~tfnb_debug.collect.fit_args.FitCall` records (plain values)
and return findings; :func:`fit_data_findings` runs both and merges the same
finding from repeated ``fit`` calls into one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from tfnb_debug.collect.fit_args import FitCall, LabelCounts
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, finding
from tfnb_debug.records.replicas import ReplicaHistory

__all__ = [
    "FitDataThresholds",
    "fit_data_findings",
    "measured_replica_batch",
    "steps_exceed_data",
    "validation_split_skew",
]

_SHOWN = 6  # classes named in a P13 message before "and N more"


@dataclass(frozen=True)
class FitDataThresholds:
    """P13: a class is skewed when its share on one side of the split is more than
    ``share_ratio`` times its share on the other (or zero there) AND a random split of
    the same labels would put a count that far from the expected one in the validation
    part with a probability below ``max_p``, counted over all classes (the exact
    hypergeometric tail times the number of classes), so shuffled splits stay silent.
    D03: a per-replica batch below ``min_replica_batch`` examples is tiny for
    BatchNormalization."""

    share_ratio: float = 2.0
    max_p: float = 1e-4
    min_replica_batch: int = 16

    def __post_init__(self) -> None:
        if not self.share_ratio > 1.0:
            raise TfnbDebugError(f"share_ratio must be above 1, got {self.share_ratio!r}")
        if not 0.0 < self.max_p < 1.0:
            raise TfnbDebugError(f"max_p must be a probability in (0, 1), got {self.max_p!r}")
        if self.min_replica_batch < 1:
            raise TfnbDebugError(
                f"min_replica_batch must be at least 1, got {self.min_replica_batch!r}"
            )


def fit_data_findings(
    calls: Iterable[FitCall], thresholds: FitDataThresholds | None = None
) -> list[Finding]:
    """P13, P14, D03 and D04 for every call; the same finding from several calls is reported once."""
    found: dict[Finding, int] = {}
    for call in calls:
        for f in [
            *validation_split_skew(call, thresholds),
            *steps_exceed_data(call),
            *tiny_replica_batch(call, thresholds),
            *empty_replica_batch(call),
        ]:
            found[f] = found.get(f, 0) + 1
    out = []
    for f, n in found.items():
        out.append(replace(f, message=f"{f.message} (the same in {n} fit calls)") if n > 1 else f)
    return out


# -- P13 --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Skew:
    name: str
    train_share: float
    validation_share: float
    p: float  # chance of a count this far out under a random split


def _skewed_classes(labels: LabelCounts, thresholds: FitDataThresholds) -> list[_Skew]:
    n_train, n_val = labels.n_train, labels.n_validation
    total = round(n_train + n_val)
    if n_train <= 0 or n_val <= 0 or total <= 1:
        return []
    present = sum(1 for a, b in zip(labels.train, labels.validation, strict=True) if a + b > 0)
    out = []
    for name, a, b in zip(labels.classes, labels.train, labels.validation, strict=True):
        if a + b <= 0 or a + b >= total:
            continue
        share_t, share_v = a / n_train, b / n_val
        low, high = sorted((share_t, share_v))
        if low > 0 and high / low <= thresholds.share_ratio:
            continue
        p = hypergeometric_tail(round(b), total, round(a + b), round(n_val)) * present
        if p < thresholds.max_p:
            out.append(_Skew(name, share_t, share_v, p))
    return out


def hypergeometric_tail(k: int, total: int, in_class: int, drawn: int) -> float:
    """The chance that ``drawn`` of ``total`` labels, taken at random, hold ``k`` or more
    of the ``in_class`` labels of a class (``k`` or fewer when ``k`` is below the mean)."""
    low, high = max(0, drawn - (total - in_class)), min(in_class, drawn)
    k = min(max(k, low), high)
    log_all = _log_choose(total, drawn)
    step = 1 if k >= drawn * in_class / total else -1
    tail = 0.0
    while low <= k <= high:
        term = math.exp(
            _log_choose(in_class, k) + _log_choose(total - in_class, drawn - k) - log_all
        )
        tail += term
        if term < tail * 1e-12:
            break  # the terms only shrink away from the mean
        k += step
    return min(tail, 1.0)


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def validation_split_skew(
    call: FitCall, thresholds: FitDataThresholds | None = None
) -> list[Finding]:
    """P13: ``validation_split`` cut off a tail of the arrays whose labels differ from the rest."""
    thresholds = thresholds or FitDataThresholds()
    labels = call.labels
    if labels is None or not call.validation_split:
        return []
    skewed = _skewed_classes(labels, thresholds)
    if not skewed:
        return []
    n_val, n_all = round(labels.n_validation), round(labels.n_train + labels.n_validation)
    only_val = [s.name for s in skewed if s.train_share == 0]
    only_train = [s.name for s in skewed if s.validation_share == 0]
    parts = []
    if only_val:
        parts.append(f"{_classes(only_val)} only in validation")
    if only_train:
        parts.append(f"{_classes(only_train)} only in training")
    rest = [s for s in skewed if s.train_share > 0 and s.validation_share > 0]
    if rest:
        parts.append(
            f"{_classes([s.name for s in rest])} more than {thresholds.share_ratio:g}x apart"
        )
    labels_name = f" of `{call.y_name}`" if call.y_name else ""
    message = (
        f"Keras takes the last {call.validation_split:.0%} of the arrays ({n_val} of {n_all} "
        f"samples) for validation before any shuffle, and the labels{labels_name} there are "
        f"distributed unlike the training part: {'; '.join(parts)} (the data looks sorted)"
    )
    shown = sorted(skewed, key=lambda s: s.p)[:_SHOWN]
    evidence = "class share in training vs validation: " + ", ".join(
        f"{s.name}: {s.train_share:.1%} vs {s.validation_share:.1%}" for s in shown
    )
    if len(skewed) > _SHOWN:
        evidence += f", and {len(skewed) - _SHOWN} more skewed classes"
    x, y = call.x_name or "x", call.y_name or "y"
    hint = (
        f"shuffle the arrays together before fit (p = np.random.permutation(len({y})); "
        f"{x}, {y} = {x}[p], {y}[p]), or pass validation_data=(x_val, y_val) from a "
        "stratified split"
    )
    place = f"fit(validation_split={call.validation_split:g}) of model '{call.model}'"
    return [finding("P13", message, place=place, evidence=evidence, hint=hint)]


def _classes(names: Sequence[str]) -> str:
    word = "class" if len(names) == 1 else "classes"
    if len(names) > _SHOWN:
        return f"{word} {', '.join(names[:_SHOWN])} and {len(names) - _SHOWN} more"
    return f"{word} {', '.join(names)}"


# -- P14 --------------------------------------------------------------------------


def epoch_steps(
    batches: int, steps_per_epoch: int, epochs: int, per_execution: int = 1
) -> list[int]:
    """The steps each epoch runs when a finite, non-repeating dataset of ``batches`` batches
    feeds ``fit(steps_per_epoch=..., epochs=...)``, as Keras 3's epoch iterator runs them.

    Keras keeps one iterator across epochs while ``steps_per_epoch`` is set: an epoch
    ends early ("ran out of data") when the iterator is exhausted, and the next epoch
    starts a fresh pass.
    """
    return [ran for ran, _ in _epoch_runs(batches, steps_per_epoch, epochs, per_execution)]


def _epoch_runs(
    batches: int, steps_per_epoch: int, epochs: int, per_execution: int
) -> list[tuple[int, bool]]:
    """``(steps run, ran out of data)`` per epoch; the second is exactly Keras' warning condition."""
    iterations = math.ceil(steps_per_epoch / per_execution)
    seen = 0
    out = []
    for _ in range(epochs):
        available = math.ceil(max(batches - seen, 0) / per_execution)
        done = min(iterations, available)
        out.append((min(done * per_execution, steps_per_epoch, batches - seen), done < iterations))
        seen += done * per_execution
        if seen >= batches:
            seen = 0
    return out


def steps_exceed_data(call: FitCall) -> list[Finding]:
    """P14: ``steps_per_epoch`` x ``epochs`` or ``validation_steps`` ask more of a finite dataset
    (no endless ``repeat()``) than it yields, so Keras cuts epochs or validation passes short."""
    found = []
    dataset = f"dataset `{call.x_name}`" if call.x_name else "the dataset"
    if call.batches and call.steps_per_epoch and call.epochs > 0:
        found += _training_steps(call, call.batches, call.steps_per_epoch, dataset)
    if (
        call.validation_batches
        and call.validation_steps
        and call.validation_steps > call.validation_batches
    ):
        vname = f" `{call.validation_name}`" if call.validation_name else ""
        n = call.validation_batches
        found.append(
            finding(
                "P14",
                f"the validation dataset{vname} ends after {n} batches, so "
                f"every validation pass ran out of data after {n} of the "
                f"{call.validation_steps} steps asked (Keras only warns)",
                place=f"fit(validation_steps={call.validation_steps}) of model '{call.model}'",
                evidence=(
                    f"validation data: {n} batches (cardinality), then it ends; "
                    f"asked: validation_steps={call.validation_steps}"
                ),
                hint=(
                    f"drop validation_steps (each validation pass then covers all {n} "
                    "batches), or .repeat() the validation dataset"
                ),
            )
        )
    return found


def _training_steps(call: FitCall, batches: int, steps: int, dataset: str) -> list[Finding]:
    runs = _epoch_runs(batches, steps, call.epochs, call.steps_per_execution)
    ran = [n for n, _ in runs]
    short = [(i + 1, n) for i, (n, out_of_data) in enumerate(runs) if out_of_data]
    if not short:
        return []
    asked = steps * call.epochs
    if len(short) == len(ran) and len({n for _, n in short}) == 1:
        which = f"every epoch stopped after {short[0][1]} of {steps} steps"
    else:
        listed = ", ".join(f"epoch {e}: {n} of {steps} steps" for e, n in short[:4])
        more = f", and {len(short) - 4} more" if len(short) > 4 else ""
        which = f"{len(short)} of {call.epochs} epochs stopped early ({listed}{more})"
    message = (
        f"{dataset} ends after {batches} batches, so Keras ran out of data: "
        f"{which}; {sum(ran)} of the {asked} steps asked ran (Keras only warns)"
    )
    evidence = (
        f"dataset: {batches} batches (cardinality), then it ends; asked: "
        f"steps_per_epoch={steps} x {call.epochs} epochs = {asked} steps; ran: {sum(ran)}"
    )
    if steps > batches:
        hint = (
            f"drop steps_per_epoch (an epoch is then one pass over the {batches} batches), "
            "or add .repeat() to the dataset"
        )
    else:
        divisor = min(
            (d for d in range(1, batches + 1) if batches % d == 0), key=lambda d: abs(d - steps)
        )
        hint = f"add .repeat() to the dataset (each epoch then takes {steps} batches)"
        if divisor > 1:
            hint += f", or use a steps_per_epoch that divides {batches} (e.g. {divisor})"
    place = f"fit(steps_per_epoch={steps}, epochs={call.epochs}) of model '{call.model}'"
    return [finding("P14", message, place=place, evidence=evidence, hint=hint)]


# -- D03, D04 ----------------------------------------------------------------------
def _layers(batchnorm: Sequence[str]) -> str:
    return ", ".join(f"'{p}'" for p in batchnorm[:3]) + (
        f" and {len(batchnorm) - 3} more" if len(batchnorm) > 3 else ""
    )


def _d03_hint(th: FitDataThresholds, replicas: int) -> str:
    return (
        "use BatchNormalization(synchronized=True) (statistics over the global batch), "
        f"or a global batch of at least {th.min_replica_batch * replicas}"
    )


def _d04_message(what: str, empty: int) -> str:
    return (
        f"{what}: {empty} replica(s) get an empty batch, and BatchNormalization over an "
        "empty batch writes NaN into its weights"
    )


def tiny_replica_batch(call: FitCall, thresholds: FitDataThresholds | None = None) -> list[Finding]:
    """D03: each replica's BatchNormalization normalizes over fewer than ``min_replica_batch``."""
    th = thresholds or FitDataThresholds()
    if call.replicas <= 1 or not call.batchnorm or call.global_batch is None:
        return []
    per_replica = call.global_batch / call.replicas
    if per_replica >= th.min_replica_batch:
        return []
    return [
        finding(
            "D03",
            f"each of the {call.replicas} replicas normalizes over {per_replica:g} examples: "
            f"BatchNormalization computes its statistics per replica",
            place=f"fit of model '{call.model}'",
            evidence=f"global batch {call.global_batch} / {call.replicas} replicas = "
            f"{per_replica:g} examples per replica (below {th.min_replica_batch}); "
            f"BatchNormalization layers that train: {_layers(call.batchnorm)}",
            hint=_d03_hint(th, call.replicas),
        )
    ]


def empty_replica_batch(call: FitCall) -> list[Finding]:
    """D04: the last global batch has fewer examples than replicas, with BatchNormalization."""
    last = call.last_batch
    if call.replicas <= 1 or not call.batchnorm or not last or last >= call.replicas:
        return []
    what = f"every epoch ends with a global batch of {last} example(s) for {call.replicas} replicas"
    return [
        finding(
            "D04",
            _d04_message(what, call.replicas - last) + " while fit's loss stays finite",
            place=f"fit of model '{call.model}'",
            evidence=f"global batch {call.global_batch}, last batch {last}, "
            f"{call.replicas} replicas; BatchNormalization layers that train: "
            f"{', '.join(call.batchnorm[:3])}",
            hint="drop the short batch: `.batch(n, drop_remainder=True)` on the dataset, or "
            "arrays whose length is a multiple of the global batch (or a batch_size that divides "
            "it)",
        )
    ]


def _counts(values: np.ndarray) -> str:
    return " and ".join(str(int(v)) for v in values)


def _steps(steps: Sequence[int]) -> str:
    shown = ", ".join(str(s) for s in steps[:4])
    return shown + (f" and {len(steps) - 4} more" if len(steps) > 4 else "")


def measured_replica_batch(
    history: ReplicaHistory,
    *,
    batchnorm: Sequence[str],
    model: str | None,
    steps: Sequence[int] | None = None,
    thresholds: FitDataThresholds | None = None,
) -> list[Finding]:
    """D03 and D04 in a custom loop, from the examples each replica's loss reduced over in the
    recorded steps (measured inside the step), for a model whose BatchNormalization layers
    ``batchnorm`` train and are not synchronized.

    D03: the replicas' share of the largest global batch seen is below ``min_replica_batch``
    on average.  D04: a step where a replica got no example, or one example while another
    replica got more (a short batch at an epoch's end): BatchNormalization then normalizes
    over fewer than 2 examples.  Steps whose counts were not found are no evidence.
    """
    th = thresholds or FitDataThresholds()
    n = history.replicas
    if n < 2 or not batchnorm or history.n_records == 0:
        return []
    examples = history.column("examples")
    known = np.isfinite(examples).all(axis=1)
    if not known.any():
        return []
    counts = examples[known].astype(np.int64)
    numbers = np.asarray(steps if steps is not None else [], np.int64)
    numbers = numbers[known] if len(numbers) == len(known) else np.flatnonzero(known)
    place = f"model '{model}'" if model else "the trained model"
    place += " in a custom loop (strategy.run)"
    layers = _layers(batchnorm)
    recorded = f"{len(counts)} recorded step(s)"
    found: list[Finding] = []
    totals = counts.sum(axis=1)
    widest = counts[int(np.argmax(totals))]
    per_replica = float(widest.sum()) / n
    if per_replica < th.min_replica_batch:
        full = int((totals == widest.sum()).sum())
        share = (
            f"each of the {n} replicas normalizes over {int(widest[0])} examples"
            if len(set(widest.tolist())) == 1
            else f"the {n} replicas normalize over {_counts(widest)} examples"
        )
        found.append(
            finding(
                "D03",
                f"{share}: BatchNormalization computes its statistics per replica",
                place=place,
                evidence=f"measured in the steps: the largest global batch, {int(widest.sum())} "
                f"examples, reached the {n} replicas as {_counts(widest)} examples "
                f"({per_replica:g} per replica, below {th.min_replica_batch}) in {full} of "
                f"{recorded}; BatchNormalization layers that train: {layers}",
                hint=_d03_hint(th, n),
            )
        )
    short = (counts == 0) | ((counts == 1) & (counts < counts.max(axis=1, keepdims=True)))
    bad = np.flatnonzero(short.any(axis=1))
    if len(bad):
        first = counts[bad[0]]
        empty = int((first == 0).sum())
        what = (
            f"a global batch of {int(first.sum())} example(s) reached the {n} replicas as "
            f"{_counts(first)}"
        )
        if empty:
            message = _d04_message(what, empty)
        else:
            message = (
                f"{what}: BatchNormalization normalizes a replica's single example to its "
                "offset (the variance of one example is 0) and pulls its moving variance "
                "toward 0"
            )
        shown = [int(numbers[i]) for i in bad]
        found.append(
            finding(
                "D04",
                message,
                place=place,
                evidence=f"measured in the steps: a replica got fewer than 2 examples, and fewer "
                f"than another replica, at step {_steps(shown)} ({len(bad)} of {recorded}); "
                f"examples per replica there: {_counts(first)}; "
                f"BatchNormalization layers that train: {layers}",
                hint="drop the short batch: `.batch(n, drop_remainder=True)` on the dataset "
                "before `experimental_distribute_dataset` (in `distribute_datasets_from_function`"
                ", on each replica's dataset), or a dataset whose length is a multiple of the "
                "global batch",
            )
        )
    return found
