"""Evidence for shape findings from the data and the model around the failing op: a table's
columns (the target left in, a saved index, one-hot columns of a test table), an operand of
class ids against one with a class axis (one-hot labels, sample weights per class, an
accuracy over ids), and a batch size the model fixes (a stateful RNN's last short batch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfnb_debug.explain._call import CallInfo
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain._frame_peers import frame_against_peer
from tfnb_debug.ground.reports import Finding, finding


def table_width(ctx: ErrorContext, value: int, received: tuple[int | None, ...]) -> str:
    """The columns of a DataFrame ``x`` that make it wider than the model's input: the target
    column(s) of ``y`` left in, or the saved index of a CSV (``Unnamed: 0``); "" when no
    column of the table accounts for the extra width."""
    if not received or received[-1] is None:
        return ""
    # else the table the model was fit on, in the namespace, against this one
    peer = ctx.read(frame_against_peer, value, received[-1]) or ""
    call = ctx.evidence.call
    if call is None:
        return peer
    x, y = call.arg(0, "x"), call.arg(1, "y")
    if x is None or x.kind != "dataframe" or not x.keys or len(x.keys) != received[-1]:
        return peer
    extra = len(x.keys) - value
    targets = [k for k in (y.keys if y is not None and y.kind in ("series", "dataframe") else ())]
    left_in = [k for k in targets if k in x.keys]
    index = [k for k in x.keys if k.startswith("Unnamed:")]
    for columns, why in ((left_in, "the target the model learns"), (index, "a saved row index")):
        if columns and len(columns) == extra:
            listed = ", ".join(repr(c) for c in columns)
            return (
                f"`{x.text}` still holds {listed}, {why}: it has {len(x.keys)} columns and the "
                f"model takes {value}; drop {'it' if len(columns) == 1 else 'them'} from the "
                f"features, e.g. `.drop(columns=[{listed}])`"
                + (" (or read the CSV with index_col=0)" if columns is index else "")
            )
    groups: dict[str, list[str]] = {}
    for key in x.binary_columns:
        prefix, _, value_name = key.rpartition("_")
        if prefix and value_name:
            groups.setdefault(prefix, []).append(key)
    dummies = [cols for cols in groups.values() if len(cols) >= 2]
    if dummies and call.method in ("predict", "evaluate", "predict_on_batch", "__call__"):
        # new data against a model fit on other columns: a table encoded on its own
        shown = ", ".join(dummies[0][:4])
        peer = next(((n, c) for n, c in x.peers if len(c) == value), None)
        if peer is not None:
            peer_name, peer_columns = peer
            lacks = [c for c in peer_columns if c not in x.keys]
            surplus = [c for c in x.keys if c not in peer_columns]
            listed = ", ".join(repr(c) for c in lacks[:4]) + (", ..." if len(lacks) > 4 else "")
            return (
                f"`{x.text}` has {len(x.keys)} columns and the model takes {value}, the columns "
                f"of `{peer_name}`: `{x.text}` lacks {listed}"
                + (
                    f" and has {', '.join(repr(c) for c in surplus[:4])} that `{peer_name}` has not"
                    if surplus
                    else ""
                )
                + " (one-hot encoded on its own, a table gets a column only for the values it "
                f"holds): align it, `{x.text} = {x.text}.reindex(columns={peer_name}.columns, "
                "fill_value=0)`, or encode the tables together"
            )
        return (
            f"`{x.text}` has {len(x.keys)} columns and the model takes {value}; its columns look "
            f"one-hot encoded per value ({shown}): encoded on its own (pd.get_dummies), a table "
            "gets a column only for the values it holds. Align it to the training columns: "
            f"`{x.text} = {x.text}.reindex(columns=train_columns, fill_value=0)` (train_columns: "
            "the columns the model was fit on), or encode train and test together"
        )
    return peer


def _dims_of(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(d) for d in text.split(",") if d.strip())
    except ValueError:
        return None


@dataclass(frozen=True)
class ClassAxis:
    """What a class-ids-against-class-axis clash means here: the finding's parts."""

    code: str  # S07 (sample weights, an accuracy) or M05 (a loss of the user's on ids)
    message: str
    evidence: str
    hint: str
    place: str = ""  # the loss, for M05; "" to place it at the op


