"""P17 overlapping-splits: parts picked by position (``take()``/``skip()``, ``shard()``, a
filter on ``enumerate()``) from a dataset that reshuffles each pass.

The facts are :class:`~tfnb_debug.collect.splits.SplitFacts` (plain values), built by :mod:`tfnb_debug.features.splits`
from :func:`tfnb_debug.collect.splits.split_of` and, when the data is small
enough to read, the counts of :func:`tfnb_debug.collect.splits.count_overlap`.
"""

from __future__ import annotations

from tfnb_debug.collect.splits import SUBSET_PICKS, SplitFacts
from tfnb_debug.diagnostics.pipeline import _evaluation_name
from tfnb_debug.ground.reports import Finding, finding

__all__ = ["SplitFacts", "overlapping_splits"]


def overlapping_splits(facts: SplitFacts) -> list[Finding]:
    """P17: the parts of a split drawn anew on every pass overlap (silent when counting
    showed no overlap or no change, and for a lone subset (``take``, ``shard``, a filter)
    whose name does not say it is an evaluation set: a random subset drawn anew each pass
    may be meant)."""
    f = facts
    name = f"`{f.name}`" + (f" ({f.role})" if f.role else "")
    if f.partner is not None:
        if f.shared == 0:
            return []
        other = f"`{f.partner}`" + (f" ({f.partner_role})" if f.partner_role else "")
        message = (
            f"{name} = {f.path} and {other} = {f.partner_path} split one dataset that "
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
        if f.op in SUBSET_PICKS and not _evaluation_name(f.name):
            return []  # a random subset drawn anew each pass may be meant; no split in view
        rest = f"the other part of it ({f.rest})" if f.rest else "the rest of the split"
        message = (
            f"{name} is {f.path} of a dataset that reshuffles on every pass ({f.shuffle}): "
            f"the split changes every pass, so {rest} shares examples with it"
        )
        if f.changed is not None and f.examples:
            message += f" ({f.changed} of its {f.examples} examples differ between two passes)"
            evidence = f"two passes of `{f.name}`, examples compared by their bytes"
        else:
            evidence = "not counted: the dataset is too large or could not be read"
        evidence += "; no other dataset in view is picked from the same source"
    return [
        finding(
            "P17",
            message,
            place=f.place or f"dataset `{f.name}`",
            evidence=evidence,
            hint=_hint(f),
        )
    ]


_PICK_CALLS = {"shard": "shard()", "filter": "enumerate().filter()"}


def _hint(f: SplitFacts) -> str:
    pick = _PICK_CALLS.get(f.op, "take()/skip()")
    if " inside keras.utils." in f.shuffle:
        utility = f.shuffle.split(" inside ", 1)[1]
        return (
            f"{utility} shuffles its batches again on every pass: split the files instead "
            "(validation_split=0.2, subset='both', seed=... gives fixed training and "
            "validation sets; for a test set, a separate directory or another "
            f"validation_split call), or build the source with shuffle=False, split it with "
            f"{pick}, and .shuffle() only the training part"
        )
    if f.shuffle.endswith(" inside tf.data.Dataset.list_files"):
        return (
            "tf.data.Dataset.list_files shuffles the file names again on every pass (its "
            f"default shuffle=True): list them with list_files(..., shuffle=False), split with "
            f"{pick}, and .shuffle() only the training part"
        )
    return (
        f"split before shuffling: {pick} on the unshuffled dataset, then .shuffle() "
        "only the training part; or shuffle once with "
        f"{f.shuffle.split('(')[0]}(..., reshuffle_each_iteration=False) before the split"
    )
