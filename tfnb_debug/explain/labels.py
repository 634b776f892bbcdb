"""Label errors in losses: class ids out of range (P12), label dtype the loss rejects (S06)."""

from __future__ import annotations

import linecache
import re

from tfnb_debug.explain._assignments import assigned_before, assigned_from
from tfnb_debug.explain._context import (
    ErrorContext,
    LabelInfo,
    dtype_name,
    fmt_shape,
    keras_loss_function,
    same_shape,
    scope_owner,
    split_node,
    target_output_shapes,
)
from tfnb_debug.explain._label_count import (
    binary_labels,
    categorical_labels,
    class_count,
    dropped_class,
    half_precision_output,
    label_mode,
    odd_named_operand,
    output_head,
    shifted_ids,
    single_unit,
)
from tfnb_debug.explain._operands import enclosing_parameters, odd_operand
from tfnb_debug.explain._output_pairing import output_pairing
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_OUT_OF_RANGE = re.compile(
    r"Received a label value of (-?\d+) which is outside the valid range of \[0, (\d+)\)\.\s*"
    r"Label values:([-\d\s]*)"
)
_TLABELS = re.compile(
    r"Value for attr 'Tlabels' of (\w+) is not in the list of allowed values: ([\w, ]+)"
)
_EAGER_DTYPE = re.compile(
    r"cannot compute (\w+) as input #(\d+)\(zero-based\) was expected to be a (\w+) tensor "
    r"but is a (\w+) tensor"
)
_GRAPH_DTYPE = re.compile(
    r"Input '(\w+)' of '(\w+)' Op has type (\w+) that does not match type (\w+) of argument '(\w+)'"
)
_LOSS_WORDS = re.compile(r"loss|label|y_true|crossentropy|target", re.I)


def label_out_of_range(ctx: ErrorContext) -> Explained | None:
    """P12: a sparse loss got a class id outside [0, number of outputs)."""
    match = _OUT_OF_RANGE.search(ctx.text)
    if match is None or _paired_otherwise(ctx):
        return None
    value, classes = int(match.group(1)), int(match.group(2))
    labels = [int(v) for v in match.group(3).split() if v.lstrip("-").isdigit()]
    place = _loss_place(ctx, "SparseSoftmaxCrossEntropyWithLogits")
    low, high = (min(labels), max(labels)) if labels else (value, value)
    lookup = _label_lookup(ctx)
    counted = (single_unit(ctx, labels, place) if classes == 1 else None) or class_count(
        ctx, value, classes, place
    )
    if counted is not None:
        return counted
    if lookup is not None and labels and low >= 1 and high == classes:
        # a StringLookup/IntegerLookup keeps index 0 (num_oov_indices=1) for unknown values
        name, size = lookup
        hint = (
            f"the labels come from the lookup layer `{name}` ({size} indices), which keeps "
            f"index 0 for out-of-vocabulary values, so the {classes} classes are 1..{classes}: "
            f"build it with `num_oov_indices=0` (ids 0..{classes - 1}), or give the output "
            f"{size} units"
        )
    elif labels and low >= 1 and high == classes:
        hint = (
            f"the labels look 1-based (they run from {low} to {high}): subtract 1 so they run "
            f"from 0 to {classes - 1}"
        )
    elif (ids := _id_column(ctx, labels, classes)) is not None:
        hint = ids
    elif value >= classes:
        hint = (
            f"the output layer has {classes} units but the labels go up to at least {value}: give "
            f"the last layer {max(high, value) + 1} units (one per class), or re-map the labels to "
            f"0..{classes - 1}"
        )
    else:
        hint = f"labels must be class ids in 0..{classes - 1}: negative ids (padding/ignore markers?) must be removed or masked"
    shown = " ".join(str(v) for v in labels[:16]) + (" ..." if len(labels) > 16 else "")
    return (
        finding(
            "P12",
            f"a label value of {value} is outside the valid range [0, {classes}) of a "
            f"{classes}-class output",
            place=place,
            evidence=f"labels in this batch: {shown}" if labels else f"label {value}",
            hint=hint,
        ),
        (
            NextStep(
                text="check the label range of the whole dataset: `np.unique(y)` (or iterate the "
                "tf.data pipeline) and compare with the number of output units"
            ),
        ),
    )


