"""The steps of :func:`tfnb_debug.inspect_pipeline`: collect, run the rules, assemble the report.

Imported lazily (it imports TensorFlow).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tfnb_debug.collect.batchnorm_training import batchnorm_modes
from tfnb_debug.collect.model_entry import EntryRange, entry_range
from tfnb_debug.collect.pipeline import Stage, Structure, batched_before, read_structure
from tfnb_debug.collect.pipeline_data import (
    Augmentation,
    augmentation_pairs,
    describe_spec,
    flatten_paths,
    take_sample,
)
from tfnb_debug.collect.pipeline_speed import (
    ModelStep,
    Throughput,
    measure_throughput,
    train_step_rate,
)
from tfnb_debug.diagnostics.pipeline import run_rules
from tfnb_debug.diagnostics.pipeline_facts import (
    ModelFacts,
    PipelineFacts,
    PipelineThresholds,
    StageFacts,
)
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.records.pipeline import PipelineRun, Progress, StageRow

UNBATCHED_EXAMPLES = 16
AUGMENT_EXAMPLES = 6
_NORMALIZERS = {"Rescaling", "Normalization", "BatchNormalization", "LayerNormalization"}


def run_inspection(
    ds: tf.data.Dataset,
    *,
    model: Any,
    batches: int,
    class_names: tuple[str, ...] | None,
    throughput: bool,
    per_stage: bool,
    augmentation: bool,
    max_batches: int,
    max_seconds: float,
    stage_seconds: float,
    thresholds: PipelineThresholds,
    name: str,
    progress: Progress | None,
) -> PipelineRun:
    def tell(what: str, fraction: float) -> None:
        if progress is not None:
            progress(what, fraction)

    cardinality = int(ds.cardinality())
    if cardinality == 0:
        raise TfnbDebugError(
            f"{name} is empty (cardinality 0): check take/skip/shard/filter and the source data"
        )
    structure = read_structure(ds)
    stages = [s for s in structure.stages]
    batched = _is_batched(structure, ds)
    components = describe_spec(ds.element_spec, batched=batched)
    elements = batches if batched else batches * UNBATCHED_EXAMPLES
    full: Throughput | None = None
    kept: list[Any] = []
    if throughput:
        # time the whole pipeline first and keep its first elements as the sample:
        # one pass over the pipeline serves both
        limit = max_batches if batched else max_batches * _batch_size_guess(stages)
        full = measure_throughput(
            ds,
            name="whole pipeline",
            batched=batched,
            max_elements=max(limit, elements),
            max_seconds=max_seconds,
            progress=lambda i, n: tell(f"timing the pipeline {i}/{n}", 0.3 * i / n),
            keep=kept,
            keep_count=elements,
        )
    tell("sampling", 0.3)
    sample = take_sample(
        ds,
        components,
        elements=elements,
        batched=batched,
        progress=lambda i, n: tell(f"sampling {i}/{n}", 0.3 + 0.1 * i / n),
        first=kept if (full is None or not full.error) else (),
    )
    del kept
    notes: list[str] = []
    if structure.note:
        notes.append(structure.note)
    if cardinality == tf.data.INFINITE_CARDINALITY:
        notes.append(
            f"infinite dataset: sampled {sample.elements} element(s), timed a bounded number"
        )

    augments: list[Augmentation] = []
    if augmentation:
        augments = _augmentations(stages, notes)
        tell("augmentation", 0.2)

    stage_rates: list[tuple[int, Throughput]] = []
    if full is not None and per_stage:
        stage_rates = _stage_rates(stages, full, max_batches, stage_seconds, tell, notes)

    model_facts = None
    step: ModelStep | None = None
    if model is not None:
        tell("timing the model's train step", 0.9)
        step = (
            _model_step(ds, model, batched=batched, max_seconds=max_seconds) if throughput else None
        )
        entry = _entry_range(ds, model, sample, batched=batched, thresholds=thresholds)
        if entry is not None and entry.kind in _NORMALIZERS:
            entry = None  # a normalization first: it takes raw values by design
        model_facts = _model_facts(model, step, entry)

    cards = _cardinalities(stages)
    facts = PipelineFacts(
        stages=tuple(
            StageFacts(
                i,
                s.kind,
                s.label(),
                s.params,
                s.random_ops,
                cards[i - 1] if i > 0 else None,
                utility=s.utility,
                leaves=_leaf_count(s),
            )
            for i, s in enumerate(stages)
            if not s.internal
        ),
        components=components,
        sample=sample,
        batches_per_s=_batches_per_s(full, batched, stages),
        model=model_facts,
        class_count=len(class_names) if class_names else None,
        batched=batched,
        name=name,
    )
    findings = run_rules(facts, thresholds)
    tell("done", 1.0)
    return PipelineRun(
        name=name,
        chain=structure.text(),
        structure_source=structure.source,
        cardinality=_cardinality_text(cardinality),
        batched=batched,
        stages=tuple(
            StageRow(
                i,
                s.label() if not s.branches else f"{s.api}[{len(s.branches) + 1} inputs]",
                _cardinality_text(cards[i]) if cards[i] is not None else "-",
            )
            for i, s in enumerate(stages)
            if not s.internal
        ),
        components=components,
        sample=sample,
        augments=tuple(augments),
        full=full,
        stage_rates=tuple(stage_rates),
        step=step,
        class_names=class_names,
        findings=tuple(findings),
        notes=tuple(notes),
    )


# ---------------------------------------------------------------------------
# measuring


def _augmentations(stages: Sequence[Stage], notes: list[str]) -> list[Augmentation]:
    """Before/after pairs of every random ``map`` stage; one that cannot be shown gets a note."""
    augments: list[Augmentation] = []
    for i, stage in enumerate(stages):
        if stage.kind != "map" or not stage.random_ops or stage.dataset is None or stage.internal:
            continue
        try:
            augments.extend(
                augmentation_pairs(
                    stage.dataset,
                    i,
                    stage.label(),
                    examples=AUGMENT_EXAMPLES,
                    batched_input=batched_before(stages, i),
                )
            )
        except TfnbDebugError as err:
            notes.append(f"augmentation view of stage {i}: {err}")
        except Exception as err:  # an unusual map function: show the rest
            notes.append(f"augmentation view of stage {i} unavailable ({type(err).__name__})")
    return augments


def _stage_rates(
    stages: Sequence[Stage],
    full: Throughput,
    max_batches: int,
    stage_seconds: float,
    tell: Progress,
    notes: list[str],
) -> list[tuple[int, Throughput]]:
    """The throughput up to each of the user's stages; the last stage's is the whole pipeline's."""
    rates: list[tuple[int, Throughput]] = []
    prefixes = [
        (i, s) for i, s in enumerate(stages[:-1]) if s.dataset is not None and not s.internal
    ]
    # Reading one element at a time from Python costs more than producing it (tens of
    # microseconds a step): a prefix of single examples, timed so, would look slower than
    # the batch() after it.  In a batched pipeline such a prefix is timed through batch(B),
    # as the pipeline's own batch() reads it, so every rate counts examples the same way.
    size = _batch_size_guess(stages)
    batched_pipeline = batched_before(stages, len(stages))
    for k, (i, stage) in enumerate(prefixes):
        tell(f"timing stage {i} {stage.api}", 0.6 + 0.3 * k / max(1, len(prefixes)))
        b = batched_before(stages, i + 1)
        timed = stage.dataset
        if batched_pipeline and not b and _stackable(timed):
            timed, b = timed.batch(size), True
            if not any("timed through batch" in n for n in notes):
                notes.append(
                    "per-stage rates: the stages before the first batch() (elements of a "
                    f"fixed shape) are timed through batch({size}), as the pipeline's batch() "
                    "reads them (one element at a time from Python would measure the loop, "
                    "not the stage)"
                )
        n = max_batches if b else max_batches * size
        rates.append(
            (
                i,
                measure_throughput(
                    timed,
                    name=stage.label(),
                    batched=b,
                    max_elements=n,
                    max_seconds=stage_seconds,
                ),
            )
        )
    if stages and stages[-1].dataset is not None:
        rates.append((len(stages) - 1, full))
    return rates


