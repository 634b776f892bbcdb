"""P17 overlapping-splits: ``take()``/``skip()`` parts of a dataset that reshuffles each pass.

The facts are :class:`~tfnb_debug.collect.splits.SplitFacts` (plain values), built by :mod:`tfnb_debug.splits`
from :func:`tfnb_debug.collect.splits.split_of` and, when the data is small
enough to read, the counts of :func:`tfnb_debug.collect.splits.count_overlap`.
"""

from __future__ import annotations

from tfnb_debug.collect.splits import SplitFacts
from tfnb_debug.diagnostics.pipeline import _evaluation_name
from tfnb_debug.reports import Finding, finding

__all__ = ["SplitFacts", "overlapping_splits"]


def _call(op: str, count: int | None) -> str:
    return f"{op}({count if count is not None else '...'})"


def overlapping_splits(facts: SplitFacts) -> list[Finding]:
    """P17: the parts of a split drawn anew on every pass overlap (silent when counting
    showed no overlap or no change, and for a lone ``take`` whose name does not say it is
    an evaluation set: a random subset drawn anew each pass may be meant)."""
    f = facts
    name = f"`{f.name}`" + (f" ({f.role})" if f.role else "")
    if f.partner is not None:
        if f.shared == 0:
            return []
        other = f"`{f.partner}`" + (f" ({f.partner_role})" if f.partner_role else "")
        message = (
            f"{name} = source.{_call(f.op, f.count)} and {other} = "
            f"source.{_call(f.partner_op or '?', f.partner_count)} split one dataset that "
            f"reshuffles on every pass ({f.shuffle}): each pass draws a different split, so "
            "the two parts overlap and change between epochs"
        )
        if f.shared is not None and f.examples:
            which = f"the {f.examples}" if f.whole else f"the first {f.examples}"
            message += (
                f": {f.shared} of {which} examples of `{f.name}` were also in one "
                f"pass of `{f.partner}`"
            )
            evidence = (
                f"one pass each, examples compared by their bytes: `{f.name}` {f.examples}, "
                f"`{f.partner}` {f.partner_examples}, in both {f.shared}"
            )
        else:
            evidence = "not counted: the datasets are too large or could not be read"
    else:
        if f.changed == 0:
            return []
        if f.op == "take" and not _evaluation_name(f.name):
            return []  # a random subset drawn anew each pass may be meant; no split in view
        other = "take" if f.op == "skip" else "skip"
        message = (
            f"{name} is source.{_call(f.op, f.count)} of a dataset that reshuffles on every "
            f"pass ({f.shuffle}): the split changes every pass, so the other part of it "
            f"(source.{_call(other, f.count)}) shares examples with it"
        )
        if f.changed is not None and f.examples:
            message += f" ({f.changed} of its {f.examples} examples differ between two passes)"
            evidence = f"two passes of `{f.name}`, examples compared by their bytes"
        else:
            evidence = "not counted: the dataset is too large or could not be read"
        evidence += "; no other dataset in view is a take/skip of the same source"
    return [
        finding(
            "P17",
            message,
            place=f.place or f"dataset `{f.name}`",
            evidence=evidence,
            hint=_hint(f),
        )
    ]


def _hint(f: SplitFacts) -> str:
    if " inside keras.utils." in f.shuffle:
        utility = f.shuffle.split(" inside ", 1)[1]
        return (
            f"{utility} shuffles its batches again on every pass: split the files instead "
            "(validation_split=0.2, subset='both', seed=... gives fixed training and "
            "validation sets; for a test set, a separate directory or another "
            "validation_split call), or build the source with shuffle=False, split it with "
            "take()/skip(), and .shuffle() only the training part"
        )
    return (
        "split before shuffling: take()/skip() on the unshuffled dataset, then .shuffle() "
        "only the training part; or shuffle once with "
        f"{f.shuffle.split('(')[0]}(..., reshuffle_each_iteration=False) before the split"
    )