def _id_column(ctx: ErrorContext, labels: list[int], classes: int) -> str | None:
    """The hint when every label of the batch differs, far more values than classes: the labels
    are a column of ids (or another column), not class ids."""
    if len(labels) < 8 or len(set(labels)) != len(labels) or len(labels) <= 2 * classes:
        return None
    call = ctx.evidence.call
    y = call.arg(1, "y") if call is not None else None
    name = f" `{y.text}`" if y is not None else ""
    column = (
        f" (the column '{y.keys[0]}')" if y is not None and y.kind == "series" and y.keys else ""
    )
    return (
        f"every label in the batch is different ({len(labels)} of {len(labels)}): the "
        f"labels{name}{column} look like ids or another column, not class ids of a "
        f"{classes}-class output: take the target column (by name, `df['<target>']`)"
    )


def label_dtype(ctx: ErrorContext) -> Explained | None:
    """S06: labels reach a loss with a dtype it does not accept."""
    text = ctx.text
    tlabels = _TLABELS.search(text)
    if tlabels is not None:
        return (
            finding(
                "S06",
                f"a sparse cross-entropy got {tlabels.group(1)} labels; it needs integer class "
                f"ids ({tlabels.group(2).strip()})",
                place=_loss_place(ctx, "SparseSoftmaxCrossEntropyWithLogits"),
                evidence=f"labels dtype {tlabels.group(1)}",
                hint="cast the labels to integers: labels = tf.cast(labels, tf.int32) "
                "(or y.astype('int32') before building the dataset)",
            ),
            (),
        )
    mismatch = _dtype_mismatch(text)
    if mismatch is None:
        return None
    op, have, want = mismatch
    loss = _loss_evidence(ctx)
    if loss is None:
        return None  # a dtype clash that is not about labels and a loss: not S06
    half = half_precision_output(ctx, have, want) or odd_named_operand(ctx, op, have, want, loss)
    if half is not None:
        return half
    if have.startswith("int") or want.startswith("int"):
        labels_dtype = have if have.startswith("int") else want
        hint = (
            f"cast the integer labels to the prediction dtype before the arithmetic: "
            f"y_true = tf.cast(y_true, y_pred.dtype) ({labels_dtype} labels meet float predictions)"
        )
    else:
        hint = "cast both operands to one dtype with tf.cast before the loss arithmetic"
    message = (
        f"{op} in a loss mixes {have} and {want} tensors: labels and predictions have "
        "different dtypes"
    )
    users = _users_arithmetic(ctx)
    if users and _odd_operand_made_elsewhere(ctx, op, have, want):
        return None  # a value of the user's loss code, not its labels: S11 by dtype_mismatch
    if users:
        # the user's own loss or metric code did the arithmetic: an op that cannot mix dtypes
        # (S11); S06 is for a library loss given labels of a dtype it does not take
        return (
            finding("S11", message, place=loss, evidence=f"{op}: {have} vs {want}", hint=hint),
            (),
        )
    return (
        finding("S06", message, place=loss, evidence=f"{op}: {have} vs {want}", hint=hint),
        (),
    )


def _label_lookup(ctx: ErrorContext) -> tuple[str, int] | None:
    """(name, vocabulary size) of the lookup layer whose call made the fit's labels
    (``y = to_id(names)`` above the call), or None."""
    info, call = ctx.labels, ctx.evidence.call
    if info is None or call is None or not info.name.isidentifier():
        return None
    made = assigned_before(info.name, call.filename, call.lineno)
    found = re.match(r"\s*(\w+)\(", made)
    if found is None:
        return None
    return next(((n, size) for n, size in ctx.evidence.vocabularies if n == found.group(1)), None)


_LIBRARY_LOSS_CALL = re.compile(
    r"\b(?:tf\.nn|keras\.losses|tf\.keras\.losses|keras\.ops)\.\w+\s*\(|"
    r"\b\w*(?:crossentropy|cross_entropy|_with_logits)\w*\s*\("
)


def _odd_operand_made_elsewhere(ctx: ErrorContext, op: str, have: str, want: str) -> bool:
    """The odd operand of the user's failing line is a name that is not a parameter of the
    function around it (a constant or weight the loss code made, not ``y_true``/``y_pred``)."""
    line = ctx.user_code_line()
    if line is None:
        return False
    name = odd_operand(line[3], op, dtype_name(have), dtype_name(want))
    params = enclosing_parameters(line[0], line[1]) if name else None
    return params is not None and name not in params


