"""The plain facts the ``%tfpipeline`` rules read, and the thresholds they apply.

:class:`PipelineFacts` (with one :class:`StageFacts` per stage of the main
chain and, when a model was given, its :class:`ModelFacts`) is built by
:mod:`tfnb_debug.features.pipeline_run` from what ``collect/pipeline*.py`` read; the
rules in :mod:`tfnb_debug.diagnostics.pipeline` and
:mod:`tfnb_debug.diagnostics.pipeline_values` take it with a
:class:`PipelineThresholds`.  Plain values only: no TensorFlow.  The thresholds
are documented in ``docs/diagnostics.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfnb_debug.ground.reports import Target

if TYPE_CHECKING:
    from tfnb_debug.collect.pipeline_data import Component, Sample

__all__ = ["ModelFacts", "PipelineFacts", "PipelineThresholds", "StageFacts"]


@dataclass(frozen=True)
class PipelineThresholds:
    """Every threshold a pipeline rule uses; pass your own to ``inspect_pipeline(thresholds=...)``.

    * ``min_shuffle_buffer`` (P03): a shuffle buffer below this many elements
      and smaller than the dataset is reported.
    * ``input_bound_ratio`` (P11): reported when the pipeline's batches/s is
      below this fraction of the model's training steps/s.
    * ``range_tolerance`` (P07): slack around the usual ranges [0,1], [-1,1], [0,255].
    * ``mixed_range_high`` (P07): a batch whose maximum is above this while
      another batch stays within [0,1] counts as a mix of scales.
    * ``unnormalized_max`` (N04): image inputs whose maximum exceeds this reach a
      model without a Rescaling/Normalization layer in front.
    * ``input_share`` (P02, P04): with a model's train step measured, reported only
      when the pipeline's time per batch is at least this fraction of the step (below
      it, prefetching or parallel maps can save at most that share).
    """

    min_shuffle_buffer: int = 1000
    input_bound_ratio: float = 0.8
    range_tolerance: float = 0.01
    mixed_range_high: float = 2.0
    unnormalized_max: float = 10.0
    input_share: float = 0.1


@dataclass(frozen=True)
class StageFacts:
    """What the rules need of one stage of the main chain."""

    index: int
    kind: str
    label: str
    params: tuple[tuple[str, object], ...]
    random_ops: bool | None
    input_cardinality: int | None  # of the stage's input; -1 infinite, -2 unknown
    utility: str = ""  # the Keras utility that built this stage, e.g. keras.utils.image_dataset_...
    leaves: int | None = None  # components of the stage's output element (None: unknown)

    def param(self, name: str) -> object:
        return dict(self.params).get(name)

    @property
    def place(self) -> str:
        return f"stage {self.index} {self.label}"

    @property
    def where(self) -> str:
        """``stage 3`` or ``stage 3, inside keras.utils.image_dataset_from_directory``."""
        inside = f", inside {self.utility}" if self.utility else ""
        return f"stage {self.index}{inside}"

    @property
    def target(self) -> Target:
        return Target("stage", self.label, index=self.index)


@dataclass(frozen=True)
class ModelFacts:
    name: str
    normalization_in_front: bool
    first_layer: str
    batchnorm_layers: tuple[str, ...]
    output_units: int | None
    steps_per_s: float | None
    step_note: str = ""
    # N04: the range the first weighted layer receives on a sampled batch, when measured
    entry_layer: str = ""
    entry_range: tuple[float, float] | None = None
    entry_before: tuple[str, ...] = ()  # the weight-free operations the input passed through


@dataclass(frozen=True, eq=False)
class PipelineFacts:
    stages: tuple[StageFacts, ...]  # empty when the structure is unknown
    components: tuple[Component, ...]
    sample: Sample
    batches_per_s: float | None
    model: ModelFacts | None = None
    class_count: int | None = None
    batched: bool = False
    name: str = (
        ""  # what the user calls the dataset (P09: an evaluation set's order does not matter)
    )
