"""Splits taken by position from a dataset that reshuffles on every pass (P17).

:func:`split_of` reads, from the live dataset objects (``_inputs()``, no
iteration), whether a dataset picks elements by their position in a stream
whose chain has a ``shuffle`` with ``reshuffle_each_iteration=True`` (also the
one inside ``keras.utils.image_dataset_from_directory(shuffle=True)`` or
``tf.data.Dataset.list_files``), with no ``cache()`` between them: the picks
are ``take``/``skip`` (also chained, ``skip(a).take(b)``), ``shard`` and a
``filter`` whose predicate reads the index of ``enumerate()``; maps, batches
and prefetches around them change no position.  The reshuffling dataset
object is kept, so two parts of one stream are recognized by identity.
:func:`count_overlap` iterates datasets once each (at most ``max_examples``
examples) and compares the examples by a hash of their bytes; iterating a
reshuffling dataset moves its shuffle on, as any pass does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SplitFacts", "SplitPart", "count_overlap", "example_hashes", "split_of"]

#: examples read per dataset at most when counting
MAX_EXAMPLES = 4096
#: seconds one counting pass may take before it stops
MAX_SECONDS = 5.0
_SPLIT_CLASSES = {"_TakeDataset": "take", "TakeDataset": "take", "_SkipDataset": "skip"}
#: picks that keep a subset of the positions (a lone one may be a random subset meant to change)
SUBSET_PICKS = frozenset({"take", "shard", "filter"})


@dataclass(frozen=True)
class SplitPart:
    """The dataset is ``source`` followed by the positional ``picks`` (``take(2)``,
    ``skip(6)``, ``shard(5, 0)``, ``enumerate().filter(every_fifth)``, source first), and
    the chain of ``source`` reshuffles on every pass at ``shuffle`` (a stage label).
    ``op`` is the last pick's kind; ``batched``: the dataset's elements are batches;
    ``stream``: the reshuffling dataset object (``source`` when it could not be told), the
    identity two parts of one split share."""

    picks: tuple[str, ...]
    op: str
    shuffle: str
    batched: bool
    source: Any = field(compare=False, repr=False)
    stream: Any = field(compare=False, repr=False)

    @property
    def path(self) -> str:
        return "source." + ".".join(self.picks)

    @property
    def rest(self) -> str | None:
        """The other part of a one-pick take/skip split (``source.skip(2)`` for ``take(2)``)."""
        if len(self.picks) != 1 or self.op not in {"take", "skip"}:
            return None
        other = "skip" if self.op == "take" else "take"
        return f"source.{other}{self.picks[0][len(self.op) :]}"


@dataclass(frozen=True)
class SplitFacts:
    """``name`` is ``path`` (``source.take(2)``) of a source that reshuffles at ``shuffle``;
    ``op`` is its last pick's kind and ``rest`` the other part of a one-pick split.

    ``partner``: another dataset picked from the same reshuffling stream
    (``partner_path``); ``examples``/``partner_examples``/``shared``: examples in one
    pass of each and how many of ``name``'s are also in the partner's pass.
    Without a partner, ``changed`` counts the examples of a second pass of ``name``
    that were not in its first.  ``whole``: both passes were read to their end (else
    ``examples`` are the first ones and ``shared`` a lower bound).  ``role``/``partner_role`` say how the datasets are
    used (``"training data"``, ``"validation_data"``), when known.
    """

    name: str
    path: str
    op: str
    shuffle: str
    rest: str | None = None
    partner: str | None = None
    partner_path: str | None = None
    examples: int | None = None
    partner_examples: int | None = None
    shared: int | None = None
    changed: int | None = None
    whole: bool = True
    role: str = ""
    partner_role: str = ""
    place: str = ""


def split_of(ds: Any) -> SplitPart | None:
    """The split ``ds`` is part of, when it picks by position from a stream that reshuffles
    each pass; else None."""
    try:
        return _split_of(ds)
    except Exception:  # a private attribute moved: say nothing rather than guess
        return None


def _split_of(ds: Any) -> SplitPart | None:
    from tfnb_debug.collect.pipeline import batched_before, read_structure

    picks = _picks(ds)  # (label, kind, the dataset picked from), the last pick first
    part = None
    for i, (_, _, source) in enumerate(picks):
        upstream = read_structure(source).stages
        at = _reshuffling(upstream)
        if at is None:
            break  # a cache (or no shuffle) below this pick: it and the picks under it hold still
        part = (i, source, upstream, at)
    if part is None:
        return None
    lowest, source, upstream, at = part
    stages = read_structure(ds).stages
    shuffle = upstream[at]
    return SplitPart(
        picks=tuple(label for label, _, _ in reversed(picks[: lowest + 1])),
        op=picks[0][1],
        shuffle=_shuffle_label(upstream, at),
        batched=batched_before(stages, len(stages)),
        source=source,
        stream=shuffle.dataset if shuffle.dataset is not None else source,
    )


def _picks(ds: Any) -> list[tuple[str, str, Any]]:
    """The positional picks on the way from ``ds`` to its sources, the last one first: each
    as ``(label, kind, the dataset it picks from)``.  The walk follows one input (and the
    enumerated input of an ``enumerate()``)."""
    out: list[tuple[str, str, Any]] = []
    current, depth = ds, 0
    while current is not None and depth < 1000:
        pick = _pick(current)
        if pick is not None:
            out.append(pick)
        current = _upstream(current)
        depth += 1
    return out


def _pick(ds: Any) -> tuple[str, str, Any] | None:
    name = type(ds).__name__
    op = _SPLIT_CLASSES.get(name)
    if op is not None:
        count = getattr(ds, "_count", None)
        shown = int(np.asarray(count)) if count is not None else "..."
        return f"{op}({shown})", op, ds._input_dataset
    if name == "_ShardDataset":
        shards, index = int(np.asarray(ds._num_shards)), int(np.asarray(ds._index))
        return f"shard({shards}, {index})", "shard", ds._input_dataset
    if name == "_FilterDataset":
        enumerated = _enumerated(ds._input_dataset)
        if enumerated is not None and _reads_index(ds._predicate):
            function = getattr(ds._predicate._func, "__name__", "...")
            label = "..." if function == "<lambda>" else function
            return f"enumerate().filter({label})", "filter", enumerated
    return None


def _upstream(ds: Any) -> Any:
    inputs = ds._inputs()
    if len(inputs) == 1:
        return inputs[0]
    return _enumerated(ds)


def _enumerated(ds: Any) -> Any:
    """The dataset ``ds`` enumerates (``ds`` is ``zip(index, it)``, as ``enumerate()`` builds
    it), else None."""
    import tensorflow as tf

    if type(ds).__name__ != "_ZipDataset":
        return None
    inputs = ds._inputs()
    if len(inputs) != 2 or inputs[0].element_spec != tf.TensorSpec((), tf.int64):
        return None
    return inputs[1]


def _reads_index(predicate: Any) -> bool:
    """Whether a filter's predicate over ``(index, element)`` uses the index."""
    graph = predicate.function.graph
    return bool(graph.inputs) and bool(graph.inputs[0].consumers())


