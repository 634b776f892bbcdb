"""A dict of table columns given to a model with one unnamed Input (S12), and the column
that is the table's target when the data holds no labels beside the columns.

Keras matches a dict to a model's Inputs by name and never stacks columns into one feature
tensor; ``dict(df)`` (or ``from_tensor_slices(dict(df))``) with the label column still in it
also hands the target to the model as a feature.
"""

from __future__ import annotations

import re

#: column names that are the labels of a table (the target a model learns)
TARGET_NAME = re.compile(r"labels?|targets?|y|class(?:es)?|outcome|response|survived|species")


def columns_for_one_input(keys: list[str], target: str = "") -> tuple[str, str]:
    """(problem, hint) for a dict of columns given to a model with one Input; ``target`` is a
    key that is the labels (the element holds no labels beside the dict)."""
    if target:
        features = [k for k in keys if k != target]
        listed = ", ".join(repr(k) for k in features[:8])
        stacked = ", ".join(f"d[{k!r}]" for k in features[:4]) + (
            ", ..." if len(features) > 4 else ""
        )
        return (
            f"the data is a dict of {len(keys)} columns that also holds the target "
            f"{target!r}, with no labels beside it, and the model has one Input of "
            f"{len(features)} features: Keras does not stack columns, nor split off a target",
            f"split the target out and stack the rest: `.map(lambda d: (tf.stack([{stacked}], "
            f"axis=-1), d[{target!r}]))` on the dataset (tf.cast each to float32 if their dtypes "
            f"differ), or from the DataFrame `df[[{listed}]].to_numpy('float32')` as x and "
            f"`df[{target!r}]` as y",
        )
    listed = ", ".join(repr(k) for k in keys[:8]) + (", ..." if len(keys) > 8 else "")
    stacked = ", ".join(f"d[{k!r}]" for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
    return (
        f"the data is a dict of {len(keys)} columns ({listed}), but the model has one Input: "
        "Keras matches a dict to Inputs by name and does not stack columns into one feature "
        "tensor",
        f"stack the columns into one (batch, {len(keys)}) feature tensor first: "
        f"`df[[{listed}]].to_numpy('float32')` for a DataFrame `df`, or in a dataset "
        f"`.map(lambda d, y: (tf.stack([{stacked}], axis=-1), y))` (tf.cast each to float32 if "
        "their dtypes differ); or give the model one Input per column, named as the keys "
        "(`keras.Input((1,), name=...)`)",
    )
