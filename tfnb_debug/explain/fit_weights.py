"""What ``fit`` is given besides x, read against how Keras uses it:

- ``class_weight`` in a form it does not take: keys that are not integer class ids (S11), or
  one weight per sample for labels with one class per time step (S07: the loss multiplies
  (batch, steps) by (batch,)); read from the call's ``class_weight`` and labels;
- the targets, losses and metrics of a model with several outputs, paired with the outputs
  otherwise than meant (:mod:`._output_pairing`)."""

from __future__ import annotations

import re

from tfnb_debug.explain._coded import coded_finding
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain._output_pairing import output_pairing
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_NOT_INT = re.compile(r"'(numpy\.\w+|float)' object cannot be interpreted as an integer")
_PER_SAMPLE = re.compile(r"Incompatible shapes: \[(\d+),(\d+)\] vs\. \[(\d+)\]")
_PER_SAMPLE_FIRST = re.compile(r"Incompatible shapes: \[(\d+)\] vs\. \[(\d+),(\d+)\]")


def class_weight_form(ctx: ErrorContext) -> Explained | None:
    """S11 or S07: the class_weight of the failing fit does not fit its contract."""
    call = ctx.evidence.call
    weights = call.arg(99, "class_weight") if call is not None else None
    if call is None or weights is None or weights.kind != "dict" or call.method != "fit":
        return None
    place = ctx.where(call.filename, call.lineno)
    keys = ", ".join(weights.keys[:6])
    if (kind := _NOT_INT.search(ctx.text)) is not None and any("." in k for k in weights.keys):
        return (
            finding(
                "S11",
                f"the keys of class_weight `{weights.text}` are {kind.group(1)} values "
                f"({keys}), and fit takes integer class ids as its keys",
                place=place,
                evidence=f"class_weight keys: {keys}; {ctx.key_sentence()}",
                hint=f"make the keys ints: `{{int(k): w for k, w in {weights.text}.items()}}` "
                "(keys taken from float labels are floats)",
            ),
            (),
        )
    pair = _PER_SAMPLE.search(ctx.text)
    flipped = _PER_SAMPLE_FIRST.search(ctx.text) if pair is None else None
    y = call.arg(1, "y")
    if pair is not None:
        batch, step, per_sample = pair.group(1), pair.group(2), pair.group(3)
    elif flipped is not None:  # the weights first: [batch] vs [batch, steps]
        per_sample, batch, step = flipped.group(1), flipped.group(2), flipped.group(3)
    else:
        return None
    if "loss" not in ctx.text or batch != per_sample:
        return None
    steps = y is not None and y.shape is not None and len(y.shape) == 2 and y.shape[1] == int(step)
    if not steps or y is None:
        return None
    return (
        finding(
            "S07",
            f"class_weight `{weights.text}` gives one weight per sample ([{per_sample}]), "
            f"but the labels `{y.text}` {fmt_shape(y.shape or ())} hold a class per time step, "
            f"and the loss has one value per step ([{batch},{step}])",
            place=place,
            evidence=f"class_weight keys: {keys}; labels {fmt_shape(y.shape or ())}; "
            f"shapes [{batch},{step}] and [{per_sample}]",
            hint=f"weigh each step instead: drop class_weight and pass `sample_weight="
            f"np.vectorize({weights.text}.get)({y.text})`, one weight per label",
        ),
        (),
    )


def outputs_paired(ctx: ErrorContext) -> Explained | None:
    """S12 or S07: targets, losses or metrics paired with a multi-output model's outputs
    otherwise than the user meant."""
    if len(ctx.trained) > 1:
        return None
    found = ctx.read(output_pairing)
    if found is None:
        return None
    call = ctx.evidence.call
    place = ctx.where(call.filename, call.lineno) if call is not None else "the call"
    return coded_finding(found.code, found.problem, place, found.evidence, found.hint), ()


def validation_split_on_dataset(ctx: ErrorContext) -> Explained | None:
    """S12: ``validation_split`` with a dataset or generator (it splits arrays only)."""
    if "`validation_split` is only supported for tensors or NumPy arrays" not in ctx.text:
        return None
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None else None
    name = f"`{x.text}`" if x is not None else "the data"
    return (
        finding(
            "S12",
            f"validation_split cuts arrays, and {name} is a dataset (or generator), which it "
            "cannot split",
            place=ctx.where(call.filename, call.lineno) if call is not None else "fit",
            evidence=ctx.key_sentence(),
            hint=f"split it yourself and pass the part: `val_ds = {name.strip('`')}.take(k)`, "
            f"`train_ds = {name.strip('`')}.skip(k)` (k batches), then "
            "`fit(train_ds, validation_data=val_ds)`; or fit the arrays with validation_split",
        ),
        (),
    )
