"""Splits taken with ``take()``/``skip()`` from a dataset that reshuffles on every pass (P17).

:func:`split_of` reads, from the live dataset objects (``_inputs()``, no
iteration), whether a dataset is a ``take``/``skip`` of a source whose chain
has a ``shuffle`` with ``reshuffle_each_iteration=True`` (also the one inside
``keras.utils.image_dataset_from_directory(shuffle=True)``), and which dataset
object that source is, so two parts of one source are recognized by identity.
:func:`count_overlap` iterates datasets once each (at most ``max_examples``
examples) and compares the examples by a hash of their bytes; iterating a
reshuffling dataset moves its shuffle on, as any pass does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SplitFacts", "SplitPart", "count_overlap", "example_hashes", "split_of"]

#: examples read per dataset at most when counting
MAX_EXAMPLES = 4096
#: seconds one counting pass may take before it stops
MAX_SECONDS = 5.0
_SPLIT_CLASSES = {"_TakeDataset": "take", "TakeDataset": "take", "_SkipDataset": "skip"}


@dataclass(frozen=True)
class SplitPart:
    """``dataset`` is ``source.take(count)`` or ``source.skip(count)`` (``op``), and the
    chain of ``source`` reshuffles on every pass at ``shuffle`` (a stage label)."""

    op: str
    count: int | None
    shuffle: str
    batched: bool
    source: Any = field(compare=False, repr=False)


@dataclass(frozen=True)
class SplitFacts:
    """``name`` is ``source.op(count)`` of a source that reshuffles at ``shuffle``.

    ``partner``: another dataset that is a take/skip of the same source object
    (``partner_op``); ``examples``/``partner_examples``/``shared``: examples in one
    pass of each and how many of ``name``'s are also in the partner's pass.
    Without a partner, ``changed`` counts the examples of a second pass of ``name``
    that were not in its first.  ``whole``: both passes were read to their end (else
    ``examples`` are the first ones and ``shared`` a lower bound).  ``role``/``partner_role`` say how the datasets are
    used (``"training data"``, ``"validation_data"``), when known.
    """

    name: str
    op: str
    count: int | None
    shuffle: str
    partner: str | None = None
    partner_op: str | None = None
    partner_count: int | None = None
    examples: int | None = None
    partner_examples: int | None = None
    shared: int | None = None
    changed: int | None = None
    whole: bool = True
    role: str = ""
    partner_role: str = ""
    place: str = ""


def split_of(ds: Any) -> SplitPart | None:
    """The take/skip split ``ds`` is part of, when its source reshuffles each pass; else None."""
    try:
        return _split_of(ds)
    except Exception:  # a private attribute moved: say nothing rather than guess
        return None


def _split_of(ds: Any) -> SplitPart | None:
    from tfnb_debug.collect.pipeline import read_structure

    current, depth = ds, 0
    while current is not None and depth < 1000:
        op = _SPLIT_CLASSES.get(type(current).__name__)
        if op is not None:
            source = current._input_dataset
            stages = read_structure(source).stages
            shuffle = _reshuffling(stages)
            if shuffle is None:
                return None
            count = getattr(current, "_count", None)
            return SplitPart(
                op=op,
                count=int(np.asarray(count)) if count is not None else None,
                shuffle=shuffle,
                batched=any(s.kind in {"batch", "padded_batch"} for s in stages),
                source=source,
            )
        inputs = current._inputs()
        current = inputs[0] if len(inputs) == 1 else None
        depth += 1
    return None


def _reshuffling(stages: Iterable[Any]) -> str | None:
    """The label of the last shuffle that reshuffles each pass, unless a cache after it
    replays one order (then the split holds still after the first pass)."""
    found = None
    for stage in stages:
        if stage.kind in {"shuffle", "shuffle_and_repeat"}:
            reshuffle = stage.param("reshuffle_each_iteration")
            found = stage if reshuffle is True else None
        elif stage.kind == "cache" and found is not None:
            found = None
    if found is None:
        return None
    label = str(found.label())
    return f"{label} inside {found.utility}" if found.utility else label


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


def _hash(parts: list[np.ndarray]) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(np.ascontiguousarray(p).tobytes())
        h.update(str(p.shape).encode())
    return h.digest()


def count_overlap(
    first: Any, second: Any, batched: bool, *, max_examples: int = MAX_EXAMPLES
) -> tuple[int, int, int, bool]:
    """``(examples of first, examples of second, examples of first also in second, both read
    whole)`` over one pass of each (at most ``max_examples`` each): a cut pass gives a lower
    bound of the overlap."""
    a, whole = example_hashes(first, batched, max_examples=max_examples)
    b, whole_b = example_hashes(second, batched, max_examples=max_examples)
    seen = set(b)
    return len(a), len(seen), sum(1 for h in a if h in seen), whole and whole_b
