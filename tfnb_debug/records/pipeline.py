"""The plain records of a pipeline inspection: what the run measured, and the data of its figures.

No TensorFlow here: ``_pipeline_run.py`` fills a :class:`PipelineRun`,
``render/pipeline.py`` lays it out as summary, tables and :class:`Picture`
records, and :func:`tfnb_debug.features.pipeline.inspect_pipeline` wraps that in a
:class:`~tfnb_debug.features.pipeline.PipelineReport`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from tfnb_debug.collect.pipeline_data import Augmentation, Component, Sample
    from tfnb_debug.collect.pipeline_speed import ModelStep, Throughput
    from tfnb_debug.ground.reports import Finding

__all__ = ["Picture", "PipelineRun", "Progress", "StageRow"]

Progress = Callable[[str, float], None]


@dataclass(frozen=True, eq=False)
class Picture:
    """The data of one figure of the report; drawn only when the HTML form is asked for.

    ``kind`` is ``grid`` (``images`` with ``labels``), ``labels`` (a bar chart
    of ``labels``) or ``augment`` (``images`` before, ``after`` after a stage).
    """

    title: str
    kind: str
    text: str
    images: np.ndarray | None = None
    labels: np.ndarray | None = None
    after: np.ndarray | None = None


@dataclass(frozen=True)
class StageRow:
    """One stage of the chain as the transformations table lists it."""

    index: int
    label: str  # ``map(parse)``, or ``zip[2 inputs]`` for a stage with branches
    cardinality: str  # ``1,000``, ``infinite``, ``unknown`` or ``-``


@dataclass(frozen=True, eq=False)
class PipelineRun:
    """Everything one inspection measured, before it is laid out as a report."""

    name: str
    chain: str
    structure_source: str
    cardinality: str
    batched: bool
    stages: tuple[StageRow, ...]  # the user's stages (tf.data's internal ones left out)
    components: tuple[Component, ...]
    sample: Sample
    augments: tuple[Augmentation, ...]
    full: Throughput | None  # the whole pipeline, when throughput was measured
    stage_rates: tuple[tuple[int, Throughput], ...]  # (stage index, rate up to that stage)
    step: ModelStep | None  # the model's train step, when a model was given
    class_names: tuple[str, ...] | None
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
