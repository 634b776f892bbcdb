"""The first failed finiteness check of ``%%tfcheck`` as a finding (N05, N01, G05, G03).

``%%tfcheck`` stops at the first NaN/Inf, so its evidence is one failed check
(where, at which step, which op), not per-layer statistics: this rule turns a
:class:`~tfnb_debug.collect.check.CheckFailure` into the catalog finding.
T01 comes from :func:`tfnb_debug.diagnostics.shapes.retracing`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfnb_debug.ground.reports import Finding, Target, finding

if TYPE_CHECKING:
    from tfnb_debug.collect.check import CheckFailure

__all__ = ["first_nonfinite"]


def _step_text(failure: CheckFailure) -> str:
    if failure.step is None:
        return "before any optimizer step"
    return f"at step {failure.step + 1} ({failure.step} optimizer step(s) had been applied)"


def _op_text(failure: CheckFailure) -> str:
    op = failure.op
    if op is None:
        return ""
    if op.op_type:
        where = f" created at {op.source}" if op.source else ""
        return f"; first bad op: {op.op_type}{where}"
    return f"; op not identified: {op.error}" if op.error else ""


def first_nonfinite(failure: CheckFailure) -> list[Finding]:
    """The finding for the first check that failed, by what was checked."""
    step = _step_text(failure)
    evidence = failure.message
    if failure.kind == "input":
        return [
            finding(
                "N05",
                f"the batch fed to '{failure.place}' already holds NaN/Inf ({step})",
                place=f"input of {failure.place}",
                target=Target("layer", failure.place),
                evidence=evidence,
                hint="clean the data: look for NaN in the source arrays, division by zero or "
                "log of 0 in the tf.data map functions (tf.debugging.assert_all_finite in the map)",
            )
        ]
    if failure.kind in ("output", "layer-input"):
        if failure.kind == "output":
            what = (
                f"{failure.layer_class or 'layer'} '{failure.place}' is the first layer whose output "
                f"holds NaN/Inf ({step}); its inputs were checked and finite{_op_text(failure)}"
            )
            hint = (
                "look for log/sqrt/division of zero or negative values in this layer, weights "
                "blown up by a too-high learning rate, or float16 overflow under mixed precision"
            )
        else:
            what = (
                f"the input of {failure.layer_class or 'layer'} '{failure.place}' holds NaN/Inf "
                f"({step}): it was computed by code between layers (not a Keras layer), after "
                "every earlier layer output was finite"
            )
            hint = "check the TensorFlow ops your model's call() runs between layers"
        return [
            finding(
                "N01",
                what,
                place=failure.place,
                target=Target("layer", failure.place),
                evidence=evidence,
                hint=hint,
            )
        ]
    if failure.kind == "backward":
        consumer = f" (next layer called: '{failure.next_layer}')" if failure.next_layer else ""
        return [
            finding(
                "G03",
                f"the gradient flowing back into the output of '{failure.place}' holds NaN/Inf "
                f"{step}, with a finite forward pass and loss: the backward pass of the layer(s) "
                f"consuming that output produced it{consumer}",
                place=failure.next_layer or failure.place,
                target=Target("layer", failure.next_layer or failure.place),
                evidence=evidence,
                hint="a non-differentiable point in that layer (sqrt(0), norm of a zero vector, "
                "tf.where with a NaN branch); add an epsilon or use tf.math.divide_no_nan",
            )
        ]
    if failure.kind == "loss":
        return [
            finding(
                "G05",
                f"the loss '{failure.place}' became NaN/Inf {step}; every layer output "
                "before it was finite",
                place=failure.place,
                target=Target("loss", failure.place),
                evidence=evidence,
                hint="log(0) in the loss: use from_logits=True with a linear output, clip "
                "predictions, or check labels outside the loss's expected range",
            )
        ]
    return [
        finding(
            "G03",
            f"the gradient of '{failure.place}' holds NaN/Inf {step}, with a finite forward "
            "pass and loss",
            place=failure.place,
            target=Target("variable", failure.place),
            evidence=evidence,
            hint="a non-differentiable point (sqrt(0), norm of a zero vector, tf.where with a NaN "
            "branch) in the backward pass; add an epsilon or use tf.math.divide_no_nan",
        )
    ]