def class_axis(
    ctx: ErrorContext, op: str, owner: str, node: str, a_text: str, b_text: str
) -> ClassAxis | None:
    """One operand is class ids (batch,), the other has a class axis (batch, classes): the
    labels' encoding does not fit what the loss or metric does with them."""
    a, b = _dims_of(a_text), _dims_of(b_text)
    if a is None or b is None:
        return None
    ids, rows = (a, b) if len(a) < len(b) else (b, a)
    if len(rows) != len(ids) + 1 or rows[:-1] != ids or rows[-1] < 2:
        return None
    classes = rows[-1]
    shapes = f"[{a_text}] vs [{b_text}]"
    call = ctx.evidence.call
    weights = call.arg(99, "sample_weight") if call is not None else None
    own_loss = next((m.loss for m in ctx.trained if m.loss_source), "")
    if weights is not None and weights.shape is not None and weights.shape[-1:] == (classes,):
        return ClassAxis(
            "S07",
            f"`sample_weight` has shape {fmt_shape(weights.shape)}, a weight per class of each "
            f"sample, and the loss multiplies it with its one value per sample",
            f"shapes {shapes}; `{weights.text}` {fmt_shape(weights.shape)}",
            f"give one weight per sample: `sample_weight=({weights.text}).sum(axis=1)` for "
            "one-hot weighting rows (each sample's class weight), or pass the per-class weights "
            "as class_weight={class: weight}",
        )
    if own_loss and ("loss" in owner or "loss" in node):
        return ClassAxis(
            "M05",
            f"the loss `{own_loss}` combines the labels with the predictions element by "
            f"element, so it takes one-hot labels ({ids[0] if ids else 'batch'}, {classes}); "
            "the labels are class ids (one per sample)",
            f"shapes {shapes}" + (f"; node {node}" if node else ""),
            f"one-hot encode the labels (`keras.utils.to_categorical(y, {classes})`), "
            "or use loss='sparse_categorical_crossentropy', which takes class ids",
            place=f"loss '{own_loss}'",
        )
    one_hot = _one_hot_argument(call, rows)
    op = re.sub(r"_\d+$", "", op)  # Equal_1: the second Equal of the graph
    sparse = [m for t in ctx.trained for m in t.metrics if re.search(r"(?i)sparse.*accuracy", m)]
    rows_given = one_hot or _one_hot_argument(call, rows, any_count=True)
    if op == "Equal" and rows_given and len(sparse) == 1:
        return ClassAxis(
            "M05",
            f"the metric `{sparse[0]}` takes class ids, but the labels `{rows_given}` are "
            f"one-hot (a row of {classes} 0/1 values per example): it compares each row with "
            "the predicted class id",
            f"shapes {shapes}; `{rows_given}` holds only 0 and 1; metrics={list(sparse)}",
            f"keep the one-hot labels and use metrics=['categorical_accuracy'] (or "
            f"'accuracy', which Keras matches to the labels and the loss) instead of "
            f"'{sparse[0]}'",
            place=f"metric '{sparse[0]}'",
        )
    if op == "Equal" and one_hot:
        return ClassAxis(
            "S07",
            f"{op} compares class ids with `{one_hot}` {fmt_shape(rows)}, one-hot labels (a row "
            f"of 0/1 per example): [{a_text}] vs [{b_text}]",
            f"shapes {shapes}; `{one_hot}` holds only 0 and 1",
            f"compare class ids with class ids: `tf.argmax({one_hot}, axis=-1)` (or keep the "
            "labels as ids from the start)",
        )
    if op == "Equal" or "accuracy" in (owner + node).lower():
        return ClassAxis(
            "S07",
            f"{op} compares class ids with per-class scores: [{a_text}] vs [{b_text}]",
            f"shapes {shapes}",
            "an accuracy over class ids and per-class scores is "
            "keras.metrics.SparseCategoricalAccuracy() (or compare with "
            "tf.argmax(y_pred, axis=-1)); Accuracy() compares values one by one",
        )
    return None


