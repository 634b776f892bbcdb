"""M04 from where the labels' class count came from: a sparse loss's out-of-range label when
the call's labels show a class count, and one-hot labels one column short because they were
encoded with ``drop_first=True`` (:func:`dropped_class`).

A sparse cross-entropy rejects a label id at or past the number of output units (P12).  When
every label of the failing call is read and the ids run from 0 to past the output, the
labels are fine and the output was sized for fewer classes than they hold: the usual cause is
a class count taken as the largest id (``num_classes = y.max()``).  That is M04, and the fix
is the output size, ``y.max() + 1``.  Ids that start at 1 (a 1-based encoding) are not this:
P12's own hint covers them.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import (
    ErrorContext,
    LabelInfo,
    dtype_name,
    fmt_shape,
    same_shape,
)
from tfnb_debug.explain._data_makers import read_data_makers
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def class_count(
    ctx: ErrorContext, value: int, classes: int, place: str
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """M04 when the call's labels are class ids 0..k with k >= the output's units."""
    labels = ctx.labels
    coded = _coded_classes(labels, value, classes, place)
    if coded is not None:
        return coded
    if labels is None or not labels.whole or labels.low != 0 or labels.high is None:
        return None
    high = int(labels.high)
    if high < classes or value > high:
        return None  # the rejected id is not one of these labels (another pass, another array)
    count = high + 1
    return (
        finding(
            "M04",
            f"the labels hold {count} classes (ids 0..{high}) but the output layer"
            f"{output_head(ctx)} has {classes} units",
            place=place,
            evidence=f"`{labels.name}` runs from 0 to {high}; the loss rejected label {value} "
            f"against [0, {classes})",
            hint=f"give the last layer {count} units, one per class: the number of classes is "
            f"`{labels.name}.max() + 1` ({count}), not the largest id ({high})",
        ),
        (),
    )


def _coded_classes(
    labels: LabelInfo | None, value: int, classes: int, place: str
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """P12 when the labels take no more distinct values than the output has units, but other
    values than 0..n-1 (a mask stored 0/255, ids 1..n, codes 10/20/30): they need a remap,
    not more units."""
    if labels is None or not labels.values or value not in labels.values:
        return None
    values = [int(v) for v in labels.values]
    if len(values) > classes or max(values) < classes or values == list(range(1, classes + 1)):
        return None  # ids 1..n: the rule's own branches name a lookup's OOV index or the shift
    name, shown = labels.name, ", ".join(str(v) for v in values)
    if values == [0, 255]:
        remap = f"`{name} // 255` (or `({name} > 0).astype('int32')`)"
    else:
        remap = f"`np.unique({name}, return_inverse=True)[1]` (then 0..{len(values) - 1})"
    return (
        finding(
            "P12",
            f"the labels `{name}` take {len(values)} values ({shown}) for an output of {classes} "
            f"units, but not the ids 0..{classes - 1}: {value} is a code, not a class id",
            place=place,
            evidence=f"`{name}` holds only {shown}; the loss rejected label {value} against "
            f"[0, {classes})",
            hint=f"map the values to class ids: {remap}; the output keeps {classes} units",
        ),
        (),
    )


_DROP_FIRST = re.compile(r",\s*drop_first\s*=\s*True")


def dropped_class(
    ctx: ErrorContext,
    labels: tuple[int | None, ...],
    output: tuple[int | None, ...],
    place: str,
    evidence: str,
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """M04 when one-hot labels have one column fewer than the output's units and the labels
    were made with ``drop_first=True`` (``pd.get_dummies``): the encoder dropped a class."""
    call, info = ctx.evidence.call, ctx.labels
    units = output[-1] if output else None
    if call is None or info is None or not info.name.isidentifier() or units is None:
        return None
    if len(labels) != len(output) or labels[-1] is None or labels[-1] + 1 != units:
        return None
    made = assigned_before(info.name, call.filename, call.lineno)
    if not _DROP_FIRST.search(made):
        return None
    return (
        finding(
            "M04",
            f"the output layer has {units} units but the one-hot labels {fmt_shape(labels)} have "
            f"{labels[-1]} columns: `drop_first=True` dropped the first class's column",
            place=place,
            evidence=f"{evidence}; `{info.name} = {made}`",
            hint="drop_first=True is for input features (it removes a redundant column); "
            "labels need one column per class: encode them without it, "
            f"`{info.name} = {_DROP_FIRST.sub('', made)}`",
        ),
        (),
    )


_TO_CATEGORICAL = re.compile(r"to_categorical\(\s*([\w.\[\]]+?)\s*\)")


def shifted_ids(
    ctx: ErrorContext,
    labels: tuple[int | None, ...],
    output: tuple[int | None, ...],
    place: str,
    evidence: str,
) -> tuple[Finding, tuple[NextStep, ...]] | None:
    """P12 when one-hot labels have one column more than the output's units and their first
    column is never set: class ids that start at 1, one-hot encoded from 0."""
    call = ctx.evidence.call
    if call is None:
        return None
    y = call.arg(1, "y")
    units = output[-1] if output else None
    if y is None or units is None or len(labels) != len(output) or labels[-1] != units + 1:
        return None
    if y.empty_columns[:1] != (0,):
        return None
    made = assigned_before(y.text, call.filename, call.lineno) if y.text.isidentifier() else ""
    source = _TO_CATEGORICAL.search(made)
    ids = source.group(1) if source else "the class ids"
    fix = (
        f"`{y.text} = keras.utils.to_categorical({ids} - 1, num_classes={units})`"
        if source
        else f"one-hot encode `ids - 1` with num_classes={units}"
    )
    return (
        finding(
            "P12",
            f"the one-hot labels `{y.text}` have {labels[-1]} columns and column 0 is never set: "
            f"the class ids run 1..{units}, so id {units} is past the {units}-unit output",
            place=place,
            evidence=f"{evidence}; column 0 of `{y.text}` holds no 1"
            + (f"; `{y.text} = {made}`" if made else ""),
            hint=f"make the ids start at 0: {fix} (or give the output {labels[-1]} units only "
            "if there really is a class 0)",
        ),
        (),
    )


def label_mode(ctx: ErrorContext) -> tuple[str, str] | None:
    """(dataset, label_mode) when the failing line's data is a dataset the cell made with a
    directory builder: its ``label_mode=`` as written, or the builder's default "int"."""
    for maker in ctx.read(read_data_makers) or ():
        if maker.used and maker.api.endswith("_dataset_from_directory"):
            mode = maker.keyword("label_mode")
            if mode is None:
                return maker.name, "int"
            if mode[:1] in "'\"":
                return maker.name, mode.strip("'\"")
    return None


