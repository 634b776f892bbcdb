"""A Keras 2 method Keras 3 removed or renamed (S12): ``metric.reset_states()``,
``model.predict_classes(x)``, ``model.fit_generator(...)``.

Keras 3 says only "'Mean' object has no attribute 'reset_states'", which reads
like a typo.  The object the attribute was asked of is on the exception
(``AttributeError.obj``), so the rule checks that it really is an instance of
the Keras class that had the method in Keras 2 before it names the Keras 3 call.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

# method -> (the Keras class that had it, what Keras 3 calls instead)
_REMOVED: dict[str, tuple[str, str]] = {
    "reset_states": ("Metric", "`{obj}.reset_state()` (Keras 3 renamed it, without the s)"),
    "predict_classes": (
        "Model",
        "`np.argmax({obj}.predict(x), axis=-1)` (for one sigmoid unit: "
        "`({obj}.predict(x) > 0.5).astype('int32')`)",
    ),
    "predict_proba": ("Model", "`{obj}.predict(x)` (it returns the probabilities already)"),
    "fit_generator": ("Model", "`{obj}.fit(generator, ...)`: fit takes generators and datasets"),
    "evaluate_generator": ("Model", "`{obj}.evaluate(generator, ...)`"),
    "predict_generator": ("Model", "`{obj}.predict(generator, ...)`"),
    "lr": ("Optimizer", "`{obj}.learning_rate` (Keras 3 has no `lr` alias)"),
}


def removed_keras2_method(ctx: ErrorContext) -> Explained | None:
    """S12: a method of a Keras 2 class that Keras 3 no longer has, with its Keras 3 call."""
    missing = ctx.missing_attribute
    if missing is None:
        return None
    attribute, class_name, bases = missing
    entry = _REMOVED.get(attribute)
    if entry is None or entry[0] not in bases:
        return None
    owner, replacement = entry
    user = ctx.user_code_line()
    written = re.search(rf"([A-Za-z_][\w.]*)\.{attribute}\b", user[3]) if user else None
    obj = written.group(1) if written else owner.lower()
    return (
        finding(
            "S12",
            f"`{attribute}` is Keras 2 API of {owner}; Keras 3's {class_name} has none",
            place=ctx.where(user[0], user[1], user[2]) if user else f"{class_name}.{attribute}",
            evidence=f"`{user[3] if user else attribute}` on a {class_name} ({owner} subclass)",
            hint=f"use {replacement.format(obj=obj)}",
        ),
        (),
    )