def _users_arithmetic(ctx: ErrorContext) -> bool:
    """The clashing op is the user's own arithmetic (a hand-written loss, metric or loop), not
    an op inside a library loss: a compiled loss defined in the user's code, or, eagerly, a
    user line that does the arithmetic itself rather than calling a TensorFlow/Keras loss
    (TensorFlow filters its own frames out, so the user's line is the evidence)."""
    if any(model.loss_source for model in ctx.trained):
        return True
    users = ctx.user_frames()
    if not users or ctx.node():
        return False
    return _LIBRARY_LOSS_CALL.search(users[-1].source) is None


def _dtype_mismatch(text: str) -> tuple[str, str, str] | None:
    eager = _EAGER_DTYPE.search(text)
    if eager is not None:
        return eager.group(1), eager.group(4), eager.group(3)
    graph = _GRAPH_DTYPE.search(text)
    if graph is not None:
        return graph.group(2), graph.group(3), graph.group(4)
    return None


def _loss_evidence(ctx: ErrorContext) -> str | None:
    """Where a loss is evident: a graph scope, or a user frame whose name or line is about a loss."""
    node = ctx.node()
    if node and _LOSS_WORDS.search(node):
        return f"op {split_node(node)[1]} in {scope_owner(split_node(node)[0])}"
    for frame in reversed(ctx.user_frames()):
        if _LOSS_WORDS.search(frame.function) or _LOSS_WORDS.search(frame.source):
            return ctx.where(frame.filename, frame.lineno, frame.function) + (
                f": `{frame.source}`" if frame.source else ""
            )
    return None


def _loss_place(ctx: ErrorContext, default_op: str) -> str:
    node = ctx.node()
    if node:
        scope, op = split_node(node)
        parts = [p for p in scope.split("/") if p != op]
        owner = scope_owner("/".join(parts))
        return f"op {op} in {owner}" if owner else f"op {op}"
    user = ctx.user_code_line()
    place = f"op {ctx.eager_op() or default_op}"
    if user is not None:
        place += f", called from {ctx.where(user[0], user[1], user[2])}"
    return place


_CATEGORICAL = ("categorical_crossentropy", "categorical_focal_crossentropy")
_SPARSE = ("sparse_categorical_crossentropy",)
_BINARY = ("binary_crossentropy", "binary_focal_crossentropy")


_LOSS_CALL = re.compile(
    r"\b(sparse_categorical_crossentropy|categorical_focal_crossentropy|categorical_crossentropy|"
    r"binary_focal_crossentropy|binary_crossentropy)\s*\("
)
_LOSS_CLASS = re.compile(r"\b(Sparse)?(Categorical|Binary)(Focal)?Crossentropy\s*\(")


def _loss_on_user_line(ctx: ErrorContext) -> str:
    """The Keras loss the failing user line calls (a hand-written loss that wraps
    ``keras.losses.categorical_crossentropy``), as its function name; "" when none."""
    line = ctx.user_code_line()
    source = line[3] if line else ""
    found = _LOSS_CALL.search(source)
    if found is not None:
        return found.group(1)
    cls = _LOSS_CLASS.search(source)
    if cls is None:
        return ""
    parts = [p.lower() for p in cls.groups() if p]
    return "_".join(parts) + "_crossentropy"


def _steps_off_by_one(
    ctx: ErrorContext, labels: tuple[int | None, ...], output: tuple[int | None, ...]
) -> tuple[str, str] | None:
    """(problem, hint) when per-step targets are one step longer than a sequence model's
    output: the decoder input was cut by one token (teacher forcing) and the targets were not."""
    if len(labels) < 2 or len(output) < 3 or labels[1] is None or output[1] is None:
        return None
    if labels[1] != output[1] + 1:
        return None
    call = ctx.evidence.call
    args = [item for arg in (call.args if call else ()) for item in (arg, *arg.items)]
    lines = linecache.getlines(call.filename)[: call.lineno - 1] if call else []
    cut = next(
        (a.text for a in args if ":-1]" in a.text or ":-1]" in assigned_from(a.text, lines)),
        "",
    )
    target = call.arg(1, "y") if call is not None else None
    name = target.text if target is not None else "the targets"
    why = (
        f": the decoder reads `{cut}` (its tokens but the last), so it predicts the tokens after "
        "the first"
        if cut
        else ""
    )
    return (
        f"the targets `{name}` have {labels[1]} steps per sequence and the model outputs "
        f"{output[1]}{why}",
        f"train on the targets shifted by one, `{name}[:, 1:]` ({output[1]} steps, the next "
        "token at each step)" + ("" if cut else ", or feed the model sequences one step longer"),
    )


