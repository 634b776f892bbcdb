"""Where the data's axes came from, for S01 and S12 on a layer that rejected its input.

When a layer gets a tensor of the wrong rank or width and no layer of the
model made it, the data the failing call was given may show why: a tf.data
dataset without ``batch()`` (examples without their batch axis), one batched
twice (batches of batches), a 1-D array (no feature axis), or a model whose
Input was declared with the sample count.  :func:`_data_origin`,
:func:`_unbatched_dataset` and :func:`_sample_count_width` read the
``ErrorContext`` (the datasets and the call's arguments) and return a
:class:`DataOrigin`: the evidence, the hint and the finding's code, which the
S01 rules of :mod:`tfnb_debug.explain.shapes` report.  :func:`padded_single_example` is the
S12 of one example that Keras padded with an axis at the end (``(28, 28, 1, 1)``): from a
dataset never batched (batch it) or an array indexed to one example (``x[None]``).
"""

from __future__ import annotations

import linecache
import re
from typing import NamedTuple

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext, InputInfo, fmt_shape, same_shape
from tfnb_debug.ground.reports import Finding, finding

_BATCHING = ("batch", "padded_batch", "ragged_batch")
_DATA_METHODS = (
    "fit",
    "evaluate",
    "predict",
    "train_on_batch",
    "test_on_batch",
    "predict_on_batch",
)


def _data_origin(
    ctx: ErrorContext,
    received: tuple[int | None, ...],
    expected: tuple[int | None, ...] | None,
    source: InputInfo | None,
    *,
    extra_axis: bool,
) -> DataOrigin | None:
    """(evidence, hint) when the tensor of the wrong rank is the data the call was given and
    the data shows where its axes came from: a dataset without ``batch()``, one batched twice
    (``extra_axis``: the tensor has one axis more than the layer takes; not when a ``map``
    between the two ``batch()`` calls makes examples of the first), or a 1-D array.  None
    when a layer made the tensor (its producer is the evidence then)."""
    if not fed_by_data(source):
        return None
    if expected is not None and len(received) == len(expected) - 1:
        return _unbatched_dataset(ctx, received)
    if expected is not None and not received and len(expected) == 2:
        return _unbatched_dataset(ctx, received)  # scalar columns: Keras adds their feature axis
    for ds in ctx.datasets if extra_axis else ():
        first = ds.shapes[0] if ds.shapes else None
        at = [i for i, stage in enumerate(ds.stages) if stage.kind in _BATCHING]
        batches = [ds.stages[i] for i in at]
        whole = ds.stages and ds.stages[0].kind == "from_tensors" and batches
        if whole and first is not None and same_shape(first, received):
            name = f"`{ds.name}`" if ds.name else "the dataset"
            return DataOrigin(
                f"{name} is made with from_tensors, which makes the whole array one element "
                f"{fmt_shape(tuple(ds.stages[0].shapes[0] or ()))}; .{batches[0].kind}() then "
                "adds an axis over it",
                "make one element per example: `tf.data.Dataset.from_tensor_slices(...)` in place "
                "of from_tensors",
                "S12",
            )
        if first is None or not same_shape(first, received) or len(batches) < 2:
            continue
        what = f"dataset `{ds.name}`" if ds.name else "the tf.data dataset given to this call"
        if any(stage.kind == "map" for stage in ds.stages[at[0] + 1 : at[-1]]):
            # a map after the first batch() makes examples of it (sequences, windows): the
            # examples have the extra axis, and the model's Input does not
            example = fmt_shape(received[1:])
            wanted = fmt_shape(expected[1:]) if expected else "what the model takes"
            return DataOrigin(
                f"{what}'s first .{batches[0].kind}() makes the examples (a map after it "
                f"splits each), so each example has shape {example}",
                f"two causes fit: the model's Input was declared for single steps: declare it "
                f"for the examples, `keras.Input(shape={example})`; or the examples should have "
                f"shape {wanted}: change the first .{batches[0].kind}() or the map after it",
            )
        sizes = ", ".join(
            f".{b.kind}({b.batch_size})" if b.batch_size else f".{b.kind}(...)" for b in batches
        )
        return DataOrigin(
            f"{what} is batched {len(batches)} times ({sizes}): its elements are batches of "
            f"batches, {fmt_shape(first)}",
            f"each `batch()` adds an axis, so {what} yields batches of batches: batch once "
            "(drop the extra `.batch(...)`, or `.unbatch()` before batching again)",
            "S12",
        )
    call = ctx.evidence.call
    if len(received) != 1 or call is None or call.method not in _DATA_METHODS:
        return None
    x = call.arg(0, "x")
    if x is None or x.shape is None or len(x.shape) != 1:
        return None
    n = x.shape[0]
    feature = f"`{x.text}.reshape(-1, 1)` (Keras 3 does not add a feature axis to 1-D data)"
    single = f"`{x.text}[None]`"
    per_example = expected[1:] if expected else None
    if per_example == (1,):
        hint = f"each value of `{x.text}` is one example's single feature: give it its feature axis, {feature}"
    elif per_example is not None and n is not None and per_example == (n,):
        hint = f"`{x.text}` holds one example of the model's shape without its batch axis: add it, {single}"
    else:
        hint = (
            f"two causes fit: each value of `{x.text}` is one example's single feature (give it "
            f"its feature axis, {feature}), or `{x.text}` is one example (add the batch axis, "
            f"{single})"
        )
    return DataOrigin(
        f"`{x.text}` is a 1-D array of shape {fmt_shape(x.shape)}: no feature axis", hint
    )