def single_unit(ctx: ErrorContext, batch: list[int], place: str) -> Explained | None:
    """M03: a sparse categorical loss over a 1-unit output (one class: its softmax is always 1)
    with 0/1 labels, a binary task given a categorical loss."""
    labels = ctx.labels
    seen = {int(v) for v in labels.values} if labels is not None and labels.values else set()
    if not batch or not set(batch) | seen <= {0, 1} or len(ctx.trained) != 1:
        return None
    model = ctx.trained[0]
    activation = model.output_activation or "linear"
    layer = output_head(ctx) or " of the model"
    return (
        finding(
            "M03",
            f"sparse_categorical_crossentropy over the 1-unit {activation} output{layer}: a "
            "categorical loss over a single unit has one class, and the 0/1 labels name two",
            place=place,
            evidence=f"output layer{layer}: 1 unit, activation {activation}; loss "
            f"{model.loss}; labels in this batch: {' '.join(map(str, batch[:16]))}",
            hint=f"for a yes/no label keep the 1-unit output{layer} "
            + ("" if activation == "sigmoid" else "with activation='sigmoid' ")
            + "and use loss='binary_crossentropy'; or give it 2 units with "
            "activation='softmax' and keep the sparse loss",
        ),
        (),
    )


def output_head(ctx: ErrorContext) -> str:
    """`` 'predictions'``: the name of the one trained model's output layer, or ""."""
    layer = ctx.trained[0].output_layer if len(ctx.trained) == 1 else ""
    return f" '{layer}'" if layer else ""


