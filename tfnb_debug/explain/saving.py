"""Loading a saved model fails on a custom object (C05): not registered, or an incomplete get_config."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._saved_objects import lookup_hint
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_LOCATE = re.compile(
    r"Could not locate (class|function) '([^']+)'\..*?Full object config: (\{.*)", re.S
)
_REGISTERED = re.compile(r"'registered_name': '([^']+)'")
_DESERIALIZING = re.compile(r"Error when deserializing class '(\w+)' using config=(\{.*?\})\.\n")
# Keras 3's deserializer: "<class '__main__.Focal'> could not be deserialized properly ...
# config={...}. ... Exception encountered: Focal.__init__() missing 1 required ..."
_NOT_DESERIALIZED = re.compile(
    r"<class '[^']*?(\w+)'> could not be deserialized properly.*?\bconfig=(\{.*?\})\.\s*\n",
    re.S,
)
_MISSING = re.compile(
    r"__init__\(\) missing \d+ required (?:positional|keyword-only) arguments?: (.+)"
)
_UNEXPECTED = re.compile(
    r"__init__\(\) got an unexpected keyword argument '(\w+)'|"
    r"Unrecognized keyword arguments passed to (\w+): \{'(\w+)'"
)
# the legacy (.h5) loader's words: "Unknown layer: 'Clip'", "Unknown loss function: 'focal'"
_UNKNOWN = re.compile(
    r"Unknown (layer|loss function|metric function|activation function|object|optimizer|"
    r"initializer|regularizer|constraint)(?: type)?: '?([\w>.]+)'?"
)
_LAMBDA = re.compile(r"Could not interpret (\w+) function identifier: \{'value': \[")
_TOP_KEYS = re.compile(r"(?:\{|, )'(\w+)': ")


def unregistered_custom_object(ctx: ErrorContext) -> Explained | None:
    """C05: ``load_model`` cannot rebuild a custom class or function from the saved config."""
    text = ctx.text
    locate = _LOCATE.search(text)
    if locate is not None:
        return _not_found(ctx, locate.group(1), locate.group(2), locate.group(3))
    unknown = _UNKNOWN.search(text)
    if unknown is not None and any(re.search(r"legacy[\\/]saving", f.filename) for f in ctx.frames):
        kind = "function" if unknown.group(1).endswith("function") else "class"
        name = unknown.group(2)
        return _not_found(ctx, kind, name, f"'registered_name': '{name}'")
    deserializing = _DESERIALIZING.findall(text) or [
        (m.group(1), m.group(2)) for m in _NOT_DESERIALIZED.finditer(text)
    ]
    if deserializing:
        cls, config = deserializing[-1]
        missing = _MISSING.search(text)
        unexpected = _UNEXPECTED.search(text)
        if missing is not None:
            return _incomplete_config(ctx, cls, config, missing.group(1))
        if unexpected is not None:
            return _extra_config(ctx, cls, unexpected.group(1) or unexpected.group(3))
    lam = _LAMBDA.search(text)
    if lam is not None:
        return (
            finding(
                "C05",
                f"a lambda was saved as the {lam.group(1)} function; load_model cannot rebuild it "
                "by name",
                place=_place(ctx),
                evidence="the saved config holds the lambda's bytecode ({'value': [...]})",
                hint=(
                    "replace the lambda with a named function decorated with "
                    "@keras.saving.register_keras_serializable() and save again (or, for a file "
                    "you trust, load it with safe_mode=False)"
                ),
            ),
            (),
        )
    return None


def _place(ctx: ErrorContext) -> str:
    call = ctx.evidence.call
    if call is None:
        return ""
    return f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}"


def _custom_objects(ctx: ErrorContext) -> tuple[str, ...] | None:
    call = ctx.evidence.call
    if call is None:
        return None
    arg = call.arg(99, "custom_objects")
    if arg is None or arg.kind != "dict":
        return None
    return arg.keys


def _not_found(ctx: ErrorContext, kind: str, name: str, config: str) -> Explained:
    registered = _REGISTERED.search(config)
    saved_as = registered.group(1) if registered and kind == "class" else name
    given = _custom_objects(ctx)
    defined = name in ctx.evidence.user_classes
    what = "class" if kind == "class" else "function (a loss, metric or activation)"
    evidence = f"the file names {kind} '{name}', saved as registered_name '{saved_as}'"
    if given is not None:
        evidence += f"; custom_objects keys {list(given)}"
    if defined:
        evidence += f"; {name} is defined in this session"
    hint = lookup_hint(kind, name, saved_as, given, defined)
    return (
        finding(
            "C05",
            f"load_model cannot find the custom {what} '{name}'",
            place=_place(ctx),
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


def _incomplete_config(ctx: ErrorContext, cls: str, config: str, missing: str) -> Explained:
    args = re.findall(r"'(\w+)'", missing)
    keys = [k for k in _TOP_KEYS.findall(config) if k not in ("name", "trainable", "dtype")]
    shown = ", ".join(f"'{a}'" for a in args)
    update = ", ".join(f"{a}=self.{a}" for a in args)
    return (
        finding(
            "C05",
            f"{cls}.get_config() lacks the constructor argument{'s' if len(args) > 1 else ''} "
            f"{shown}, so load_model cannot rebuild the layer",
            place=f"class {cls}",
            evidence=f"saved config keys {keys}; __init__ also needs {shown}",
            hint=(
                f"return every __init__ argument from get_config: config = super().get_config(); "
                f"config.update({update}); return config (then save the model again)"
            ),
        ),
        (),
    )


def _extra_config(ctx: ErrorContext, cls: str, key: str) -> Explained:
    return (
        finding(
            "C05",
            f"{cls}.get_config() returns '{key}', which {cls}.__init__ does not accept",
            place=f"class {cls}",
            evidence=f"config key '{key}' has no __init__ argument",
            hint=(
                f"make get_config and __init__ agree: accept {key} in __init__ (and store it), or "
                f"leave it out of get_config (then save the model again)"
            ),
        ),
        (),
    )


_RESTORE = re.compile(
    r"Received incompatible tensor with shape \(([^)]*)\) when attempting to restore variable "
    r"with shape \(([^)]*)\)"
)


def restored_other_shape(ctx: ErrorContext) -> Explained | None:
    """C04: a checkpoint restored into a model whose variables have other shapes (it was
    saved from a model built for other sizes)."""
    found = _RESTORE.search(ctx.text)
    if found is None:
        return None
    saved, built = found.group(1), found.group(2)
    a = [d.strip() for d in saved.split(",") if d.strip()]
    b = [d.strip() for d in built.split(",") if d.strip()]
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    axis = (
        f" (axis {differ[0]}: {a[differ[0]]} saved, {b[differ[0]]} now"
        + (
            "; a Dense kernel's first axis is the layer's input width)"
            if differ == [0] and len(a) == 2 and "kernel" in ctx.text
            else ")"
        )
        if len(differ) == 1 and len(a) == len(b)
        else ""
    )
    user = ctx.user_code_line()
    return (
        finding(
            "C04",
            f"the checkpoint holds a variable of shape ({saved}) and the model's is ({built}){axis}: "
            "it was saved from a model built for other sizes",
            place=ctx.where(user[0], user[1], user[2]) if user else "the restore",
            evidence=ctx.key_sentence(),
            hint="build the model with the sizes it was saved with (the same Input width and "
            "layer units) before restoring, or train the new model instead of restoring",
        ),
        (),
    )
