"""P17 overlapping-splits where the datasets are seen: ``%tfpipeline`` and after ``fit``.

* :func:`split_findings` (``inspect_pipeline(ds, against=...)``, ``%tfpipeline DS``
  with ``--against OTHER`` or the notebook's other datasets): ``ds`` picks by
  position (``take()``/``skip()``, ``shard()``, a filter on ``enumerate()``) from
  a stream that reshuffles each pass; a partner is another dataset picked from
  the very same reshuffling dataset object.  One pass of each
  (at most 4096 examples) counts the examples in both; without a partner, two
  passes of ``ds`` count the examples that changed.
* :func:`fit_split` (``%%tfgrad``): ``fit``'s training dataset and
  ``validation_data`` are two parts of one reshuffling source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfnb_debug.collect.splits import (
    MAX_EXAMPLES,
    SplitFacts,
    SplitPart,
    count_overlap,
    example_hashes,
    split_of,
)
from tfnb_debug.ground.reports import Finding

__all__ = ["fit_split", "split_facts", "split_findings"]


def split_findings(
    ds: Any,
    name: str,
    against: Mapping[str, Any] | None = None,
    *,
    count: bool = True,
    max_examples: int = MAX_EXAMPLES,
) -> list[Finding]:
    """P17 for ``ds`` (called ``name``), with ``against`` as the datasets its partner may be."""
    from tfnb_debug.diagnostics.splits import overlapping_splits

    facts = split_facts(ds, name, against, count=count, max_examples=max_examples)
    return overlapping_splits(facts) if facts is not None else []


def split_facts(
    ds: Any,
    name: str,
    against: Mapping[str, Any] | None = None,
    *,
    count: bool = True,
    max_examples: int = MAX_EXAMPLES,
) -> SplitFacts | None:
    """The :class:`SplitFacts` of ``ds``, or None when it picks nothing by position from a reshuffling stream."""
    part = split_of(ds)
    if part is None:
        return None
    partners = []
    for other_name, other in (against or {}).items():
        if other is ds:
            continue
        other_part = split_of(other)
        if other_part is not None and other_part.stream is part.stream:
            partners.append((other_part.picks == part.picks, other_name, other, other_part))
    if partners:
        _, partner_name, partner, partner_part = min(partners, key=lambda p: p[0])
        return _pair(ds, name, part, partner, partner_name, partner_part, count, max_examples)
    examples = changed = None
    if count:  # only whole passes: a cut pass would count examples past the cut as changed
        try:
            first, whole = example_hashes(ds, part.batched, max_examples=max_examples)
            if whole:
                second, whole = example_hashes(ds, part.batched, max_examples=max_examples)
            if whole:
                seen = set(first)
                examples, changed = len(second), sum(1 for h in second if h not in seen)
        except Exception:
            examples = changed = None
    return SplitFacts(
        name=name,
        path=part.path,
        op=part.op,
        shuffle=part.shuffle,
        rest=part.rest,
        examples=examples,
        changed=changed,
    )


def _pair(
    ds: Any,
    name: str,
    part: SplitPart,
    partner: Any,
    partner_name: str,
    partner_part: SplitPart,
    count: bool,
    max_examples: int,
    roles: tuple[str, str] = ("", ""),
    place: str = "",
) -> SplitFacts:
    examples = partner_examples = shared = None
    whole = True
    if count:
        try:
            examples, partner_examples, shared, whole = count_overlap(
                ds, partner, (part.batched, partner_part.batched), max_examples=max_examples
            )
        except Exception:
            examples = partner_examples = shared = None
        if not whole and shared == 0:  # a cut pass proves no absence of overlap
            examples = partner_examples = shared = None
    return SplitFacts(
        name=name,
        path=part.path,
        op=part.op,
        shuffle=part.shuffle,
        rest=part.rest,
        partner=partner_name,
        partner_path=partner_part.path,
        examples=examples,
        partner_examples=partner_examples,
        shared=shared,
        whole=whole,
        role=roles[0],
        partner_role=roles[1],
        place=place,
    )


def fit_split(arguments: Mapping[str, Any], call: Any = None) -> SplitFacts | None:
    """P17 facts when ``fit``'s ``validation_data`` and training dataset are picked from one
    stream that reshuffles each pass (the validation examples counted against one training pass)."""
    x, validation = arguments.get("x"), arguments.get("validation_data")
    if isinstance(validation, tuple | list) or x is None or validation is None:
        return None
    train_part, val_part = split_of(x), split_of(validation)
    if train_part is None or val_part is None or train_part.stream is not val_part.stream:
        return None
    x_name = getattr(call, "x_name", None) or "x"
    val_name = getattr(call, "validation_name", None) or "validation_data"
    model = getattr(call, "model", None)
    place = f"fit(validation_data=...) of model '{model}'" if model else "fit(validation_data=...)"
    return _pair(
        validation,
        val_name,
        val_part,
        x,
        x_name,
        train_part,
        True,
        MAX_EXAMPLES,
        roles=("validation_data", "training data"),
        place=place,
    )
