"""M02 / M03 behind a failed check of a model's outputs as probabilities, M08 behind a failed
comparison of models' outputs (read by :mod:`tfnb_debug.explain._probability_checks`)."""

from __future__ import annotations

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.ground.reports import Finding, finding


def probabilities_checked(ctx: ErrorContext) -> tuple[Finding, tuple[()]] | None:
    """A check that the model's outputs are probabilities failed: the output layer says why."""
    found = ctx.probability_source
    if found is None:
        return None
    name, model, layer, activation, units, kind = found
    place = f"output layer '{layer}' of model '{model}'"
    if activation == "linear":
        return (
            finding(
                "M02",
                f"`{name}` is the output of model '{model}', whose last layer '{layer}' has no "
                "activation (linear): its values are logits, not probabilities, so a check of "
                "them as probabilities fails",
                place=place,
                evidence=f"'{layer}': {units} unit(s), activation linear",
                hint=(
                    f"turn the logits into probabilities before sampling, `p = "
                    f"tf.nn.softmax({name}).numpy()`, or sample from the logits with "
                    f"`tf.random.categorical({name}[None], 1)`"
                    if kind == "sample" and units > 1
                    else f"give '{layer}' activation='sigmoid' (one unit or independent labels) "
                    "or 'softmax' (one class of several); or keep the logits, use the loss with "
                    f"from_logits=True, and check `tf.sigmoid({name})` instead"
                ),
            ),
            (),
        )
    if activation == "sigmoid" and units > 1 and kind == "sum":
        return (
            finding(
                "M03",
                f"`{name}` comes from model '{model}', whose output layer '{layer}' applies "
                f"sigmoid over {units} units: each unit is its own yes/no probability, so a row "
                "does not sum to 1",
                place=place,
                evidence=f"'{layer}': {units} units, activation sigmoid; the check sums a row",
                hint=f"for one class per example give '{layer}' activation='softmax' (with "
                "categorical_crossentropy); keep sigmoid only for targets with several labels "
                "per example (binary_crossentropy), and do not expect their sum to be 1",
            ),
            (),
        )
    return None


def doubled_outputs(ctx: ErrorContext) -> tuple[Finding, tuple[()]] | None:
    """M08: a comparison of models' outputs failed, and one model squashes its output twice."""
    from tfnb_debug.diagnostics.outputs import double_activation

    found = double_activation(ctx.doubled) if ctx.doubled else []
    return (found[0], ()) if found else None
