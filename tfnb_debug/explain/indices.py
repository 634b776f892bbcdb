"""Ids past an Embedding's rows, or indices past a gathered tensor (S09)."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._evidence import Arg, CallInfo
from tfnb_debug.explain._id_makers import cell_id_maker
from tfnb_debug.explain._operands import enclosing_class, enclosing_parameters
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.files import is_user_file
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_INDEX = re.compile(r"indices(?:\[([\d,]*)\])? = (-?\d+) is not in \[0, (\d+)\)")


def _scope_layer(ctx: ErrorContext, names: list[str]) -> str | None:
    """The Embedding named by the failing node's scope (``model/emb_1/GatherV2`` -> ``emb``)."""
    node = ctx.node()
    if not node:
        return None
    parts = node.split("/")[:-1]
    for part in reversed(parts):
        if part in names:
            return part
    for part in reversed(parts):
        base = re.sub(r"_\d+$", "", part)
        if base in names:
            return base
    return None


def _ids_arg(call: CallInfo | None, size: int) -> Arg | None:
    """The integer data of the failing call whose range reaches past ``size`` (or below 0)."""
    if call is None:
        return None
    first = call.arg(0, "x") or call.arg(0, "inputs")
    candidates = [first] if first is not None else []
    if first is not None and first.kind in ("tuple", "list", "dict"):
        candidates = list(first.items)
    for arg in candidates:
        if (
            arg is not None
            and arg.dtype.startswith(("int", "uint"))
            and arg.high is not None
            and arg.low is not None
            and (arg.high >= size or arg.low < 0)
        ):
            return arg
    return None


# the vocabulary_size() of a lookup layer before adapt: its special ids only (TextVectorization:
# padding and OOV; StringLookup/IntegerLookup: one OOV id, no mask token by default)
_EMPTY_VOCABULARY = {"TextVectorization": 2, "StringLookup": 1, "IntegerLookup": 1}
# a NaN (or inf) cast to int32/int64 lands at the type's most negative values
_NAN_AS_INT = -(2**30)


def _nan_ids(ctx: ErrorContext, layer: str, value: int, size: int, evidence: str) -> Explained:
    """N05: an id near the most negative integer is a missing value (NaN) cast to an integer."""
    return (
        finding(
            "N05",
            f"Embedding '{layer}' got id {value}, which is what a NaN (a missing id) becomes "
            "when cast to an integer: the data has missing ids",
            place=f"layer '{layer}'",
            evidence=evidence,
            hint="fill or drop the missing ids before casting them to int (`df['id'].isna()` "
            "finds them): map them to a reserved id, e.g. fillna(0) with row 0 kept for unknown, "
            "or drop those rows",
        ),
        (),
    )