def _one_hot_argument(
    call: CallInfo | None, rows: tuple[int, ...], *, any_count: bool = False
) -> str:
    """The failing call's argument of shape ``rows`` (of any sample count with ``any_count``,
    a batch's rows being a part of it) that holds only whole values in [0, 1] (one-hot
    labels), by its text; "" when none."""
    found = (
        a.text
        for a in (call.nested_args() if call is not None else ())
        if a.shape is not None
        and (a.shape == rows or (any_count and a.shape[1:] == rows[1:] and len(a.shape) > 1))
        and a.whole
        and a.low == 0
        and a.high == 1
    )
    return next(found, "")


def fixed_batch(ctx: ErrorContext, a_text: str, b_text: str) -> str | None:
    """A batch-axis mismatch in a model whose batch size is fixed (a stateful RNN, an Input
    with batch_size): the last batch of the data is smaller."""
    a, b = _dims_of(a_text), _dims_of(b_text)
    if not a or not b or len(a) != len(b) or a[1:] != b[1:] or a[0] == b[0]:
        return None
    fixed = next((m for m in ctx.trained if m.batch_size), None)
    if fixed is None or fixed.batch_size not in (a[0], b[0]):
        return None
    size = fixed.batch_size
    last = b[0] if a[0] == size else a[0]
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None else None
    samples = x.samples if x is not None else None
    count = f"{samples} samples" if samples else "the data's sample count"
    why = f" ({', '.join(fixed.stateful)} stateful)" if fixed.stateful else ""
    cut = f"x[:{samples - samples % size}]" if samples else f"x[: len(x) // {size} * {size}]"
    return (
        f"model '{fixed.name}' has a fixed batch size of {size}{why}, set by its Input's "
        f"batch_shape/batch_size, and {count} {'leave' if samples else 'leaves'} a last "
        f"batch of {last}: feed a multiple of {size} samples ({cut} and the same for y), or "
        "batch a dataset with drop_remainder=True"
    )


def sample_counts(
    ctx: ErrorContext, labels: tuple[int | None, ...], output: tuple[int | None, ...]
) -> tuple[Finding, tuple[()]] | None:
    """S12: labels and output that differ only in their first axis, because the call's x and y
    hold different numbers of samples (``train_on_batch`` does not compare them first)."""
    call = ctx.evidence.call
    if call is None or labels[1:] != output[1:] or None in (labels[0], output[0]):
        return None
    x, y = call.arg(0, "x"), call.arg(1, "y")
    rows = [a.shape[0] if a is not None and a.shape else None for a in (x, y)]
    if (
        x is None
        or y is None
        or None in rows
        or rows[0] == rows[1]
        or rows != [output[0], labels[0]]
    ):
        return None
    return (
        finding(
            "S12",
            f"`{x.text}` holds {rows[0]} samples and `{y.text}` {rows[1]}: the labels must have "
            f"one row per sample of x",
            place=ctx.where(call.filename, call.lineno),
            evidence=f"`{x.text}` {fmt_shape(x.shape or ())}, `{y.text}` {fmt_shape(y.shape or ())}"
            f"; target.shape={fmt_shape(labels)}, output.shape={fmt_shape(output)}",
            hint=f"build `{y.text}` with as many rows as `{x.text}` (one label per sample, in "
            "the same order), or give the call as many samples as labels",
        ),
        (),
    )


def strip_op_scope(scope: str, op: str) -> str:
    """TF nests an op in a scope of its own name (``mse/sub/sub``); drop that repeat."""
    parts = scope.split("/")
    if parts and parts[-1].lower() == op.lower():
        parts = parts[:-1]
    return "/".join(parts)
