"""Table columns Keras cannot turn into a tensor, named from the DataFrame the call was given.

- pandas' nullable and extension dtypes (``boolean``, ``Int64``, ``Float64``, ``string``,
  ``category``): Keras' array adapter refuses them ("Invalid dtype: boolean").  The column and
  its dtype are read from the DataFrame (or a dict of its columns); the fix fills the missing
  values those dtypes allow and casts to a NumPy dtype.
- A text column that also holds missing values (None / NaN): the strings need encoding and
  the gaps a value of their own before any lookup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tfnb_debug.explain._call import Arg
from tfnb_debug.explain._context import ErrorContext

INVALID_EXTENSION = re.compile(r"Invalid dtype: (boolean|U?Int\d+|Float\d+|string|category)\b")
_FILL = {"boolean": "False", "string": "''", "category": None}


def _frames(ctx: ErrorContext) -> Iterator[Arg]:
    call = ctx.evidence.call
    if call is not None:
        yield from (a for a in call.nested_args() if a.kind in ("dataframe", "series"))


def extension_column(ctx: ErrorContext, match: re.Match[str]) -> tuple[str, str, str] | None:
    """(message, evidence, hint) naming the columns of the refused pandas dtype, or None."""
    dtype = match.group(1)
    for frame in _frames(ctx):
        columns = [c for c, d in frame.extension_columns if d == dtype]
        if not columns:
            continue
        shown = ", ".join(f"'{c}'" for c in columns[:6])
        first = columns[0]
        if dtype == "category":
            fix = f"`df['{first}'] = df['{first}'].cat.codes` (or one-hot with pd.get_dummies)"
        elif dtype == "string":
            fix = (
                f"encode it (`pd.factorize(df['{first}'])[0]`, pd.get_dummies, or a "
                "keras.layers.StringLookup), or drop it"
            )
        else:
            fill = _FILL.get(dtype, "0")
            fix = f"`df['{first}'] = df['{first}'].fillna({fill}).astype('float32')`"
        return (
            f"`{frame.text}` has column {shown} of pandas' {dtype} dtype, which Keras cannot "
            "convert to a tensor",
            f"columns of dtype {dtype}: {shown}",
            f"give it a NumPy dtype first: {fix} (pandas' nullable dtypes hold <NA> for "
            "missing values, which have no float32 value until filled)",
        )
    return None


def missing_text_hint(arg: Arg) -> str:
    """The hint for text columns that also hold missing values, or ""."""
    if not arg.missing_text_columns:
        return ""
    if arg.kind == "array":  # a 1-D array of values (series.to_numpy())
        return (
            f"`{arg.text}` mixes text with missing values (None/NaN), so it is neither strings "
            "nor numbers: fill the gaps with a string of their own first (`.fillna('missing')` "
            "on the pandas column, or `np.where(pd.isna(a), 'missing', a)`)"
        )
    first = arg.missing_text_columns[0]
    shown = ", ".join(f"'{c}'" for c in arg.missing_text_columns[:6])
    return (
        f"{shown} mixes text with missing values (None/NaN), so it is neither strings nor "
        f"numbers: fill the gaps first, `df['{first}'] = df['{first}'].fillna('unknown')`, then "
        "encode the text (a keras.layers.StringLookup, pd.get_dummies, or category codes)"
    )
