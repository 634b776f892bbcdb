"""Label errors in losses: class ids out of range (P12), label dtype the loss rejects (S06)."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, scope_owner, split_node
from tfnb_debug.explain.report import NextStep
from tfnb_debug.reports import Finding, finding

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
    if match is None:
        return None
    value, classes = int(match.group(1)), int(match.group(2))
    labels = [int(v) for v in match.group(3).split() if v.lstrip("-").isdigit()]
    place = _loss_place(ctx, "SparseSoftmaxCrossEntropyWithLogits")
    low, high = (min(labels), max(labels)) if labels else (value, value)
    if labels and low >= 1 and high == classes:
        hint = (
            f"the labels look 1-based (they run from {low} to {high}): subtract 1 so they run "
            f"from 0 to {classes - 1}"
        )
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
    if have.startswith("int") or want.startswith("int"):
        labels_dtype = have if have.startswith("int") else want
        hint = (
            f"cast the integer labels to the prediction dtype before the arithmetic: "
            f"y_true = tf.cast(y_true, y_pred.dtype) ({labels_dtype} labels meet float predictions)"
        )
    else:
        hint = "cast both operands to one dtype with tf.cast before the loss arithmetic"
    return (
        finding(
            "S06",
            f"{op} in a loss mixes {have} and {want} tensors: labels and predictions have "
            "different dtypes",
            place=loss,
            evidence=f"{op}: {have} vs {want}",
            hint=hint,
        ),
        (),
    )


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