def loss_output_mismatch(ctx: ErrorContext) -> Explained | None:
    """M05, M04 or M03: a classification loss's labels do not fit the output layer.

    Read from Keras' target/output shape check, the loss that raised it, the
    output layer's activation and, when the call was given arrays, the labels
    themselves.  Anything else (a regression loss, shapes that only say an axis
    is missing) is left to S07.
    """
    shapes = target_output_shapes(ctx)
    if shapes is None or _paired_otherwise(ctx):
        return None
    labels, output = shapes
    model = ctx.trained[0] if len(ctx.trained) == 1 else None
    loss = keras_loss_function(ctx) or _loss_on_user_line(ctx) or (model.loss if model else "")
    activation = model.output_activation if model else ""
    if None in output[-1:] or not labels or not output:
        return None
    head = model.output_of_shape(output) if model else None
    if head is not None:
        activation = head[1] or activation
    units = int(output[-1])  # type: ignore[arg-type]
    evidence = f"target.shape={fmt_shape(labels)}, output.shape={fmt_shape(output)}" + (
        f", output activation {activation}" if activation else ""
    )
    info = ctx.labels
    if info is not None and info.low is not None:
        evidence += (
            f"; labels `{info.name}`: {info.dtype} {fmt_shape(info.shape)}, values "
            f"{_num(info.low)}..{_num(info.high)}"
        )
    # a focal loss raises from the cross-entropy it wraps: name the one the user compiled
    focal = model is not None and "focal" in model.loss and "focal" not in loss
    shown = model.loss if model is not None and focal else loss
    place = (
        f"loss '{shown}'"
        + (f" of output '{head[0]}'" if head else "")
        + (f" of model '{model.name}'" if model else "")
    )
    if loss in _CATEGORICAL:
        validation = _validation_one_hot(ctx, info, labels, units)
        if validation is not None:
            return _explained(
                finding(
                    "M04",
                    f"the one-hot labels {fmt_shape(labels)} that {loss} got have {labels[-1]} "
                    f"columns, but the training labels `{_name(info)}` and the output have "
                    f"{units}: they are the validation labels (`{validation}`), encoded with "
                    "fewer classes",
                    place=place,
                    evidence=evidence + f"; validation_data={validation}",
                    hint=f"make `{_validation_y(ctx)}` with the training labels' class count: "
                    f"`keras.utils.to_categorical(class_ids, num_classes={units})` (without "
                    "num_classes it counts up to the largest id present in that split)",
                )
            )
        return (
            dropped_class(ctx, labels, output, place, evidence)
            or shifted_ids(ctx, labels, output, place, evidence)
            or categorical_labels(
                labels,
                output,
                units,
                loss,
                place,
                evidence,
                info,
                output_head(ctx),
                label_mode(ctx),
            )
        )
    shifted = _steps_off_by_one(ctx, labels, output)
    if shifted is not None:
        return _explained(
            finding("S07", shifted[0], place=place, evidence=evidence, hint=shifted[1])
        )
    ids = info is not None and info.whole and (info.high or 0) > 1  # class ids, not one-hot
    if loss in _SPARSE and same_shape(labels, output) and info is not None and ids:
        classes, layer = int(info.high or 0) + 1, output_head(ctx) or " of the model"
        return _explained(  # Keras squeezed the axis of a 1-unit output
            finding(
                "M04",
                f"the output layer{layer} makes 1 unit per example (Keras drops that axis: "
                f"{fmt_shape(output)}), but `{info.name}` holds {classes} classes "
                f"(ids 0..{classes - 1})",
                place=place,
                evidence=evidence,
                hint=f"give the output layer{layer} {classes} units with "
                "activation='softmax': the sparse loss takes the class ids as they are",
            )
        )
    if loss in _SPARSE and len(labels) == len(output) and labels[-1] == units and units > 1:
        if info is not None and info.multi_hot_rows and info.shape and len(info.shape) == 2:
            # rows with several 1s: each example has several labels, not one class
            return _explained(
                finding(
                    "M05",
                    f"{loss} takes one class id per example, but `{info.name}` is multi-hot: "
                    f"{info.multi_hot_rows} of {info.shape[0]} rows hold more than one 1 (several "
                    "labels per example)",
                    place=place,
                    evidence=evidence,
                    hint=f"a multi-label output: `Dense({units}, activation='sigmoid')` with "
                    "loss='binary_crossentropy' (one independent yes/no per label), keeping "
                    f"`{info.name}` as it is",
                )
            )
        validation = _validation_labels(ctx, info, output)
        if validation is not None:
            return _explained(
                finding(
                    "M05",
                    f"{loss} got one-hot labels {fmt_shape(labels)}, but the training labels "
                    f"`{info.name if info else 'y'}` are class ids: the one-hot ones are the "
                    f"validation labels (`{validation}`)",
                    place=place,
                    evidence=evidence + f"; validation_data={validation}",
                    hint="encode the validation labels as the training ones: class ids, e.g. "
                    "`validation_data=(x_val, np.argmax(y_val, axis=-1))`",
                )
            )
        return _explained(
            finding(
                "M05",
                f"{loss} got one-hot labels {fmt_shape(labels)}: a sparse loss wants one integer "
                "class id per example",
                place=place,
                evidence=evidence,
                hint="use loss='categorical_crossentropy' with these one-hot labels, or keep the sparse "
                + (
                    f"loss and make `{mode[0]}` with label_mode='int' (it has "
                    f"label_mode='{mode[1]}')"
                    if (mode := label_mode(ctx)) and mode[1] == "categorical"
                    else f"loss and pass class ids (`np.argmax({_name(info)}, axis=-1)`)"
                ),
            )
        )
    if loss in _BINARY:
        layer = head[0] if head else (model.output_layer if model else "")
        if model is not None and model.output_shape and model.output_shape[-1] != units:
            return None  # Keras dropped a 1-unit output's last axis: the size is not units
        return binary_labels(labels, output, units, shown, activation, place, evidence, info, layer)
    return None