def _stackable(ds: tf.data.Dataset) -> bool:
    """Whether ``ds.batch`` can stack its elements: dense tensors of fully known shape."""
    leaves = tf.nest.flatten(ds.element_spec)
    return bool(leaves) and all(
        isinstance(leaf, tf.TensorSpec) and leaf.shape.is_fully_defined() for leaf in leaves
    )


# ---------------------------------------------------------------------------
# facts


def _is_batched(structure: Structure, ds: tf.data.Dataset) -> bool:
    if structure.known:
        return batched_before(list(structure.stages), len(structure.stages))
    leaves = [leaf for _, leaf in flatten_paths(ds.element_spec)]
    try:
        return bool(leaves) and leaves[0].shape.rank and leaves[0].shape[0] is None
    except Exception:
        return False


def _batch_size_guess(stages: Sequence[Stage]) -> int:
    for stage in stages:
        size = stage.param("batch_size")
        if stage.kind in {"batch", "padded_batch"} and isinstance(size, int) and size > 0:
            return size
    return 32


def _leaf_count(stage: Stage) -> int | None:
    """How many components the stage's elements have (its live dataset's element spec)."""
    if stage.dataset is None:
        return None
    try:
        return len(tf.nest.flatten(stage.dataset.element_spec))
    except Exception:
        return None


