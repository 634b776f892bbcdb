"""The cause upstream of a failed check in the user's own code (S09, P12, S12, S08, M05).

:mod:`._checked_values` reads what the check compared and how it was made; each rule here
turns one kind of those facts into a finding, and says nothing when the facts do not show
the cause:

- ids from a lookup layer checked against the vocabulary's length: the lookup's OOV (and
  mask) ids come first, so its ids run past that length (S09);
- ids or labels that run from 1 to the bound: 1-based (P12 for labels of a model's output,
  S09 for the ids an ``Embedding`` takes); labels past the model's outputs (P12);
- two arrays of different lengths checked to have one row per example (S12);
- a tensor made by ``a - b`` of ``(B,)`` and ``(B, 1)`` checked for its shape: broadcast to
  ``(B, B)`` (S08);
- one-hot labels checked for rank 1 in a step that gives them to a sparse cross-entropy (M05);

and, for a failing line that is not a check (:mod:`._line_origins`), the list a multi-output
model returns given to NumPy (S12), a reduction over the axis the other operand keeps (S07),
a float16 predict result (S05), a function calling the model with ``training=True`` (C01),
a checkpoint restored under other names (C04).
"""

from __future__ import annotations

from tfnb_debug.explain._checked_values import FailedCheck, Operand
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def checked_upstream(ctx: ErrorContext) -> Explained | None:
    """A finding for the mistake behind the user's failed check, from its live operands."""
    check = ctx.failed_check
    if check is None or not check.operands and check.kind not in ("outputs", "training", "ckpt"):
        return None
    place = ctx.where(check.filename, check.lineno, check.function)
    found = {
        "range": _range,
        "count": _count,
        "shape": _broadcast,
        "rank": _encoding,
        "outputs": _several,
        "axis": _reduced,
        "half": _half,
        "training": _training,
        "ckpt": _renamed,
    }[check.kind](check, place)
    return (found, ()) if found is not None else None


def _range(check: FailedCheck, place: str) -> Finding | None:
    ids = check.operands[0]
    bound = check.bound
    if bound is None or ids.low is None or ids.high is None or ids.high < bound:
        return None
    n = int(bound)
    lookup = ids.lookup
    if lookup is not None and lookup.size > n:
        special = f"{lookup.oov} OOV id{'s' if lookup.oov != 1 else ''}" + (
            " and the mask id" if lookup.mask else ""
        )
        first = lookup.size - lookup.vocabulary
        embedding = [f for f in check.feeds if f[1] == "embedding"]
        taken = f" (the model's {embedding[0][3]})" if embedding else ""
        return finding(
            "S09",
            f"`{ids.name}` comes from {lookup.kind} `{lookup.variable}`, whose ids run "
            f"0..{lookup.size - 1}: its {special} come{_s(lookup.oov == 1 and not lookup.mask)} first, so its {lookup.vocabulary} tokens "
            f"take ids {first}..{lookup.size - 1}, and id {ids.high:g} reaches past the bound "
            f"{n} (`{check.bound_text}`){taken}",
            place=place,
            evidence=f"`{ids.name}` runs {ids.low:g}..{ids.high:g}; "
            f"`{lookup.variable}.vocabulary_size()` = {lookup.size} ({lookup.vocabulary} tokens "
            f"+ {special})",
            hint=f"size what takes the ids by the lookup, `{lookup.variable}.vocabulary_size()` "
            f"({lookup.size}), not by the token list: e.g. "
            f"`Embedding({lookup.variable}.vocabulary_size(), ...)`, and check against it",
        )
    labels = [f for f in check.feeds if f[1] == "labels"]
    embedding = [f for f in check.feeds if f[1] == "embedding"]
    as_labels = bool(labels) or check.bound_is_output
    shown = f"`{ids.name}` runs {ids.low:g}..{ids.high:g}"
    if ids.low >= 1 and ids.high == bound and (as_labels or embedding):
        if as_labels:
            return finding(
                "P12",
                f"{shown}: the labels start at 1, and the model's {n} outputs are class ids "
                f"0..{n - 1}, so label {n} has no output unit (and unit 0 no label)",
                place=place,
                evidence=f"{shown} ({ids.distinct} distinct values); the bound `{check.bound_text}` "
                f"is {n}",
                hint=f"shift the labels to start at 0, `{ids.name} = {ids.name} - 1` (then "
                f"0..{n - 1}), and keep {n} outputs",
            )
        return finding(
            "S09",
            f"{shown}: the ids start at 1, so id {n} reaches past the {n} rows of "
            f"{embedding[0][3].split(' ')[0]} ({embedding[0][3]})",
            place=place,
            evidence=f"{shown}; the bound `{check.bound_text}` is {n}",
            hint=f"give the Embedding input_dim={n + 1} (row 0 left for padding), or shift the "
            f"ids to start at 0, `{ids.name} - 1`",
        )
    if as_labels and ids.low == 0 and ids.high >= bound:
        layer = f" '{check.bound_layer}'" if check.bound_layer else ""
        return finding(
            "M04",
            f"{shown}: the labels hold {int(ids.high) + 1} classes, and the output layer{layer} "
            f"has {n} units (class ids 0..{n - 1})",
            place=place,
            evidence=f"{shown} ({ids.distinct} distinct values); the bound `{check.bound_text}` "
            f"is {n}",
            hint=f"give the output layer{layer} {int(ids.high) + 1} units, one per class: the "
            f"number of classes is `{ids.name}.max() + 1`, not the largest id",
        )
    if as_labels and ids.low >= 0 and ids.high >= bound:
        causes = [f"give the output layer {int(ids.high) + 1} units (one per class id)"]
        if ids.low >= 1:
            causes.insert(0, f"if the ids start at 1, shift them, `{ids.name} - 1`")
        return finding(
            "P12",
            f"{shown}, and the model has {n} outputs (class ids 0..{n - 1}): "
            f"{ids.distinct} distinct labels do not fit",
            place=place,
            evidence=f"{shown}; the bound `{check.bound_text}` is {n}",
            hint="; or ".join(causes),
        )
    return None


