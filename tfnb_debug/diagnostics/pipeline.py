"""Rules P01-P12 and N04 for ``%tfpipeline``: each takes the collected facts, returns findings.

The facts are plain values (see :class:`PipelineFacts`); no rule touches
TensorFlow.  Thresholds live in :class:`PipelineThresholds` and are documented
in ``docs/diagnostics.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.ground.values import format_float

if TYPE_CHECKING:
    from tfnb_debug.collect.pipeline_data import Component, ComponentSample, Sample

__all__ = ["ModelFacts", "PipelineFacts", "PipelineThresholds", "RULES", "run_rules"]


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


_USUAL_RANGES = ((0.0, 1.0), (-1.0, 1.0), (0.0, 255.0))


def cache_after_random_map(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    for cache in (s for s in f.stages if s.kind == "cache"):
        random_maps = [
            s for s in f.stages if s.index < cache.index and s.kind == "map" and s.random_ops
        ]
        if random_maps:
            m = random_maps[-1]
            out.append(
                finding(
                    "P01",
                    f"cache() comes after {m.label} (stage {m.index}), whose function uses random "
                    "ops: every epoch replays the augmentation of the first one",
                    place=cache.place,
                    target=cache.target,
                    evidence=f"random ops in the map function at stage {m.index}",
                    hint="cache the decoded, deterministic data and apply random augmentation after "
                    "cache(): ds.map(decode).cache().map(augment, num_parallel_calls=tf.data.AUTOTUNE)",
                )
            )
    return out


def _input_share(f: PipelineFacts) -> float | None:
    """The pipeline's time per batch as a share of the model's train step, when both were timed."""
    if f.model is None or not f.model.steps_per_s or not f.batches_per_s:
        return None
    return f.model.steps_per_s / f.batches_per_s


def _share_evidence(f: PipelineFacts) -> str:
    """What the share of the step says (P02, P04); empty when nothing was timed."""
    share = _input_share(f)
    if share is not None and f.model is not None and f.model.steps_per_s and f.batches_per_s:
        return (
            f"; the pipeline takes {format_float(1000 / f.batches_per_s)} ms a batch, "
            f"{share:.0%} of {f.model.name}'s {format_float(1000 / f.model.steps_per_s)} ms "
            "train step"
        )
    if f.batches_per_s:
        why = (
            "no model given"
            if f.model is None
            else f"{f.model.name}'s train step was not timed"
            + (f": {f.model.step_note}" if f.model.step_note else "")
        )
        return (
            f"; the pipeline takes {format_float(1000 / f.batches_per_s)} ms a batch ({why}; "
            "its share of a train step was not measured)"
        )
    return ""


def _small_share(f: PipelineFacts, t: PipelineThresholds) -> bool:
    """Measured: the whole pipeline costs less than ``input_share`` of a train step, so
    neither a prefetch nor parallel maps can save more than that."""
    share = _input_share(f)
    return share is not None and share < t.input_share


def missing_prefetch(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    main = [s for s in f.stages if s.kind != "options"]
    if not main or _small_share(f, t):
        return []
    prefetches = [s for s in main if s.kind == "prefetch"]
    last = main[-1]
    if not prefetches:
        return [
            finding(
                "P02",
                "the pipeline has no prefetch(): the model waits while each batch is prepared",
                place=last.place,
                target=last.target,
                evidence="no prefetch stage in the chain" + _share_evidence(f),
                hint="end the pipeline with .prefetch(tf.data.AUTOTUNE)",
            )
        ]
    if last.kind != "prefetch":
        inner = prefetches[-1]
        if inner.utility:
            # the user cannot move a prefetch the utility made: they can add one
            what = f"the last prefetch() runs inside {inner.utility} (stage {inner.index})"
            hint = "add .prefetch(tf.data.AUTOTUNE) at the end of the pipeline"
        else:
            what = "prefetch() is not the last transformation"
            hint = "move .prefetch(tf.data.AUTOTUNE) to the very end"
        return [
            finding(
                "P02",
                f"{what}: {last.label} runs after it, outside the overlap with training",
                place=inner.place,
                target=inner.target,
                evidence=f"last stage is stage {last.index} {last.label}" + _share_evidence(f),
                hint=hint,
            )
        ]
    return []


def small_shuffle_buffer(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    for s in f.stages:
        if s.kind not in {"shuffle", "shuffle_and_repeat"}:
            continue
        buffer = s.param("buffer_size")
        size = s.input_cardinality
        if not isinstance(buffer, int) or buffer >= t.min_shuffle_buffer or size is None:
            continue
        if s.param("input_order") == "permuted":
            # it shuffles a file list (or window starts) already permuted as a whole, as
            # Keras' dataset utilities do: the stored order is random, not sorted by class
            continue
        if size == -1:
            ratio = "an infinite (repeated) input"
        elif size >= 0 and buffer < size:
            ratio = f"{buffer}/{size} = {buffer / size:.1%} of the dataset"
        else:
            continue
        out.append(
            finding(
                "P03",
                f"the shuffle buffer holds {buffer} elements, far fewer than the data: "
                "examples stay close to their stored order",
                place=s.place,
                target=s.target,
                evidence=f"buffer {buffer} vs {ratio}; threshold {t.min_shuffle_buffer}",
                hint="use a buffer as large as the dataset when it fits in memory "
                "(ds.shuffle(ds.cardinality())), else shuffle the file list too",
            )
        )
    return out


def sequential_map(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    if _small_share(f, t):
        return []
    return [
        finding(
            "P04",
            f"{s.label} runs one element at a time (no num_parallel_calls)",
            place=s.place,
            target=s.target,
            evidence="MapDataset, not ParallelMapDataset" + _share_evidence(f),
            hint="pass num_parallel_calls=tf.data.AUTOTUNE to map()",
        )
        for s in f.stages
        if s.kind == "map" and s.param("num_parallel_calls") is None
    ]


def float64_element(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    return [
        finding(
            "P05",
            f"component {c.path} is float64: twice the memory and a silent cast in the model",
            place=c.path,
            evidence=f"element_spec dtype float64, shape {c.shape}",
            hint="cast in the pipeline (ds.map(lambda x, y: (tf.cast(x, tf.float32), y))) or "
            "convert NumPy arrays with .astype('float32') before from_tensor_slices",
        )
        for c in f.components
        if c.dtype == "float64"
    ]


def float_labels(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    for comp, sampled in _pairs(f):
        if comp.role != "label" or not comp.dtype.startswith(("float", "bfloat", "half")):
            continue
        if not _class_ids(comp, f):
            continue  # one-hot rows are rightly float
        if sampled.minimum is not None and sampled.minimum >= 0 and (sampled.maximum or 0) <= 1:
            continue  # 0/1 labels: floats are what a binary cross-entropy takes
        if f.model is not None and f.model.output_units == 1:
            continue  # one output unit: a binary or regression target, not class ids
        if sampled.whole_numbers:
            out.append(
                finding(
                    "P06",
                    f"label {comp.path} is {comp.dtype} but every sampled value is a whole number: "
                    "class ids stored as floats",
                    place=comp.path,
                    evidence=f"{sampled.count} values in [{sampled.minimum:g}, {sampled.maximum:g}], all whole",
                    hint="if these are class ids for a sparse loss, cast them: ds.map(lambda x, y: "
                    "(x, tf.cast(y, tf.int32))); if they are regression targets that happen to be "
                    "whole numbers, nothing is wrong",
                )
            )
    return out


def value_range(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    tol = t.range_tolerance
    for comp, s in _pairs(f):
        if comp.role != "image" or s.minimum is None or s.maximum is None:
            continue
        inside = [r for r in _USUAL_RANGES if s.minimum >= r[0] - tol and s.maximum <= r[1] + tol]
        if not inside:
            out.append(
                finding(
                    "P07",
                    f"image component {comp.path} ranges over [{s.minimum:.4g}, {s.maximum:.4g}], "
                    "outside the usual [0,1], [-1,1] and [0,255]",
                    place=comp.path,
                    evidence=f"min {s.minimum:.4g}, max {s.maximum:.4g} over {len(s.batch_ranges)} sampled batch(es)",
                    hint="check the scaling in your map functions (divide by 255 once, not twice; "
                    "clip after adding noise)",
                )
            )
            continue
        low = [i for i, (_, hi) in enumerate(s.batch_ranges) if hi <= 1 + tol]
        high = [i for i, (_, hi) in enumerate(s.batch_ranges) if hi > t.mixed_range_high]
        if low and high:
            out.append(
                finding(
                    "P07",
                    f"image component {comp.path} mixes scales across batches: some stay within "
                    f"[0,1], others reach {max(s.batch_ranges[i][1] for i in high):.4g}",
                    place=comp.path,
                    evidence=f"batches {low[:5]} max <= 1; batches {high[:5]} max > {t.mixed_range_high:g}",
                    hint="scale every source the same way (e.g. one Rescaling(1/255) for all)",
                )
            )
    return out


def shuffle_after_batch(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    out = []
    for s in f.stages:
        if s.kind != "shuffle":
            continue
        before = _batches_in_force(f.stages, s.index)
        if not before:
            continue
        last = before[-1]
        # examples shuffled before that batch (anew each epoch) do not always share a batch
        mixed = any(
            e.kind in {"shuffle", "shuffle_and_repeat"}
            and e.index < last.index
            and e.param("reshuffle_each_iteration") is not False
            for e in f.stages
        )
        if mixed or _builds_examples(f.stages, last, s):
            continue
        out.append(
            finding(
                "P08",
                f"shuffle() comes after {last.label} (stage {last.index}): it shuffles "
                "whole batches, so the same examples always share a batch",
                place=s.place,
                target=s.target,
                evidence=f"batch at stage {last.index}, shuffle at stage {s.index}",
                hint="shuffle examples before batching: ds.shuffle(n).batch(b)",
            )
        )
    return out


_BATCHES = {"batch", "padded_batch"}


def _batches_in_force(stages: Sequence[StageFacts], index: int) -> list[StageFacts]:
    """The batch stages before ``index`` that no ``unbatch()`` undid since."""
    found: list[StageFacts] = []
    for s in stages:
        if s.index >= index:
            break
        if s.kind in _BATCHES:
            found.append(s)
        elif s.kind == "unbatch":
            found = []
    return found


def _builds_examples(stages: Sequence[StageFacts], batch: StageFacts, shuffle: StageFacts) -> bool:
    """Whether ``batch`` builds the examples of a later batch rather than training batches.

    The evidence: another ``batch()`` after the shuffle groups the shuffled elements
    (no ``unbatch()`` between), and a ``map`` after ``batch`` splits each of its elements
    into more components than it received (a sequence of ids into ``(input, target)``,
    a window into features and labels): the elements ``batch`` makes are cut into
    examples, so the shuffle between them reorders examples, as it should.
    """
    regroups = False
    for s in stages:
        if s.index <= shuffle.index:
            continue
        if s.kind == "unbatch":
            break
        if s.kind in _BATCHES:
            regroups = True
            break
    if not regroups:
        return False
    previous = batch
    for s in stages:
        if s.index <= batch.index:
            continue
        if s.kind == "unbatch":
            return False
        if (
            s.kind == "map"
            and s.leaves is not None
            and previous.leaves is not None
            and s.leaves > previous.leaves
        ):
            return True
        previous = s
    return False


def cached_shuffle_order(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    if _evaluation_name(f.name):
        return []  # an evaluation set: its order does not matter
    out = []
    for cache in (s for s in f.stages if s.kind == "cache"):
        shuffles = [
            s
            for s in f.stages
            if s.index < cache.index and s.kind in {"shuffle", "shuffle_and_repeat"}
        ]
        later = [
            s
            for s in f.stages
            if s.index > cache.index
            and s.kind in {"shuffle", "shuffle_and_repeat"}
            and s.param("reshuffle_each_iteration") is not False
        ]
        if not shuffles or later:
            continue  # a shuffle after the cache changes the order every epoch
        sh = shuffles[-1]
        batched = [
            b for b in f.stages if b.kind in {"batch", "padded_batch"} and b.index < cache.index
        ]
        replay = (
            "the same batches in the same order"
            if batched
            else "the same examples in the same order"
        )
        if batched and sh.utility:
            hint = (
                "for training, shuffle after the cache: ds.cache().shuffle(n) reorders the cached "
                "batches every epoch (each keeps its examples); for new batches too, create the "
                "dataset with batch_size=None and use ds.cache().shuffle(n).batch(b)"
            )
        elif batched:
            hint = "cache first, then shuffle and batch: ds.cache().shuffle(n).batch(b)"
        else:
            hint = "cache first, then shuffle: ds.cache().shuffle(n)"
        out.append(
            finding(
                "P09",
                f"shuffle() ({sh.where}) comes before cache() and nothing shuffles after it: the "
                f"cache stores the first epoch's order and every later epoch replays it ({replay})",
                place=cache.place,
                target=cache.target,
                evidence=f"shuffle at stage {sh.index}, cache at stage {cache.index}, "
                "no shuffle after the cache",
                hint=hint,
            )
        )
    return out


_EVALUATION_WORDS = {"val", "valid", "validation", "test", "eval", "evaluation", "dev", "holdout"}


def _evaluation_name(name: str) -> bool:
    """``val_ds``, ``test_dataset``, ``ds_valid``: a name that says the dataset is for evaluation."""
    words = re.split(r"[^a-z]+", name.lower())
    return any(w in _EVALUATION_WORDS for w in words)


def partial_final_batch(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    if f.model is None or not f.model.batchnorm_layers:
        return []
    if not any(s.kind in {"shuffle", "shuffle_and_repeat"} for s in f.stages):
        return []  # not a training pipeline
    out = []
    for s in f.stages:
        if s.kind not in {"batch", "padded_batch"} or s.param("drop_remainder") is not False:
            continue
        size = s.param("batch_size")
        n = s.input_cardinality
        if not isinstance(size, int) or size <= 0 or n == -1:
            continue
        if n is not None and n >= 0:
            rest = n % size
            if rest == 0:
                continue
            what = f"the last batch of each epoch holds {rest} of {size} examples"
            evidence = f"{n} examples % batch {size} = {rest}"
        else:
            what = "the last batch of each epoch may be partial (the dataset size is unknown)"
            evidence = f"batch {size}, drop_remainder=False, cardinality unknown"
        out.append(
            finding(
                "P10",
                f"{what}; BatchNormalization ({', '.join(f.model.batchnorm_layers[:3])}) then "
                "updates its statistics from a small batch",
                place=s.place,
                target=s.target,
                evidence=evidence,
                hint="use batch(size, drop_remainder=True) for training",
            )
        )
    return out


def input_bound(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    if f.model is None or f.model.steps_per_s is None or f.batches_per_s is None:
        return []
    pipe, model = f.batches_per_s, f.model.steps_per_s
    if pipe >= t.input_bound_ratio * model:
        return []
    return [
        finding(
            "P11",
            f"the pipeline delivers {pipe:.3g} batches/s but {f.model.name} trains at "
            f"{model:.3g} steps/s: training waits for input",
            place="pipeline end",
            evidence=f"pipeline {pipe:.3g} batches/s vs model {model:.3g} steps/s "
            f"(threshold ratio {t.input_bound_ratio:g})",
            hint="see the per-stage throughput table for the slow stage; parallelise it "
            "(num_parallel_calls=AUTOTUNE), cache() before it, or prefetch(AUTOTUNE)",
        )
    ]


def label_out_of_range(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    classes = None
    source = ""
    if f.model is not None and f.model.output_units:
        classes = max(2, f.model.output_units)
        source = f"{f.model.name} has {f.model.output_units} output unit(s)"
    elif f.class_count:
        classes = f.class_count
        source = f"{f.class_count} class names given"
    if classes is None:
        return []
    out = []
    for comp, s in _pairs(f):
        if comp.role != "label" or s.labels is None or s.labels.size == 0:
            continue
        if not _class_ids(comp, f):
            continue  # one-hot: the argmax is always in range
        if not (comp.dtype.startswith(("int", "uint")) or s.whole_numbers):
            continue
        values = np.asarray(s.labels, dtype=np.float64)
        bad = values[(values < 0) | (values >= classes)]
        if bad.size:
            out.append(
                finding(
                    "P12",
                    f"label {comp.path} holds values outside [0, {classes}): "
                    f"{sorted({int(v) for v in bad})[:5]}",
                    place=comp.path,
                    evidence=f"{bad.size} of {values.size} sampled labels out of range; {source}",
                    hint=_remap_hint(values, classes),
                )
            )
    return out


def _remap_hint(values: np.ndarray, classes: int) -> str:
    """The remap the sampled label values call for: 1-based ids shift by one, -1/+1 labels
    become 0/1, other ids are numbered in order; more distinct ids than classes also need
    more outputs (or the labels hold a category that is not a class)."""
    seen = np.unique(values)
    if len(seen) > classes:
        return (
            f"the labels hold {len(seen)} distinct ids for {classes} classes: give the model one "
            "output per class, or drop the ids that are not classes"
        )
    if np.array_equal(seen, np.arange(1, len(seen) + 1)):
        return "the ids are 1-based: pass y - 1"
    if np.array_equal(seen, [-1.0, 1.0]):
        return "the labels are -1/+1: pass (y + 1) // 2 (0/1)"
    shown = ", ".join(f"{v:g}->{i}" for i, v in enumerate(seen[:5]))
    return (
        f"number the ids 0..{len(seen) - 1} in order ({shown}"
        f"{', ...' if len(seen) > 5 else ''}): np.searchsorted(np.unique(y), y)"
    )


def unnormalized_input(f: PipelineFacts, t: PipelineThresholds) -> list[Finding]:
    model = f.model
    if model is None:
        return []
    entry = model.entry_range
    if entry is None and model.normalization_in_front:
        return []
    out = []
    for comp, s in _pairs(f):
        # centered data (negative values, e.g. caffe-style mean subtraction) is preprocessed
        centered = s.minimum is not None and s.minimum < 0
        big = s.maximum is not None and s.maximum > t.unnormalized_max
        if comp.role != "image" or not big or centered:
            continue
        if entry is not None:
            # measured: what the first weighted layer receives after the model's own operations
            low, high = entry
            if high <= t.unnormalized_max or low < 0:
                continue
            through = (
                f" after {', '.join(model.entry_before[:4])}"
                + (" ..." if len(model.entry_before) > 4 else "")
                if model.entry_before
                else " straight from the input"
            )
            what = (
                f"image input {comp.path} reaches {s.maximum:.4g} and the first layer with "
                f"weights of {model.name}, {model.entry_layer}, receives values up to "
                f"{high:.4g}: nothing in the model scales them"
            )
            evidence = (
                f"sampled range [{s.minimum:.4g}, {s.maximum:.4g}]; measured at "
                f"{model.entry_layer}{through}: [{low:.4g}, {high:.4g}]; threshold "
                f"{t.unnormalized_max:g}"
            )
        else:
            what = (
                f"image input {comp.path} reaches {s.maximum:.4g} and {model.name} has no "
                f"Rescaling/Normalization layer in front (first layer: {model.first_layer})"
            )
            evidence = (
                f"sampled range [{s.minimum:.4g}, {s.maximum:.4g}]; threshold "
                f"{t.unnormalized_max:g}; the model's layers were read, not run"
            )
        out.append(
            finding(
                "N04",
                what,
                place=comp.path,
                evidence=evidence,
                hint="add keras.layers.Rescaling(1/255) as the model's first layer, or scale "
                "in the pipeline",
            )
        )
    return out


RULES: tuple[Callable[[PipelineFacts, PipelineThresholds], list[Finding]], ...] = (
    cache_after_random_map,
    missing_prefetch,
    small_shuffle_buffer,
    sequential_map,
    float64_element,
    float_labels,
    value_range,
    shuffle_after_batch,
    cached_shuffle_order,
    partial_final_batch,
    input_bound,
    label_out_of_range,
    unnormalized_input,
)


def run_rules(facts: PipelineFacts, thresholds: PipelineThresholds) -> list[Finding]:
    out: list[Finding] = []
    for rule in RULES:
        out.extend(rule(facts, thresholds))
    return out


def _pairs(f: PipelineFacts) -> Sequence[tuple[Component, ComponentSample]]:
    by_path = {c.path: c for c in f.sample.components}
    return [(c, by_path[c.path]) for c in f.components if c.path in by_path]


def _class_ids(comp: Component, f: PipelineFacts) -> bool:
    """A label holding one class id per example (not a one-hot row)."""
    rank = _example_rank(comp, f)
    return rank == 0 or (rank == 1 and comp.shape is not None and comp.shape[-1] == 1)


def _example_rank(comp: Component, f: PipelineFacts) -> int | None:
    if comp.shape is None:
        return None
    return len(comp.shape) - (1 if f.batched else 0)