def _cardinalities(stages: Sequence[Stage]) -> list[int | None]:
    out: list[int | None] = []
    for stage in stages:
        try:
            out.append(int(stage.dataset.cardinality()) if stage.dataset is not None else None)
        except Exception:
            out.append(None)
    return out


def _batches_per_s(full: Throughput | None, batched: bool, stages: Sequence[Stage]) -> float | None:
    if full is None or full.examples_per_s is None:
        return None
    if batched:
        return full.elements_per_s
    return full.examples_per_s / _batch_size_guess(stages)


def _entry_range(
    ds: tf.data.Dataset, model: Any, sample: Any, *, batched: bool, thresholds: PipelineThresholds
) -> EntryRange | None:
    """What the model's first weighted layer receives on a batch (N04), when the data looks raw.

    Measured only when a sampled image component exceeds ``unnormalized_max``
    (otherwise there is nothing for N04 to judge): one batch is read through ``ds.take``.
    """
    if not any(
        c.role == "image" and c.maximum is not None and c.maximum > thresholds.unnormalized_max
        for c in sample.components
    ):
        return None
    source = ds if batched else ds.batch(16)
    iterator = iter(source.take(1))
    try:
        element = next(iterator, None)
    except tf.errors.OpError:
        return None
    finally:
        del iterator
    if element is None:
        return None
    x = element[0] if isinstance(element, tuple) else element
    return entry_range(model, x)


def _model_facts(model: Any, step: ModelStep | None, entry: EntryRange | None) -> ModelFacts:
    from tfnb_debug.collect.keras_access import model_leaves

    layers = model_leaves(model)
    in_front = False
    first = "none"
    for layer in layers:
        kind = type(layer).__name__
        if kind in _NORMALIZERS:
            in_front = True
            first = f"{layer.name} ({kind})"
            break
        if layer.weights:
            first = f"{layer.name} ({kind})"
            break
    # only the BatchNormalization layers that learn statistics in training: not frozen
    # ones, nor those called with training=False (a base model in transfer learning)
    bns = batchnorm_modes(model).training
    units = None
    try:
        units = int(model.outputs[0].shape[-1])
    except Exception:
        try:
            units = int(layers[-1].units)
        except Exception:
            units = None
    return ModelFacts(
        name=f"model {getattr(model, 'name', '?')!r}",
        normalization_in_front=in_front,
        first_layer=first,
        batchnorm_layers=bns,
        output_units=units,
        steps_per_s=step.steps_per_s if step is not None else None,
        step_note=step.error if step is not None else "",
        entry_layer=f"{entry.layer} ({entry.kind})" if entry is not None else "",
        entry_range=(entry.minimum, entry.maximum) if entry is not None else None,
        entry_before=entry.before if entry is not None else (),
    )


def _model_step(ds: tf.data.Dataset, model: Any, *, batched: bool, max_seconds: float) -> ModelStep:
    source = ds if batched else ds.batch(32)
    element = None
    iterator = iter(source.take(1))
    try:
        element = next(iterator, None)
    except tf.errors.OpError as err:
        return ModelStep(0, 0.0, 0, f"could not read a batch: {type(err).__name__}")
    finally:
        del iterator
    if not isinstance(element, tuple) or len(element) < 2:
        return ModelStep(
            0, 0.0, 0, "elements are not (inputs, labels) pairs, so no train step was timed"
        )
    return train_step_rate(model, element[0], element[1], steps=10, max_seconds=max_seconds)


def _cardinality_text(value: int | None) -> str:
    if value is None:
        return "unknown"
    if value == tf.data.INFINITE_CARDINALITY:
        return "infinite"
    if value == tf.data.UNKNOWN_CARDINALITY:
        return "unknown"
    return f"{value:,}"