def categorical_labels(
    labels: tuple[int | None, ...],
    output: tuple[int | None, ...],
    units: int,
    loss: str,
    place: str,
    evidence: str,
    info: LabelInfo | None,
    head: str = "",
    mode: tuple[str, str] | None = None,
) -> Explained | None:
    """M05 for class ids given to a categorical loss, M04 for one-hot labels of another width;
    ``mode`` is the (dataset, label_mode) of a directory builder that made the labels."""
    ids = same_shape(labels, output[:-1])
    column = len(labels) == len(output) and labels[-1] == 1 and units > 1
    if ids or column:
        return (
            finding(
                "M05",
                f"{loss} got integer class ids {fmt_shape(labels)} where it wants one-hot labels "
                f"{fmt_shape(output)}",
                place=place,
                evidence=evidence,
                hint=(
                    f"build `{mode[0]}` with label_mode='categorical' (its label_mode "
                    "'int' gives class ids), or use loss='sparse_categorical_crossentropy'"
                    if mode is not None and mode[1] == "int"
                    else "use loss='sparse_categorical_crossentropy' with these class ids, or "
                    "one-hot encode them "
                    f"(`keras.utils.to_categorical({info.name if info else 'y'}, {units})`)"
                ),
            ),
            (),
        )
    if len(labels) == len(output) and labels[-1] is not None and labels[-1] != units:
        return (
            finding(
                "M04",
                f"the output layer{head} has {units} units but the one-hot labels have "
                f"{labels[-1]} classes",
                place=place,
                evidence=evidence,
                hint=(
                    f"give the output layer {labels[-1]} units (one per class); only if there "
                    f"are just {units} classes, one-hot encode the labels with "
                    f"`keras.utils.to_categorical(ids, num_classes={units})`"
                    if labels[-1] > units
                    else f"one-hot encode the labels with the class count: "
                    f"`keras.utils.to_categorical(ids, num_classes={units})` (without "
                    "num_classes it counts up to the largest id present); or, if there are only "
                    f"{labels[-1]} classes, give the output layer {labels[-1]} units"
                ),
            ),
            (),
        )
    return None


def half_precision_output(ctx: ErrorContext, have: str, want: str) -> Explained | None:
    """S05: under a mixed precision policy the model's output layer computes in float16 (or
    bfloat16), and the float32 labels meet it in the loss."""
    pair = {dtype_name(have), dtype_name(want)}  # the eager message writes "half", "float"
    half = next((d for d in ("float16", "bfloat16") if d in pair), None)
    if half is None or "float32" not in pair:
        return None
    for model in ctx.evidence.layer_dtypes:
        halves = [name for name, dtype in model.outputs if dtype == half]
        if not model.policy.startswith("mixed") or not halves:
            continue
        layer = halves[0]
        return (
            finding(
                "S05",
                f"under the {model.policy} policy the output layer '{layer}' of model "
                f"'{model.name}' computes in {half}, and the float32 labels meet its {half} "
                "predictions in the loss",
                place=f"layer '{layer}'",
                evidence=f"{model.name} policy {model.policy}; outputs "
                + ", ".join(f"'{n}' {d}" for n, d in model.outputs),
                hint=f"keep the output in float32: give layer '{layer}' `dtype=\"float32\"` "
                f'(e.g. `keras.layers.Dense(..., name="{layer}", dtype="float32")`), or end '
                'the model with `keras.layers.Activation("linear", dtype="float32")`; the loss '
                "is then computed in float32, as mixed precision needs",
            ),
            (),
        )
    return None


def odd_named_operand(
    ctx: ErrorContext, op: str, have: str, want: str, place: str
) -> Explained | None:
    """S11: the one name on the failing line whose dtype is the odd one of a float clash
    (``class_weights`` float64 from NumPy, ``logits`` float16 from a mixed-precision model)."""
    pair = {dtype_name(have), dtype_name(want)}
    odd = next((d for d in pair if d != "float32"), None)
    if "float32" not in pair or odd not in ("float64", "float16", "bfloat16"):
        return None
    named = [n for n, d in ctx.evidence.line_dtypes if d == odd]
    if len(named) != 1:
        return None
    name = named[0]
    if odd == "float64":
        hint = (
            f"make `{name}` float32 where it is made (`tf.constant(..., dtype=tf.float32)`, "
            f"`.astype('float32')` on the NumPy array), or cast it, `tf.cast({name}, tf.float32)`"
        )
        why = "NumPy's default float type"
    else:
        hint = (
            f"give the layer that makes `{name}` dtype='float32' (the output layer, under a "
            f"mixed precision policy), or cast it before the loss, `tf.cast({name}, tf.float32)`"
        )
        why = "a mixed precision computation's dtype"
    return (
        finding(
            "S11",
            f"{op} in a loss mixes {have} and {want} tensors: `{name}` is {odd} ({why}), the "
            "other operand float32",
            place=place,
            evidence=f"{op}: {have} vs {want}; "
            + ", ".join(f"`{n}` {d}" for n, d in ctx.evidence.line_dtypes[:6]),
            hint=hint,
        ),
        (),
    )


