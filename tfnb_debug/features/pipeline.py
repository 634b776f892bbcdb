"""``inspect_pipeline``: what a ``tf.data`` pipeline really feeds the model, how fast, and what is wrong.

Collect (``collect/pipeline*.py``, driven by ``_pipeline_run.py``) -> rules
(``diagnostics/pipeline*.py`` over plain ``PipelineFacts``) -> a plain
:class:`~tfnb_debug.records.pipeline.PipelineRun` -> layout (``render/pipeline.py``:
summary, tables, sections, picture data) -> :class:`PipelineReport`, whose
figures are drawn when it is first shown as HTML.  ``%tfpipeline`` is a thin
wrapper over :func:`inspect_pipeline`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from tfnb_debug.diagnostics.pipeline_facts import PipelineThresholds
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Report, Section, sort_findings
from tfnb_debug.records.pipeline import Picture, PipelineRun, Progress

__all__ = ["Picture", "PipelineReport", "PipelineThresholds", "inspect_pipeline"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class PipelineReport(Report):
    """What ``%tfpipeline`` shows; plain values and small NumPy arrays, no tensors.

    ``sections`` hold the chain and notes; the figures (``pictures``) are drawn
    on the first call of :meth:`to_html`, so inspecting costs no plotting time
    until the report is shown.
    """

    chain: str
    structure_source: str
    cardinality: str
    batched: bool
    examples_per_s: float | None = None
    batches_per_s: float | None = None
    first_batch_s: float | None = None
    model_steps_per_s: float | None = None
    stage_rates: tuple[tuple[str, float | None], ...] = ()
    notes: tuple[str, ...] = field(default=())
    pictures: tuple[Picture, ...] = field(default=(), repr=False)
    class_names: tuple[str, ...] | None = None

    def to_text(self, width: int = 100) -> str:
        from tfnb_debug.render.text import render_report_text

        texts = tuple(Section(p.title, "", p.text) for p in self.pictures)
        return render_report_text(
            replace(self, sections=(*self.sections[:1], *texts, *self.sections[1:])), width=width
        )

    def to_html(self) -> str:
        return self._html

    @cached_property
    def _html(self) -> str:
        from tfnb_debug.render.html import render_report_html
        from tfnb_debug.render.pipeline import picture_section

        drawn = tuple(picture_section(p, self.class_names) for p in self.pictures)
        return render_report_html(
            replace(self, sections=(*self.sections[:1], *drawn, *self.sections[1:]))
        )


def inspect_pipeline(
    ds: Any,
    *,
    model: Any = None,
    batches: int = 2,
    class_names: Sequence[str] | None = None,
    throughput: bool = True,
    per_stage: bool = True,
    augmentation: bool = True,
    max_batches: int = 50,
    max_seconds: float = 1.0,
    stage_seconds: float = 0.3,
    thresholds: PipelineThresholds | None = None,
    name: str = "dataset",
    progress: Progress | None = None,
    against: Mapping[str, Any] | None = None,
) -> PipelineReport:
    """Inspect a ``tf.data.Dataset`` without changing it.

    ``batches`` elements are sampled (``batches x 16`` examples for an unbatched
    dataset) through ``ds.take``; throughput is measured over at most
    ``max_batches`` batches or ``max_seconds`` after the first batch, and each
    prefix of the chain for ``stage_seconds``.  With a compiled ``model`` its
    train-step rate is measured on one sampled batch (its weights, optimizer
    and metric state are restored) for P11, and N04/P10/P12 use its layers.
    ``against`` (name -> dataset): the datasets that may be the other part of a
    ``take()``/``skip()`` split of ``ds`` (P17; ``%tfpipeline`` passes the notebook's).
    Raises :class:`TfnbDebugError` for anything that is not a non-empty dataset.
    """
    from tfnb_debug.features.pipeline_run import run_inspection

    ds, distributed = _undistributed(ds)
    _check_dataset(ds)
    if model is not None:
        from tfnb_debug.collect.keras_access import require_keras

        require_keras(model, what="model", built=False)
    if batches < 1:
        raise TfnbDebugError(f"batches must be at least 1, got {batches}")
    names = _class_names(class_names)
    run = run_inspection(
        ds,
        model=model,
        batches=batches,
        class_names=names,
        throughput=throughput,
        per_stage=per_stage,
        augmentation=augmentation,
        max_batches=max_batches,
        max_seconds=max_seconds,
        stage_seconds=stage_seconds,
        thresholds=thresholds or PipelineThresholds(),
        name=name,
        progress=progress,
    )
    from tfnb_debug.features.splits import split_findings

    splits = split_findings(ds, name, against)  # P17
    if splits:
        run = replace(run, findings=(*run.findings, *splits))
    if distributed:
        run = replace(run, notes=(distributed, *run.notes))
    return build_report(run)


def _undistributed(ds: Any) -> tuple[Any, str]:
    """A distributed dataset's ``tf.data.Dataset`` and a note saying so; anything else as it is.

    ``experimental_distribute_dataset(ds)`` keeps ``ds``: its chain, values and rates are
    inspected (global batches, split across the replicas as they are read).
    ``distribute_datasets_from_function`` keeps only a function: a one-line error says what
    to pass instead.
    """
    from tfnb_debug.collect.keras_access import distributed_dataset

    found = distributed_dataset(ds)
    if found is None:
        return ds, ""
    made_by, dataset, replicas = found
    on = f" on {replicas} replicas" if replicas else ""
    if dataset is None:
        raise TfnbDebugError(
            f"got a distributed dataset (strategy.{made_by}{on}), which holds a function, not "
            "a tf.data.Dataset: pass the dataset your function returns, e.g. "
            "dataset_fn(tf.distribute.InputContext())"
        )
    note = (
        f"a distributed dataset (strategy.{made_by}{on}): inspected the tf.data.Dataset it "
        "distributes; each of its batches is split across the replicas"
    )
    return dataset, note


def build_report(run: PipelineRun) -> PipelineReport:
    """Lay out what an inspection measured as a :class:`PipelineReport` (figures drawn later)."""
    from tfnb_debug.render.pipeline import (
        report_pictures,
        report_sections,
        report_summary,
        report_tables,
    )

    full, step = run.full, run.step
    return PipelineReport(
        title=f"tf.data pipeline {run.name}",
        summary=report_summary(run),
        findings=sort_findings(run.findings),
        tables=report_tables(run),
        sections=report_sections(run),
        pictures=report_pictures(run),
        class_names=run.class_names,
        chain=run.chain,
        structure_source=run.structure_source,
        cardinality=run.cardinality,
        batched=run.batched,
        examples_per_s=full.examples_per_s if full else None,
        batches_per_s=full.elements_per_s if (full and run.batched) else None,
        first_batch_s=full.first_s if full else None,
        model_steps_per_s=step.steps_per_s if step else None,
        stage_rates=tuple((t.name, t.examples_per_s) for _, t in run.stage_rates),
        notes=run.notes,
    )


def _class_names(value: Any) -> tuple[str, ...] | None:
    """``class_names`` as a tuple of strings: a list, tuple or 1-D array of names (or ids)."""
    if value is None:
        return None
    import numpy as np

    names = list(value) if isinstance(value, list | tuple) else None
    if names is None and isinstance(value, np.ndarray) and value.ndim == 1:
        names = value.tolist()
    if names is None or not all(isinstance(n, str | bytes | int | np.integer) for n in names):
        raise TfnbDebugError(
            "class_names must be a list of names, one per class id, e.g. ['cat', 'dog'], "
            f"got {type(value).__name__}"
        )
    return tuple(n.decode() if isinstance(n, bytes) else str(n) for n in names)


def _check_dataset(ds: Any) -> None:
    import tensorflow as tf

    if isinstance(ds, tf.data.Dataset):
        return
    kind = type(ds).__name__
    if isinstance(ds, tf.data.Iterator) or (hasattr(ds, "__next__") and hasattr(ds, "__iter__")):
        raise TfnbDebugError(
            f"got an iterator ({kind}), not a tf.data.Dataset: pass the dataset itself "
            "(tfnb_debug never advances your iterators)"
        )
    raise TfnbDebugError(
        f"expected a tf.data.Dataset, got {kind}: wrap arrays with "
        "tf.data.Dataset.from_tensor_slices((x, y)).batch(32)"
    )