def _validation_labels(
    ctx: ErrorContext, info: LabelInfo | None, output: tuple[int | None, ...]
) -> str | None:
    """The validation_data text when the training labels fit the sparse loss (class ids, one
    axis less than the output) and validation_data was given: the one-hot labels are its."""
    call = ctx.evidence.call
    if info is None or call is None or len(info.shape) != len(output) - 1 or not info.whole:
        return None
    validation = call.arg(99, "validation_data")
    return validation.text if validation is not None else None


def _validation_one_hot(
    ctx: ErrorContext, info: LabelInfo | None, labels: tuple[int | None, ...], units: int
) -> str | None:
    """The validation_data text when the training labels are one-hot rows as wide as the output
    but the labels the loss got are not: the narrower ones are the validation labels."""
    call = ctx.evidence.call
    if info is None or call is None or not info.shape or len(info.shape) != len(labels):
        return None
    if info.shape[-1] != units or labels[-1] in (None, units):
        return None
    validation = call.arg(99, "validation_data")
    return validation.text if validation is not None else None


def _validation_y(ctx: ErrorContext) -> str:
    """The source of validation_data's labels (``y_val`` of ``(x_val, y_val)``), else y_val."""
    call = ctx.evidence.call
    validation = call.arg(99, "validation_data") if call is not None else None
    if (
        validation is not None
        and validation.kind in ("tuple", "list")
        and len(validation.items) > 1
    ):
        return validation.items[1].text
    return "y_val"


def _paired_otherwise(ctx: ErrorContext) -> bool:
    """The targets or losses meet other outputs than meant (one cause: that finding only)."""
    return (
        len(ctx.trained) == 1
        and bool(ctx.trained[0].outputs)
        and (ctx.read(output_pairing) is not None)
    )


def _explained(found: Finding) -> Explained:
    return (found, ())


def _name(info: LabelInfo | None) -> str:
    return info.name if info is not None else "y"


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"