def _renamed(check: FailedCheck, place: str) -> Finding | None:
    saved, given = check.bound_text, check.source
    first = saved.split(", ")[0]
    return finding(
        "C04",
        f"the checkpoint holds its objects under {saved!r}, and the Checkpoint that restores "
        f"it names them {given!r}: a restore matches objects by these names, so nothing of "
        "it is restored",
        place=place,
        evidence=f"saved names: {saved}; restoring names: {given}",
        hint=f"restore under the name it was saved with, `tf.train.Checkpoint({first}=...)`",
    )


def _training(check: FailedCheck, place: str) -> Finding | None:
    function, _, call = check.source.partition(": ")
    return finding(
        "C01",
        f"`{function}` calls `{call}`: with training=True the model's {check.bound_text} "
        "stay active, so its outputs are random and differ from predict's on the same input",
        place=f"`{function}`",
        evidence=f"`{call}` in {function}; random layers: {check.bound_text}",
        hint="call the model in inference mode for serving and comparisons: training=False "
        "(the default of model(x) and of predict)",
    )


def _half(check: FailedCheck, place: str) -> Finding | None:
    value, layer = check.operands[0], check.bound_text
    return finding(
        "S05",
        f"`{value.name}` is {value.dtype}: under the {check.source or 'mixed precision'} policy "
        f"the model's output layer '{layer}' computes in {value.dtype}, and `{value.made}` "
        "returns that dtype, which NumPy and pandas handle poorly",
        place=f"layer '{layer}'",
        evidence=f"`{value.name}` {value.dtype} {fmt_shape(value.shape)}; policy {check.source}",
        hint=f"keep the output in float32: give '{layer}' dtype='float32' (mixed precision "
        f"needs a float32 output for the loss too), or cast, `{value.name}.astype('float32')`",
    )


def _reduced(check: FailedCheck, place: str) -> Finding | None:
    mine, theirs = check.operands
    axis = int(check.bound or 0)
    array, _, shape = check.bound_text.partition(" ")
    return finding(
        "S07",
        f"`{mine.name} = {mine.made}` reduces axis {axis} of `{array}` {shape}, so it holds "
        f"{fmt_shape(mine.shape)}, while `{theirs.name}` {fmt_shape(theirs.shape)} has one value "
        f"per item of that axis: the reduction took the axis the other operand keeps",
        place=place,
        evidence=f"`{array}` {shape}; `{mine.name}` {fmt_shape(mine.shape)}; `{theirs.name}` "
        f"{fmt_shape(theirs.shape)}",
        hint=f"reduce the other axis, `axis=-1` (for {array} of (examples, classes): one value "
        "per example)",
    )


