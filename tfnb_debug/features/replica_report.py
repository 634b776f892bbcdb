"""The per-replica part of a ``%%tfgrad`` / ``record_gradients`` report under a strategy.

When the recorded steps ran on more than one replica, :func:`with_replicas`
adds to the gradient report:

* the "replicas" table: per replica, the examples of its share of the batch,
  its loss as differentiated, the total weight that loss gives its examples and
  each layer's gradient norm before the all-reduce, at the last recorded step,
  with the spread across replicas;
* D01 replica-loss-scaling from the example weights, per optimizer;
* D03 tiny-replica-batch and D04 empty-replica-batch from the examples each
  replica received, for a group trained outside ``fit`` (whose D03 and D04 are
  read from its arguments) with BatchNormalization layers that are not
  synchronized;
* D06 replica-divergence from the mirrored variables of the trained models
  (and of the models and optimizers watched), compared once at the end.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from tfnb_debug.ground.reports import Finding, Report, Table, sort_findings
from tfnb_debug.records.replicas import ReplicaHistory

__all__ = ["replica_table", "replicas_summary", "with_replicas"]

R = TypeVar("R", bound=Report)


def replica_table(
    history: ReplicaHistory,
    layers: dict[str, list[int]],
    *,
    label: Callable[[str], str] = str,
    title: str = "replicas",
) -> Table:
    """One row per quantity, one column per replica (the last recorded step), and the spread
    across replicas: (largest - smallest) / mean.  The examples' total weight is the sum of
    d loss / d per-example loss (1: a mean over the replica's own examples; D01).

    ``layers``: layer path -> indices of its variables in ``history.paths``.
    """
    last = history.n_records - 1
    replicas = history.replicas
    rows: list[tuple[Any, ...]] = []

    def row(name: str, values: np.ndarray, *, spread: bool = True, whole: bool = False) -> None:
        shown = [(int(v) if whole else float(v)) if np.isfinite(v) else None for v in values]
        across = _spread(values) if spread else float("nan")
        rows.append((name, *shown, f"{across:.0%}" if np.isfinite(across) else None))

    row("examples in the step", history.column("examples")[last], spread=False, whole=True)
    row("loss (as differentiated)", history.column("loss")[last])
    row("examples' total weight", history.column("weight")[last], spread=False)
    norms = history.layer_norms(layers)
    for j, layer in enumerate(layers):
        row(f"grad norm {label(layer)}", norms[last, :, j])
    columns = ("per replica", *(f"replica {r}" for r in range(replicas)), "spread")
    return Table(title, columns, tuple(rows))


def replicas_summary(
    history: ReplicaHistory, layers: dict[str, list[int]], label: Callable[[str], str] = str
) -> str:
    """One line: the replicas, the examples each saw, and the layer whose per-replica gradient
    norms disagree most (median over the records)."""
    n = history.replicas
    examples = history.column("examples")
    seen = examples[np.isfinite(examples).all(axis=1)]
    share = (
        f"{'/'.join(str(int(e)) for e in seen[-1])} examples each in the last step"
        if len(seen)
        else "examples per replica not found in the loss"
    )
    norms = history.layer_norms(layers)
    spreads = np.array(
        [[_spread(norms[i, :, j]) for j in range(norms.shape[2])] for i in range(len(norms))]
    )
    text = f"{n} replicas: {share}"
    if spreads.size and np.isfinite(spreads).any():
        with warnings.catch_warnings():  # a layer without any finite spread: NaN, no warning
            warnings.simplefilter("ignore", RuntimeWarning)
            median = np.nanmedian(spreads, axis=0)
        j = int(np.nanargmax(median))
        text += (
            f"; per-replica gradient norms differ most on {label(list(layers)[j])}: "
            f"{median[j]:.0%} of their mean (median over {len(spreads)} record(s))"
        )
    return text


def _spread(values: np.ndarray) -> float:
    values = np.asarray(values, float)
    if not np.isfinite(values).all() or values.size < 2:
        return float("nan")
    mean = float(np.mean(values))
    return float((values.max() - values.min()) / mean) if mean else float("nan")


def with_replicas(
    report: R,
    data: Sequence[Any],
    objects: Iterable[Any],
    *,
    label: Callable[[str], str] = str,
    fit_models: Iterable[str] = (),
) -> R:
    """A copy of ``report`` with the replicas table(s), their summary line, D01 per group that
    ran on several replicas, D03 and D04 per such group that no ``fit`` trained, and D06 for
    the mirrored variables of ``objects``.

    ``data``: the capture's groups (:class:`~tfnb_debug.collect.gradient_recorder.CaptureData`);
    ``fit_models``: the names of the models ``fit`` trained (D03 and D04 come from its
    arguments there).
    """
    from tfnb_debug.collect.replicas import mirrored_divergence
    from tfnb_debug.diagnostics.distribute import replica_divergence, replica_loss_scaling
    from tfnb_debug.diagnostics.fit_data import measured_replica_batch

    fitted = set(fit_models)

    found: list[Finding] = []
    tables: list[Table] = []
    summary: list[str] = []
    distributed = [d for d in data if getattr(d, "per_replica", None) is not None]
    for d in distributed:
        history: ReplicaHistory = d.per_replica
        if history.n_records == 0:
            continue
        optimizer = d.variables[0].optimizer if d.variables else "optimizer"
        names = tuple(getattr(d, "loss_names", ()) or ())
        found += replica_loss_scaling(history, optimizer=optimizer, loss_names=names)
        models = tuple(getattr(d, "models", ()) or ())
        if not fitted.intersection(models):
            found += measured_replica_batch(
                history,
                batchnorm=tuple(getattr(d, "batchnorm", ()) or ()),
                model=models[0] if models else None,
                steps=[int(s) for s in d.steps],
            )
        layers = d.layer_index()
        title = "replicas" if len(distributed) == 1 else f"replicas ({optimizer})"
        tables.append(replica_table(history, layers, label=label, title=title))
        summary.append(replicas_summary(history, layers, label))
    if distributed or any(getattr(d, "replicas", 1) > 1 for d in data):
        found += replica_divergence(mirrored_divergence(objects))
    if not (found or tables):
        return report
    merged = dict.fromkeys((*report.findings, *found))
    return dataclasses.replace(
        report,
        findings=sort_findings(merged),
        tables=(*report.tables, *tables),
        summary=(*report.summary, *summary),
    )
