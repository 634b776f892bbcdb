"""The keras.applications backbone a failing line calls, with the smallest input it takes.

The backbones' documentation states a minimum image size for ``include_top=False``: 75x75
for InceptionV3 and InceptionResNetV2, 71x71 for Xception, 32x32 for the others.  Smaller
images shrink to nothing inside the backbone ("output size would be zero or negative").  This
reader finds the backbone the failing statement calls (``base(x)``, ``model.fit`` of a model
that holds it), by its Keras name, and the input it was given.  Nothing runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._layer_probe import called_models
from tfnb_debug.explain._nonfinite_source import failing_statement
from tfnb_debug.explain._violation import shape_of

#: Keras' name of a backbone -> (its keras.applications class, the smallest side it takes)
MINIMUM = {
    "inception_v3": ("InceptionV3", 75),
    "inception_resnet_v2": ("InceptionResNetV2", 75),
    "xception": ("Xception", 71),
}


@dataclass(frozen=True)
class Backbone:
    variable: str  # the user's name for the model called
    name: str  # the backbone's Keras name
    kind: str  # its keras.applications class
    minimum: int
    given: tuple[int | None, ...] | None  # the shape of what the line gives it


def read_backbone(exc: BaseException) -> Backbone | None:
    """The backbone with a documented minimum size that the failing statement calls."""
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, _, statement = failing
    for call, model in called_models(statement, spaces):
        candidates = [model, *getattr(model, "layers", [])[:8]]
        found = next((m for m in candidates if getattr(m, "name", "") in MINIMUM), None)
        if found is None:
            continue
        kind, minimum = MINIMUM[found.name]
        dims = shape_of(evaluate(call.args[0], spaces)) if call.args else None
        variable = ast.unparse(call.func).split(".")[0]
        return Backbone(variable, found.name, kind, minimum, dims)
    return None
