"""Rules over a run's workers (``%tfrun``, ``open_run``): D02 and the stragglers.

Both read plain values from the workers' records: the hashes of each
worker's first input batches, and each worker's step times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfnb_debug.ground.reports import Finding, finding
from tfnb_debug.ground.values import format_float

__all__ = ["RunThresholds", "WorkerInput", "WorkerTimes", "stragglers", "unsharded_input"]


@dataclass(frozen=True)
class RunThresholds:
    """``straggler_ratio``: a worker whose median time per step (or outside the step) is this
    many times the other workers' median is named a straggler, when it differs by at least
    ``straggler_min_ms`` and each worker timed ``min_steps`` steps.  ``min_batches``: D02
    compares workers that hashed at least this many input batches."""

    straggler_ratio: float = 1.3
    straggler_min_ms: float = 1.0
    min_steps: int = 3
    min_batches: int = 2


@dataclass(frozen=True)
class WorkerInput:
    """The hashes of one worker's first input batches and what they came from
    (``"distributed"``: a distributed dataset's iterator; ``"dataset"``: a plain tf.data one)."""

    name: str
    hashes: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class WorkerTimes:
    """One worker's median seconds per optimizer step, and outside the compiled step (the
    host's time between one step's end and the next one's start), over ``steps`` steps."""

    name: str
    step: float
    outside: float
    steps: int


def unsharded_input(
    workers: Sequence[WorkerInput], thresholds: RunThresholds | None = None
) -> list[Finding]:
    """D02: two or more workers read identical input batches.

    Compared: the first batches every comparable worker hashed.  A worker whose
    batches are all alike (constant data) is left out: identical hashes would
    then say nothing about sharding.
    """
    t = thresholds or RunThresholds()
    usable = [w for w in workers if len(w.hashes) >= t.min_batches and len(set(w.hashes)) > 1]
    if len(usable) < 2:
        return []
    k = min(len(w.hashes) for w in usable)
    groups: dict[tuple[str, ...], list[WorkerInput]] = {}
    for w in usable:
        groups.setdefault(w.hashes[:k], []).append(w)
    alike = [g for g in groups.values() if len(g) > 1]
    if not alike:
        return []
    same = [w for g in alike for w in g]
    names = ", ".join(w.name for w in same)
    count = f"{len(same)} of {len(workers)} workers"
    if len(alike) > 1:
        count += f" ({len(alike)} groups)"
    sources = {w.source for w in same}
    read = {
        "distributed": "through a distributed dataset (strategy.experimental_distribute_dataset "
        "or distribute_datasets_from_function)",
        "dataset": "from a plain tf.data iterator, not a distributed dataset",
    }
    how = "; ".join(read.get(s, f"from {s or 'an unknown iterator'}") for s in sorted(sources))
    fixes = []
    if "distributed" in sources:
        fixes.append(
            "auto-sharding did not split the data: set options.experimental_distribute."
            "auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA (or FILE, with at "
            "least as many files as workers) on the dataset before distributing it"
        )
    if sources - {"distributed"}:
        fixes.append(
            "the loop iterates a dataset that was not distributed: pass it through "
            "strategy.experimental_distribute_dataset(...)"
        )
    fixes.append(
        "or shard it yourself (dataset.shard(num_workers, worker_index) before batching), or "
        "build each worker's input with strategy.distribute_datasets_from_function and "
        "input_context.shard(...)"
    )
    return [
        finding(
            "D02",
            f"{count} read identical input batches: each step trains them on the same "
            f"examples, so the global batch repeats its examples {max(len(g) for g in alike)} "
            "times",
            place=f"workers {names}",
            evidence=f"the first {k} batches of each, hashed, are equal; read {how}",
            hint="; ".join(fixes),
            cause="identical input batches on several workers",
        )
    ]


def stragglers(
    workers: Sequence[WorkerTimes], thresholds: RunThresholds | None = None
) -> dict[str, str]:
    """The workers clearly slower than the others, each with the sentence that says how.

    A worker is named when its median time per step is ``straggler_ratio``
    times the others' (they run on their own), or when its time outside the
    compiled step is (in synchronous training every worker's step lasts as
    long as the slowest one's, and the others wait inside the all-reduce for
    the worker that is late to start it).
    """
    t = thresholds or RunThresholds()
    timed = [w for w in workers if w.steps >= t.min_steps]
    if len(timed) < 2:
        return {}
    out: dict[str, str] = {}
    for w in timed:
        others = [o for o in timed if o is not w]
        step = _median([o.step for o in others])
        outside = _median([o.outside for o in others])
        ms = 1000.0
        if w.step > t.straggler_ratio * step and (w.step - step) * ms >= t.straggler_min_ms:
            out[w.name] = (
                f"{w.name}: median {_ms(w.step)} a step vs {_ms(step)} on the other workers"
            )
        elif (
            w.outside > t.straggler_ratio * outside
            and (w.outside - outside) * ms >= t.straggler_min_ms
        ):
            out[w.name] = (
                f"{w.name}: median {_ms(w.outside)} a step outside the compiled step (input, "
                f"host code) vs {_ms(outside)} on the other workers; in synchronous training "
                "the others wait for it in the all-reduce"
            )
    return out


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _ms(seconds: float) -> str:
    return f"{format_float(seconds * 1000.0)} ms"
