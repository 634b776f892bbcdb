"""The finding of a failed numeric check, under the code of what made its value non-finite,
and the fix for a non-finite gradient read from the tape's loss code."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._traced_checks import NonfiniteSource
from tfnb_debug.ground.reports import Finding, finding


def gradient_hint(ctx: ErrorContext) -> str:
    """The fix for a non-finite gradient: the op in the tape's loss code whose gradient is
    infinite at a point of its domain, when the code holds one; the step size otherwise."""
    from tfnb_debug.explain.tape import loss_lines

    code = loss_lines(ctx)
    for line in code.splitlines():
        op = re.search(r"\b(sqrt|rsqrt|log|pow|norm)\(", line)
        if op is not None and op.group(1) == "norm":
            return (
                f"the loss code takes norm (`{line.strip()}`), whose gradient x / ||x|| is NaN "
                "where its input is 0 (two identical points, a zero vector): use the squared "
                "distance, `tf.reduce_sum(tf.square(d), axis=-1)`, or "
                "`tf.sqrt(tf.reduce_sum(tf.square(d), axis=-1) + 1e-12)`"
            )
        if op is not None:
            return (
                f"the loss code takes {op.group(1)} (`{line.strip()}`), whose gradient is "
                f"infinite where its input is 0: floor the input, "
                f"`tf.{op.group(1)}(tf.maximum(x, 1e-12))`, or add an epsilon inside"
            )
    if code:
        return (
            "the loss code takes no sqrt/log/pow/norm: look for a division by a value that can be 0 "
            "(`tf.math.divide_no_nan`), then for a step size too large for the loss's scale"
        )
    return (
        "look for sqrt/log/division at 0 in the loss (their gradients are infinite there); if "
        "there is none, the step is too large: lower the learning rate or clip the gradients "
        "(clipnorm=1.0)"
    )


def sourced(
    source: NonfiniteSource,
    kind: str,
    place: str,
    evidence: str,
    subject: str = "the checked value",
) -> Finding:
    """The check's finding under the code of what made its value non-finite (literal codes:
    the catalog test reads them)."""
    what = f"{subject} holds {kind} values: it comes from {source.what}"
    evidence = f"{evidence}; {source.evidence}"
    if source.code == "M02":
        return finding("M02", what, place=place, evidence=evidence, hint=source.hint)
    if source.code == "N05":
        return finding("N05", what, place=place, evidence=evidence, hint=source.hint)
    if source.code == "G03":
        return finding("G03", what, place=place, evidence=evidence, hint=source.hint)
    if source.code == "G05":
        return finding("G05", what, place=place, evidence=evidence, hint=source.hint)
    return finding("N01", what, place=place, evidence=evidence, hint=source.hint)


def nonfinite_consequence(ctx: ErrorContext) -> tuple[Finding, tuple[()]] | None:
    """A line of the user's own code failed on NaN/Inf outside TensorFlow (np.random.choice
    given NaN probabilities, int(nan), an assert, a tolerance check): what made the value."""
    source = ctx.consequence
    if source is None or ctx.diverged is not None or "Tensor had" in ctx.text:
        return None
    line = ctx.user_code_line()
    place = ctx.where(line[0], line[1], line[2]) if line else ""
    said = ctx.messages[0].strip().splitlines()[0][:120] if ctx.messages else ""
    evidence = f"`{line[3]}` raised {ctx.type_names[0]}" if line else ctx.type_names[0]
    if said:
        evidence += f": {said}"
    return sourced(source, "NaN/Inf", place, evidence, subject="the value this line reads"), ()
