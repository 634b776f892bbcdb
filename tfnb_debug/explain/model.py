"""A model asked for what only a built model has (S04): its inputs, output, or parameter count."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_NO_INPUTS = re.compile(
    r"Sequential model '([^']+)' has no defined (inputs|input shape|output shape|outputs) yet"
)
_NOT_BUILT = re.compile(r"You tried to call `(\w+)` on layer '([^']+)', but the layer isn't built")
# export refuses an unbuilt model or layer without saying how to build it
_EXPORT_UNBUILT = re.compile(
    r"The (model|layer) provided has not yet been built\. It must be built"
)
_NEVER_CALLED = re.compile(r"The layer (\S+) has never been called and thus has no defined (\w+)")


def unbuilt_model(ctx: ErrorContext) -> Explained | None:
    """S04: ``model.inputs``/``output``/``count_params()`` on a model that was never built."""
    text = ctx.text
    user = ctx.user_code_line()
    line = f"`{user[3]}`; " if user and user[3] else ""
    place_line = ctx.where(user[0], user[1], user[2]) if user else ""
    legacy = _legacy_shape_argument(user[0]) if user else ""
    if (match := _NO_INPUTS.search(text)) is not None:
        name = match.group(1)
        return _s04(
            name,
            f"Sequential model '{name}' was created without an Input, so it has no "
            f"{match.group(2)} yet (a Sequential knows its shapes once it is built)",
            f'{line}Keras: "{match.group(0)}"',
            legacy
            + "start the Sequential with `keras.Input(shape=...)` (the shape of one example), "
            "then `model.inputs`/`model.output` exist (e.g. for a Grad-CAM model); or build it "
            "as a Functional model",
            place_line,
        )
    if (match := _NOT_BUILT.search(text)) is not None:
        method, name = match.group(1), match.group(2)
        var = _receiver(user[3] if user else "", method) or "model"
        return _s04(
            name,
            f"`{method}()` was called on model '{name}' before it was built: its weights do not "
            "exist until it has seen an input shape",
            f'{line}Keras: "{match.group(0)}"',
            legacy
            + f"call the model once on a batch first (`{var}(x[:1])`); a Sequential can instead "
            "start with `keras.Input(shape=...)`, which builds it at once",
            place_line,
        )
    if (match := _EXPORT_UNBUILT.search(text)) is not None:
        var = _receiver(user[3] if user else "", "export") or "model"
        return _s04(
            var,
            f"`{var}` has no input shape yet, so its weights and the serving signature's input "
            "do not exist: export needs a built model",
            f'{line}Keras: "{match.group(0)} before export."',
            "give it the shape of one example: start a Sequential with `keras.Input(shape=...)` "
            f"(or call `{var}.build((None, ...))`), or call it once on a batch (`{var}(x[:1])`, "
            "fit does that) before exporting",
            place_line,
        )
    if (match := _NEVER_CALLED.search(text)) is not None:
        name, what = match.group(1), match.group(2)
        if user is not None and user[2].endswith("__init__"):  # a layer reading its input early
            return _s04(
                name,
                f"layer '{name}' reads its `.{what}` in `{user[2]}`, before it has ever been "
                "called: a layer gets its input only when it is called (built)",
                f'{line}Keras: "{match.group(0)}"',
                "create what depends on the input in `build(self, input_shape)`, which Keras "
                "calls with the input's shape before the first call (e.g. `n = input_shape[-1]` "
                "and `self.add_weight(shape=(n,), ...)` there)",
                place_line,
            )
        return _s04(
            name,
            f"model '{name}' has never been called, so it has no {what}: a subclassed model "
            "gets its inputs and outputs only from a call",
            f'{line}Keras: "{match.group(0)}"',
            f"call it once on a batch (`{name}(x[:1])`) before reading `.{what}`; to get a "
            "model with `inputs`/`outputs` (for Grad-CAM or feature extraction), build it the "
            "Functional way: `inp = keras.Input(shape); model = keras.Model(inp, net(inp))`",
            place_line,
        )
    return None


def _legacy_shape_argument(filename: str) -> str:
    """A lead for the hint when the cell gives a layer Keras 2's shape arguments
    (``input_shape=``, ``input_length=``, ``input_dim=`` on a Dense), which do not build a
    Keras 3 model: "" when it does not."""
    import linecache

    source = "".join(linecache.getlines(filename))
    found = re.search(r"\b(input_length|input_shape)\s*=\s*([^,)\]]+\)?)", source)
    if found is None:
        return ""
    return (
        f"`{found.group(1)}={found.group(2).strip()}` is Keras 2's way to give the input shape, "
        "and Keras 3 does not build the model from it (only a first-layer `input_shape` builds, "
        "and `input_length` is ignored): "
    )


def _receiver(source: str, method: str) -> str:
    """``model`` in ``model.count_params()``: the user's own name for the object."""
    match = re.search(r"([A-Za-z_][\w.]*)\." + re.escape(method) + r"\(", source)
    return match.group(1) if match else ""


def _s04(model: str, message: str, evidence: str, hint: str, where: str) -> Explained:
    place = f"model '{model}'" + (f" ({where})" if where else "")
    return (finding("S04", message, place=place, evidence=evidence, hint=hint), ())