def binary_labels(
    labels: tuple[int | None, ...],
    output: tuple[int | None, ...],
    units: int,
    loss: str,
    activation: str,
    place: str,
    evidence: str,
    info: LabelInfo | None,
    layer: str = "",
) -> Explained | None:
    """M03, M04 or M05: a binary cross-entropy's labels against the output layer (``layer``):
    one label per example for several softmax units, label columns of another count than the
    sigmoid units, or one-hot rows for one unit."""
    # one value per example: (batch,) or a column (batch, 1) against (batch, units)
    per_example = same_shape(labels, output[:-1]) or (
        len(labels) == len(output) > 1 and labels[-1] == 1 and same_shape(labels[:-1], output[:-1])
    )
    if per_example and units > 1:
        classes = int(info.high) + 1 if info and info.whole and info.high is not None else None
        multiclass = classes is not None and classes > 2
        if multiclass and "focal" in loss:
            fix = (
                f"the labels hold {classes} classes: keep Dense({units}, activation='softmax') "
                "with keras.losses.CategoricalFocalCrossentropy() and one-hot labels "
                f"(`keras.utils.to_categorical({(info.name if info else 'y')}, {classes})`), or with "
                "loss='sparse_categorical_crossentropy' and the ids as they are"
            )
        elif multiclass:
            fix = (
                f"the labels hold {classes} classes: use Dense({units}, activation='softmax') "
                "with loss='sparse_categorical_crossentropy'"
            )
        else:
            fix = (
                "for two classes use one output unit, Dense(1, activation='sigmoid'), with this "
                f"loss; or keep {units} units with softmax and loss="
                "'sparse_categorical_crossentropy'"
            )
        if activation == "softmax":
            return _pair(
                finding(
                    "M03",
                    f"{loss} on a {units}-unit softmax: a binary loss scores each unit on its own, "
                    "and the labels have one value per example",
                    place=place,
                    evidence=evidence,
                    hint=fix,
                )
            )
        return _pair(
            finding(
                "M04",
                f"{loss} got one label per example {fmt_shape(labels)} but the output layer has "
                f"{units} units",
                place=place,
                evidence=evidence,
                hint=fix,
            )
        )
    columns = labels[-1] if len(labels) == len(output) > 1 else None
    binary_rows = info is not None and info.whole and info.low == 0 and info.high == 1
    if units > 1 and columns not in (None, 1, units) and binary_rows and activation != "softmax":
        layer = f" '{layer}'" if layer else ""
        return _pair(  # 0/1 columns, one per label, against another count of sigmoid units
            finding(
                "M04",
                f"the labels `{(info.name if info else 'y')}` have {columns} 0/1 columns (one per label), but "
                f"the output layer{layer} has {units} units",
                place=place,
                evidence=evidence,
                hint=f"give the output layer{layer} {columns} units, one per label column "
                f"(`Dense({(info.name if info else 'y')}.shape[1], activation='sigmoid')`), or drop the label "
                "columns the model is not meant to predict",
            )
        )
    if len(labels) == len(output) and units == 1 and labels[-1] not in (None, 1):
        return _pair(
            finding(
                "M05",
                f"{loss} got one-hot labels {fmt_shape(labels)} for a 1-unit output: it wants one "
                "0/1 value per example",
                place=place,
                evidence=evidence,
                hint=f"pass the class ids (`np.argmax({(info.name if info else 'y')}, axis=-1)`), or use "
                f"Dense({labels[-1]}, activation='softmax') with loss='categorical_crossentropy'",
            )
        )
    return None


def _pair(found: Finding) -> Explained:
    return (found, ())