def _reshuffling(stages: Sequence[Any]) -> int | None:
    """The index of the last shuffle stage that reshuffles each pass, unless a cache after it
    replays one order (then the split holds still after the first pass)."""
    found = None
    for i, stage in enumerate(stages):
        if stage.kind in {"shuffle", "shuffle_and_repeat"}:
            reshuffle = stage.param("reshuffle_each_iteration")
            found = i if reshuffle is True else None
        elif stage.kind == "cache" and found is not None:
            found = None
    return found


def _shuffle_label(stages: Sequence[Any], at: int) -> str:
    """``shuffle(320)``, with the utility that shuffles when the user did not write it."""
    stage = stages[at]
    label = str(stage.label())
    if stage.utility:
        return f"{label} inside {stage.utility}"
    if at > 0 and stages[at - 1].kind == "tensor_slice" and stages[at - 1].param("files"):
        return f"{label} inside tf.data.Dataset.list_files"
    return label


def example_hashes(
    ds: Any, batched: bool, *, max_examples: int = MAX_EXAMPLES, max_seconds: float = MAX_SECONDS
) -> tuple[list[bytes], bool]:
    """One hash per example of one pass over ``ds`` (rows of each batch when ``batched``), and
    whether the pass was read to its end (not cut at ``max_examples`` or ``max_seconds``)."""
    import time

    import keras

    out: list[bytes] = []
    start = time.monotonic()
    for element in ds:
        parts = [np.asarray(t) for t in keras.tree.flatten(element)]
        rows = len(parts[0]) if batched and parts and parts[0].ndim else None
        if rows is None:
            out.append(_hash(parts))
        else:
            out.extend(_hash([p[i] for p in parts]) for i in range(rows))
        if len(out) >= max_examples or time.monotonic() - start > max_seconds:
            return out[:max_examples], False
    return out, True


def _hash(parts: list[Any]) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        p = np.asarray(part)  # a row of a string batch is a bare bytes object
        if p.dtype.kind in "OSU":  # strings: their bytes, each with its length (not pointers)
            for item in p.ravel():
                data = item if isinstance(item, bytes) else str(item).encode()
                h.update(len(data).to_bytes(8, "little") + data)
        else:
            h.update(np.ascontiguousarray(p).tobytes())
        h.update(str(p.shape).encode())
    return h.digest()


def count_overlap(
    first: Any,
    second: Any,
    batched: tuple[bool, bool],
    *,
    max_examples: int = MAX_EXAMPLES,
) -> tuple[int, int, int, bool]:
    """``(examples of first, examples of second, examples of first also in second, both read
    whole)`` over one pass of each (at most ``max_examples`` each; ``batched`` says of each
    whether its elements are batches): a cut pass gives a lower bound of the overlap."""
    a, whole = example_hashes(first, batched[0], max_examples=max_examples)
    b, whole_b = example_hashes(second, batched[1], max_examples=max_examples)
    seen = set(b)
    return len(a), len(seen), sum(1 for h in a if h in seen), whole and whole_b