def fed_by_data(source: InputInfo | None) -> bool:
    """The tensor a layer got is the model's input (the data), not a tensor a layer made."""
    return (
        source is None or source.producer in ("", "input") or source.producer_class == "InputLayer"
    )


class DataOrigin(NamedTuple):
    """Where the data's axes came from: evidence, hint, and the finding's code (S12 when the
    data's structure is the cause: examples without their batch axis, batches of batches)."""

    evidence: str
    hint: str
    code: str = "S01"


def _sample_count_width(
    ctx: ErrorContext, value: int, received: tuple[int | None, ...], source: InputInfo | None
) -> DataOrigin | None:
    """The model was built for as many features as the data has samples (``Input((x.shape[0],))``):
    the width the layer expects is the number of rows of the x the call was given."""
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None and call.method in _DATA_METHODS else None
    if x is None or not x.shape or len(x.shape) < 2 or not received:
        return None
    if not fed_by_data(source):
        return None  # a layer of the model made the tensor, not the data
    rows, width = x.shape[0], x.shape[-1]
    if rows != value or width != received[-1] or rows == width:
        return None
    return DataOrigin(
        f"`{x.text}` has {rows} rows (samples) of {width} features: the size the model was "
        "built for is the number of samples",
        f"the model's input was declared with the sample count: declare the features, "
        f"`keras.Input(shape=({x.text}.shape[1],))` ({width}), not `{x.text}.shape[0]` ({rows})",
        "S12",
    )


def _unbatched_dataset(ctx: ErrorContext, received: tuple[int | None, ...]) -> DataOrigin | None:
    """(evidence, hint) when a tf.data dataset given to the call yields unbatched examples of that shape."""
    for ds in ctx.datasets:
        first = ds.shapes[0] if ds.shapes else None
        # dict features (no one shape): their values lack the Inputs' batch axis (a scalar
        # column also its feature axis, which Keras adds to a batch of them)
        if (
            first is None
            and ds.shapes
            and not any(s.kind in _BATCHING for s in ds.stages)
            and any(m and len(m) > len(received) for m in ctx.model_inputs)
        ):
            first = received
        if first is None or not same_shape(first, received):
            continue
        if any(stage.kind in _BATCHING for stage in ds.stages) and "unbatch" not in {
            stage.kind for stage in ds.stages
        }:
            continue  # batched (its unknown first axis is the batch): not single examples
        what = f"dataset `{ds.name}`" if ds.name else "a tf.data dataset given to this call"
        fix = f"`{ds.name} = {ds.name}.batch(32)`" if ds.name else "`.batch(32)` at its end"
        kinds = [stage.kind for stage in ds.stages]
        if "unbatch" in kinds and any(k in _BATCHING for k in kinds[: kinds.index("unbatch")]):
            size = next(
                (s.batch_size for s in ds.stages if s.kind in _BATCHING and s.batch_size), None
            )
            again = f"`.unbatch().batch({size or 32})`"
            return DataOrigin(
                f"{what} is batched, then unbatch() splits the batches back into single "
                f"examples of shape {fmt_shape(first)} (no batch axis)",
                f"drop the unbatch() (a map on batches keeps them batched), or batch again "
                f"after it, {again}",
                "S12",
            )
        return DataOrigin(
            f"{what} yields single examples of shape {fmt_shape(first)} (no batch axis)",
            f"the {what.removeprefix('a ')} is not batched, so each example reaches the model "
            f"without its batch axis: batch it, e.g. {fix} (before any prefetch)",
            "S12",
        )
    return None