def index_out_of_range(ctx: ErrorContext) -> Explained | None:
    """S09: an Embedding (or a gather) got an id outside [0, input_dim)."""
    match = _INDEX.search(ctx.text)
    if match is None:
        return None
    value, size = int(match.group(2)), int(match.group(3))
    embeddings = dict(ctx.evidence.embeddings)
    layer = _scope_layer(ctx, list(embeddings))
    if layer is None:
        eager = [name for name, cls in ctx.layers if cls == "Embedding"]
        layer = eager[0] if eager else None
    if layer is None:
        sized = [name for name, dim in embeddings.items() if dim == size]
        layer = sized[0] if len(sized) == 1 else None
    data = _ids_arg(ctx.evidence.call, size)
    low = int(data.low) if data is not None and data.low is not None else None
    high = int(data.high) if data is not None and data.high is not None else None
    word = ("id", "ids") if layer is not None else ("index", "indices")
    at = f"indices[{match.group(1)}]" if match.group(1) is not None else "indices"
    evidence = f"{word[0]} {value} at {at}, valid {word[1]} 0..{size - 1}"
    if data is not None:
        evidence += f"; {word[1]} in `{data.text}` run from {low} to {high}"
    if layer is None:
        return _gather_out_of_range(ctx, value, size, evidence, low)
    if value <= _NAN_AS_INT or (low is not None and low <= _NAN_AS_INT):
        return _nan_ids(ctx, layer, value, size, evidence)
    vocab = [
        (n, v) for n, v in ctx.evidence.vocabularies if v > size and (high is None or v > high)
    ]
    made = [s for s in ctx.evidence.id_sources if s[0] == layer]
    if not made and data is not None:  # the ids made in the cell: `ids = hasher(words)`
        cell = ctx.read(cell_id_maker, data.text, is_user_file)
        made = [(layer, *cell)] if cell is not None else []
    if made:
        _, producer, cls, count = made[0]
        evidence += f"; its ids come from {cls} '{producer}', which makes ids 0..{count - 1}"
        before_adapt = _EMPTY_VOCABULARY.get(cls)
        if cls in ("Hashing", "HashedCrossing"):
            hint = (
                f"{cls} '{producer}' makes ids 0..{count - 1} (one per bin), but '{layer}' has "
                f"{size} rows: set input_dim = num_bins = {count}, or give the {cls} "
                f"num_bins={size}"
            )
        elif cls.startswith("tf.strings.to_hash"):
            hint = (
                f"`{producer}` makes ids 0..{count - 1} (one per bucket, whatever the number "
                f"of distinct values), but '{layer}' has {size} rows: set input_dim = "
                f"num_buckets = {count}, or hash into {size} buckets"
            )
        elif before_adapt is not None and size == before_adapt and count > size:
            hint = (
                f"input_dim={size} is what `{producer}.vocabulary_size()` returns before adapt "
                f"(only its padding/OOV ids): the Embedding was sized before `{producer}.adapt(...)` "
                f"ran; read vocabulary_size() after adapt (now {count})"
            )
        elif cls == "Discretization":
            hint = (
                f"{cls} '{producer}' sorts values into {count} buckets (its {count - 1} "
                f"bin boundaries make {count - 1} + 1 bins, ids 0..{count - 1}), but '{layer}' "
                f"has {size} rows: set input_dim = len(bin_boundaries) + 1 = {count}"
            )
        else:
            hint = (
                f"{cls} '{producer}' makes ids 0..{count - 1} (vocabulary_size() counts the "
                f"padding and OOV ids), but '{layer}' has {size} rows: set input_dim = "
                f"max id + 1 = {producer}.vocabulary_size() = {count}"
            )
    elif len(vocab) == 1:
        name, v = vocab[0]
        evidence += f"; `{name}` has vocabulary_size() {v}"
        hint = (
            f"if these ids come from `{name}`: its ids run to {v - 1} (they count the padding "
            f"and OOV tokens), more than '{layer}' has rows; set input_dim = max id + 1 = "
            f"{name}.vocabulary_size() = {v}"
        )
    elif low is not None and low < 0:
        hint = (
            f"negative ids ({low}) are not rows of '{layer}': map padding or unknown markers to a "
            f"reserved id (e.g. 0) before the model"
        )
    elif high is not None and low == 1 and high == size:
        hint = (
            f"the ids start at 1 and reach {high}, so id {high} needs row {high}: set "
            f"input_dim = max id + 1 = {high + 1} (row 0 then serves padding), or subtract 1 from "
            "the ids"
        )
    elif high is not None and layer in ctx.evidence.masked:
        hint = (
            f"'{layer}' has mask_zero=True, so id 0 is its padding and the real ids start at 1: "
            f"the table needs max id + 1 = {high + 1} rows, `input_dim={high + 1}` (e.g. "
            "len(vocabulary) + 1)"
        )
    elif high is not None:
        hint = (
            f"the ids go up to {high} but '{layer}' has input_dim={size}: set input_dim = max id "
            f"+ 1 = {high + 1}, or re-index the ids to 0..{size - 1}"
        )
    elif value == size:
        hint = (
            f"id {value} equals input_dim: ids must be below it, so input_dim = max id + 1 "
            f"(at least {size + 1}), or re-index the ids to 0..{size - 1}"
        )
    else:
        hint = (
            f"the ids reach at least {value}: set input_dim = max id + 1 (at least {value + 1}; "
            f"check the largest id with np.max), or re-index the ids to 0..{size - 1}"
        )
    return (
        finding(
            "S09",
            f"Embedding '{layer}' has input_dim={size} (ids 0..{size - 1}) but got id {value}",
            place=f"layer '{layer}'",
            evidence=evidence,
            hint=hint,
        ),
        (
            NextStep(
                text="compare the data's id range with the layer: `ids.min(), ids.max()` against "
                "input_dim (a GPU gives zeros for such ids instead of failing)"
            ),
        ),
    )


def _gather_out_of_range(
    ctx: ErrorContext, value: int, size: int, evidence: str, low: int | None
) -> Explained:
    op = ctx.eager_op() or (ctx.node() or "").rpartition("/")[2] or "a gather"
    user = ctx.user_code_line()
    place = f"op {op}"
    if user is not None:
        place += f" at {ctx.where(user[0], user[1], user[2])}"
        if user[3]:
            evidence += f"; `{user[3]}`"
    defined = ctx.defined_at()  # a graph error: the user's line that made the op
    params = enclosing_parameters(defined[0], defined[1]) if defined is not None else None
    schedule = defined is not None and defined[2] == "__call__" and "step" in (params or ())
    if value < 0:
        hint = (
            f"index {value} is negative: tf.gather does not wrap negative indices; map them to "
            f"0..{size - 1} (or mask them) first"
        )
    elif schedule:  # a learning-rate schedule's table, indexed by the optimizer's step
        assert defined is not None
        owner = enclosing_class(defined[0], defined[1]) or "the schedule"
        place = f"the schedule {owner}.__call__ ({ctx.where(defined[0], defined[1])})"
        import linecache

        floor = re.search(r"//\s*batch", "".join(linecache.getlines(defined[0])))
        hint = (
            f"the schedule indexes a table of {size} values with the optimizer's step, and fit "
            f"reached step {value}: "
            + (
                "the cell counts the steps with `// batch_size`, which misses the last, "
                "partial batch"
                if floor
                else "the table holds fewer values than the steps fit runs"
            )
            + " (fit runs math.ceil(len(x) / batch_size) steps an epoch); size the table for "
            f"every step, or clamp the step, `tf.minimum(step, {size - 1})`"
        )
    else:
        hint = (
            f"index {value} is past the {size} rows it indexes: the indices must be below {size}; "
            "re-index them, or index a tensor with more rows (max index + 1)"
        )
    del low
    return (
        finding(
            "S09",
            f"{op} got index {value}, outside [0, {size})",
            place=place,
            evidence=evidence,
            hint=hint,
        ),
        (),
    )
