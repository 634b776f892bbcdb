"""Rules P01-P12 and N04 for ``%tfpipeline``: each takes the collected facts, returns findings.

The facts are plain values (see :class:`PipelineFacts`); no rule touches
TensorFlow.  Thresholds live in :class:`PipelineThresholds` and are documented
in ``docs/diagnostics.md``.  This module holds the rules on the order and
settings of the stages (P01-P04, P08-P11) and :data:`RULES`/:func:`run_rules`,
which run all of them; the facts and thresholds are defined in
:mod:`tfnb_debug.diagnostics.pipeline_facts`, the rules on dtypes and sampled
values (P05-P07, P12, N04) in :mod:`tfnb_debug.diagnostics.pipeline_values`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tfnb_debug.diagnostics.pipeline_facts import (
    ModelFacts,
    PipelineFacts,
    PipelineThresholds,
    StageFacts,
)
from tfnb_debug.diagnostics.pipeline_values import (
    float64_element,
    float_labels,
    label_out_of_range,
    unnormalized_input,
    value_range,
)
from tfnb_debug.ground.reports import Finding, finding
from tfnb_debug.ground.values import format_float

__all__ = ["ModelFacts", "PipelineFacts", "PipelineThresholds", "RULES", "run_rules"]


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