def padded_single_example(
    ctx: ErrorContext, received: tuple[int | None, ...]
) -> tuple[Finding, tuple[()]] | None:
    """S12: one example without its batch axis, which Keras padded at the end (``[28,28,1,1]``)."""
    if len(ctx.model_inputs) != 1 or not ctx.model_inputs[0] or not received:
        return None
    expected = ctx.model_inputs[0]
    given = _one_example(ctx, expected)
    if given is not None:  # the data itself is one example (Keras padded it; any layer fails)
        return given
    if len(received) != len(expected) or received[-1] != 1:
        return None
    if not same_shape(received[:-1], expected[1:]):
        return None
    example = fmt_shape(received[:-1])
    evidence = f"the model expects {fmt_shape(expected)}; the layer received {fmt_shape(received)}"
    hint = "pass a batch of one: `x[None]`, `x[:1]` or `np.expand_dims(x, 0)` instead of `x[0]`"
    dataset = _unbatched_dataset(ctx, received[:-1])
    if dataset is not None:  # the examples come from a dataset that was never batched
        evidence += f"; {dataset.evidence}"
        hint = dataset.hint
    return (
        finding(
            "S12",
            f"a single example of shape {example} was passed without its batch axis; Keras "
            f"added an axis at the end, {fmt_shape(received)}, and a later layer failed on it",
            place=f"layer '{ctx.layer_names[0]}'" if ctx.layer_names else "the model",
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


def _one_example(
    ctx: ErrorContext, expected: tuple[int | None, ...]
) -> tuple[Finding, tuple[()]] | None:
    """S12 read from the call itself: the data given to fit/evaluate/predict has exactly the
    model's per-example shape (its rank one less), whichever layer later failed on it."""
    call = ctx.evidence.call
    if call is None or call.method not in _DATA_METHODS:
        return None
    x = call.arg(0, "x")
    if x is None or x.kind not in ("array", "tensor") or not x.shape:
        return None
    if len(x.shape) != len(expected) - 1 or None in x.shape:
        return None
    if not same_shape(x.shape, expected[1:]):
        return None
    y = call.arg(1, "y") if call.method != "predict" else None
    if y is not None and y.shape and y.shape[0] == x.shape[0] and x.shape[0] != 1:
        return None  # as many labels as rows: x holds examples, without another axis
    name = x.text if re.fullmatch(r"[\w.]+(?:\[[^\]]*\])*", x.text) else f"({x.text})"
    batch = f"`{name}[None]` or `np.expand_dims({x.text}, 0)`"
    source = assigned_before(name, call.filename, call.lineno) if name.isidentifier() else ""
    index = _INDEXED.fullmatch(source) or _INDEXED.fullmatch(name)
    if index is not None:  # digit = x_test[3]: a slice keeps the batch axis
        batch = f"`{index.group(1)}[{index.group(2)}:{int(index.group(2)) + 1}]`, {batch}"
    return (
        finding(
            "S12",
            f"`{x.text}` is a single example without its batch axis: its shape "
            f"{fmt_shape(x.shape)} is the model's Input {fmt_shape(expected)} without the batch "
            f"axis, and {call.method} reads the first axis as the batch",
            place=f"`{call.func}`",
            evidence=f"`{x.text}`: {fmt_shape(x.shape)}; the model expects {fmt_shape(expected)}"
            + (f"; `{name} = {source}`" if source else ""),
            hint=f"pass a batch of one: {batch}",
        ),
        (),
    )


_INDEXED = re.compile(r"([A-Za-z_][\w.]*)\[\s*(\d+)\s*\]")


_TEXT_LAYER = re.compile(r"^\s*(\w+)\s*=\s*(?:[\w.]+\.)?(TextVectorization|StringLookup|Hashing)\(")


def raw_text(
    ctx: ErrorContext, expected: tuple[int | None, ...]
) -> tuple[Finding, tuple[()]] | None:
    """S11: raw text given to a model whose Input takes numbers (the ids or vectors a text
    layer makes): the shape error only says that strings are not what the model reads."""
    call = ctx.evidence.call
    if call is None or call.method not in _DATA_METHODS:
        return None
    x = call.arg(0, "x")
    if x is None or not x.dtype.startswith(("str", "bytes")) or "string" in call.input_dtypes:
        return None
    lines = linecache.getlines(call.filename)[: max(call.lineno - 1, 0)]
    made = [m for m in map(_TEXT_LAYER.match, lines) if m is not None]
    if made:
        layer, kind = made[-1].group(1), made[-1].group(2)
        hint = (
            f"turn the text into what the model was trained on with the same {kind}: "
            f"`{call.func}({layer}({x.text}))`, or put the layer in the model behind "
            "keras.Input(shape=(), dtype='string')"
        )
    else:
        hint = (
            "vectorize the text with the layer that made the training data (a TextVectorization "
            "adapted on the training texts), or put that layer in the model behind "
            "keras.Input(shape=(), dtype='string')"
        )
    return (
        finding(
            "S11",
            f"`{x.text}` holds raw text ({x.dtype}), but the model's Input takes "
            f"{'/'.join(call.input_dtypes) or 'numbers'} of shape {fmt_shape(expected)}: no "
            "layer of the model reads strings",
            place=f"`{call.func}`",
            evidence=f"{x.describe()}"
            + (f"; `{made[-1].group(1)}` is a {made[-1].group(2)}" if made else ""),
            hint=hint,
        ),
        (),
    )


def data_itself(
    ctx: ErrorContext, expected: tuple[int | None, ...]
) -> tuple[Finding, tuple[()]] | None:
    """What the data given to the call shows on its own, for a model's input check: raw text
    for a model of numbers (S11), or one example without its batch axis (S12)."""
    return raw_text(ctx, expected) or _one_example(ctx, expected)
