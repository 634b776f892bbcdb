"""``validation_data`` in a form fit reads otherwise than meant (S12): a flat tuple of a
multi-input model's arrays and the labels (fit reads ``(x, y, sample_weight)``, so x is the
first array alone), or a dataset of inputs without labels.  Read from the call's arguments
and the datasets the traceback holds."""

from __future__ import annotations

from tfnb_debug.explain._call import CallInfo
from tfnb_debug.explain._context import ErrorContext, fmt_shape
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def validation_flat(
    ctx: ErrorContext, call: CallInfo | None, expected: int, received: int
) -> Explained | None:
    """A model of ``expected`` inputs given ``validation_data=(a, b, y)``: x is ``a`` alone."""
    if call is None or call.method != "fit" or expected < 2 or received != 1:
        return None
    x, val = call.arg(0, "x"), call.arg(99, "validation_data")
    if x is None or val is None or val.kind not in ("tuple", "list") or len(val.items) != 3:
        return None
    if x.kind not in ("list", "tuple", "dict") or val.items[0].kind in ("list", "tuple", "dict"):
        return None
    a, b, y = (item.text for item in val.items)
    return (
        finding(
            "S12",
            f"validation_data=({a}, {b}, {y}) is read as (x, y, sample_weight): x is `{a}` "
            f"alone, `{b}` is taken for the labels, and the model has {expected} inputs",
            place=f"`{call.func}(..., validation_data=...)`",
            evidence=f"`{x.text}`: {x.describe()}; validation_data: {val.describe()}",
            hint=f"group the inputs as for x: `validation_data=([{a}, {b}], {y})` (or a dict "
            "keyed by the Input names)",
        ),
        (),
    )


def validation_unlabeled(ctx: ErrorContext, call: CallInfo | None) -> Explained | None:
    """``validation_data`` a dataset whose elements are inputs only."""
    if call is None or call.method != "fit":
        return None
    val = call.arg(99, "validation_data")
    if val is None or val.kind != "dataset":
        return None
    ds = next((d for d in ctx.datasets if d.name == val.text), None)
    if ds is None or len(ds.shapes) != 1:
        return None
    element = fmt_shape(ds.shapes[0]) if ds.shapes[0] else "one tensor"
    return (
        finding(
            "S12",
            f"validation_data `{val.text}` yields inputs only ({element} per element), so the "
            "validation loss has no targets",
            place=f"`{call.func}(..., validation_data={val.text})`",
            evidence=f"element of `{val.text}`: one component, no (inputs, targets) pair",
            hint=f"build `{val.text}` from the validation inputs and labels together, "
            "`tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(...)`, as for the "
            "training data",
        ),
        (),
    )