def _several(check: FailedCheck, place: str) -> Finding | None:
    first = check.bound_text.split(" (")[0].strip("'")
    return finding(
        "S12",
        f"`{check.source}` returns one array per output of the model ({check.bound_text}), a "
        "list, and NumPy cannot make one array of arrays of different shapes",
        place=place,
        evidence=f"the model's outputs: {check.bound_text}",
        hint=f"unpack the outputs and use the one you need: `{first}_pred, *rest = "
        f"{check.source}` (or index the list, `[0]`), then work on that array",
    )


def _s(singular: bool) -> str:
    return "s" if singular else ""


def _count(check: FailedCheck, place: str) -> Finding | None:
    a, b = check.operands
    na, nb = a.shape[0], b.shape[0]
    if na is None or nb is None:
        return None
    longer, shorter = (a, b) if na > nb else (b, a)
    short_n = min(na, nb)
    return finding(
        "S12",
        f"`{a.name}` has {na} rows and `{b.name}` {nb}: the check wants one row of each per "
        "example, and the two were made with different counts",
        place=place,
        evidence="; ".join(f"`{o.name}` {fmt_shape(o.shape)}{_made(o)}" for o in (a, b)),
        hint=f"build both from the same examples (one index range for the inputs and their "
        f"targets); when row i of each is already the same example, cut `{longer.name}` to "
        f"`{longer.name}[:{short_n}]`",
    )


def _made(operand: Operand) -> str:
    return f" from `{operand.made}`" if operand.made and len(operand.made) <= 90 else ""


def _broadcast(check: FailedCheck, place: str) -> Finding | None:
    made = check.operands[0]
    if made.combined is None:
        return None
    left, left_shape, op, right, right_shape = made.combined
    flat, column = (left, right) if len(left_shape) < len(right_shape) else (right, left)
    n = (left_shape if len(left_shape) < len(right_shape) else right_shape)[0]
    return finding(
        "S08",
        f"`{made.name} = {left} {op} {right}` combines {fmt_shape(left_shape)} with "
        f"{fmt_shape(right_shape)}: they broadcast to ({n}, {n}), every value of `{flat}` "
        f"against every row of `{column}`",
        place=place,
        evidence=f"`{left}` {fmt_shape(left_shape)}, `{right}` {fmt_shape(right_shape)}, "
        f"`{made.name}` {fmt_shape(made.shape)}",
        hint=f"give both one shape before the `{op}`: `tf.reshape({flat}, (-1, 1))`, or "
        f"`tf.squeeze({column}, -1)`",
    )


def _encoding(check: FailedCheck, place: str) -> Finding | None:
    labels = check.operands[0]
    sparse = check.loss.startswith("Sparse")
    made = _made(labels)
    if sparse and labels.one_hot:
        return finding(
            "M05",
            f"`{labels.name}` reaches `{check.function}` as one-hot rows "
            f"{fmt_shape(labels.shape)}{made}, and the step gives it to {check.loss}, which "
            "takes one class id per example",
            place=place,
            evidence=f"`{labels.name}` {fmt_shape(labels.shape)}: every row one 1; loss "
            f"{check.loss}",
            hint="pass the class ids instead (the ids before `to_categorical`, or "
            f"`np.argmax({labels.name}, axis=-1)`), or keep the one-hot rows with "
            f"{check.loss.replace('Sparse', '')}",
        )
    if not sparse and len(labels.shape) == 1 and labels.whole:
        return finding(
            "M05",
            f"`{labels.name}` reaches `{check.function}` as class ids {fmt_shape(labels.shape)}"
            f"{made}, and the step gives it to {check.loss}, which takes one-hot rows",
            place=place,
            evidence=f"`{labels.name}` {fmt_shape(labels.shape)}, values "
            f"{labels.low:g}..{labels.high:g}; loss {check.loss}",
            hint=f"use Sparse{check.loss} for class ids, or one-hot encode them "
            f"(`keras.utils.to_categorical({labels.name})`)",
        )
    return None
