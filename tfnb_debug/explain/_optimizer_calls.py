"""Contracts of the optimizer and tape calls of a custom training loop.

``Optimizer.apply_gradients`` takes (gradient, variable) pairs, ``Optimizer.apply``
the gradients then the variables; a Keras 3 optimizer is built for the variables it
first steps and refuses others ("Unknown variable"); ``tape.gradient`` takes the
target first and differentiates with respect to variables or watched tensors.  Each
check reads the live arguments (:class:`~tfnb_debug.explain._api.LiveCall`): which
position holds variables, the shapes of each pair, the optimizer's known variables
and the models in the user's namespace that own them."""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._tape_results import last_assignment, value_of
from tfnb_debug.explain._violation import (
    Violation,
    fmt,
    is_a,
    is_tensorlike,
    is_variable,
    items_of,
    models_in,
    name_in,
    shape_of,
)


def _pairs(value: Any) -> list[tuple[Any, Any]] | None:
    items = items_of(value)
    if (
        items is None
        or not items
        or not all(isinstance(p, tuple | list) and len(p) == 2 for p in items)
    ):
        return None
    return [(p[0], p[1]) for p in items]


def apply_given_pairs(call: LiveCall, exc: BaseException) -> Violation | None:
    """``optimizer.apply(zip(grads, vars))``: Keras 3's ``apply`` takes the gradients and the
    variables as two lists; the zipped pairs are what ``apply_gradients`` takes."""
    if not call.api.endswith(".apply") or "grads_and_vars" in call.values:
        return None
    grads = call.value("grads")
    pairs = _pairs(grads)
    variables = call.value("trainable_variables")
    if pairs is None or variables not in (None, UNREAD):
        return None
    text = call.text("grads")
    inner = text[4:-1] if text.startswith("zip(") and text.endswith(")") else ""
    owner = call.source.partition("(")[0].rpartition(".")[0].strip() or "optimizer"
    return Violation(
        "S12",
        text,
        f"`apply` takes the gradients and the variables as two lists, but `{text}` is "
        f"{len(pairs)} (gradient, variable) pairs in its first argument",
        f"pass the pairs to apply_gradients, `{owner}.apply_gradients({text})`, or the two "
        f"lists to apply, `{owner}.apply({inner or 'grads, model.trainable_variables'})`",
    )


def apply_gradients(call: LiveCall, exc: BaseException) -> Violation | None:
    pairs = _pairs(call.value("grads_and_vars"))
    text = call.text("grads_and_vars")
    if "No gradients provided" in str(exc):
        return integer_variables(call, text, [v for _, v in pairs or []])
    empty = _empty_variables(call, text) if "got 0" in str(exc) else None
    if empty is not None:
        return empty
    given = items_of(call.value("grads_and_vars"))
    if (
        pairs is None
        and given
        and all(g is None or is_tensorlike(g) for g in given)
        and any(g is not None for g in given)
    ):
        sources = _gradient_sources(call, text)
        return Violation(
            "S12",
            text,
            f"`apply_gradients` takes (gradient, variable) pairs, but `{text}` is a list of "
            f"{len(given)} gradient(s) without their variables",
            f"pair each gradient with its variable: `apply_gradients(zip({text}, "
            f"{sources or 'variables'}))`"
            + (
                f" (the variables `{text}` was taken for)"
                if sources
                else ", with the variables the tape differentiated"
            ),
        )
    if pairs is None:
        grads, variables = (
            items_of(call.value("grads")),
            items_of(call.value("trainable_variables")),
        )
        if (
            grads
            and variables
            and all(is_variable(g) for g in grads)
            and not any(is_variable(v) for v in variables)
        ):
            return Violation(
                "S12",
                call.source,
                "`optimizer.apply(grads, trainable_variables)` got variables as the gradients and "
                "tensors as the variables",
                "the gradients come first: swap the two arguments, "
                "`apply(grads, model.trainable_variables)`",
            )
        return _unknown_variables(call, variables or [])
    if all(is_variable(a) and not is_variable(b) for a, b in pairs):
        return Violation(
            "S12",
            text,
            "`apply_gradients` takes (gradient, variable) pairs, but each pair here is "
            "(variable, gradient)",
            "zip the gradients first: `apply_gradients(zip(grads, model.trainable_variables))`",
        )
    return _misaligned_pairs(call, pairs, text) or _unknown_variables(call, [v for _, v in pairs])


def integer_variables(call: LiveCall, text: str, variables: list[Any]) -> Violation | None:
    """G04: every variable given is an integer ``tf.Variable`` (``tf.Variable(0)``): a tape
    differentiates floating-point values only, so each gradient is None."""
    if not variables:  # the pairs were a consumed zip: the optimizer's frame unzipped them
        variables = list(call.receiver_locals.get("trainable_variables") or [])
    ints = [v for v in variables if is_variable(v) and _integer(v)]
    if not ints or len(ints) != len(variables):
        return None
    names = [name_in(call, v) or str(getattr(v, "name", "?")) for v in ints]
    dtypes = sorted({str(getattr(v.dtype, "name", v.dtype)) for v in ints})
    made = [(n, last_assignment(call, n)) for n in names if n.isidentifier()]
    floats = [
        f"`{n} = {_INT_VARIABLE.sub(_AS_FLOAT, rhs)}`"
        for n, rhs in made
        if _INT_VARIABLE.search(rhs)
    ]
    shown = ", ".join(f"`{n}`" for n in names[:4]) + (" and more" if len(names) > 4 else "")
    return Violation(
        "G04",
        text,
        f"{shown} {'is an' if len(ints) == 1 else 'are'} {'/'.join(dtypes)} variable"
        f"{'' if len(ints) == 1 else 's'}: a GradientTape differentiates only floating-point "
        "values, so every gradient is None and the optimizer has nothing to apply",
        "create the variables as floats"
        + (f", {', '.join(floats[:2])}" if floats else ", `tf.Variable(..., dtype=tf.float32)`")
        + " (integer data they meet must then be cast to float32 too)",
        evidence=f"{', '.join(f'`{n}`' for n in names[:4])}: {', '.join(dtypes)} tf.Variable",
    )


_INT_VARIABLE = re.compile(r"Variable\(\s*(-?\d+)\s*([,)])")
_AS_FLOAT = r"Variable(\1.0\2"


def _integer(variable: Any) -> bool:
    dtype = getattr(variable, "dtype", None)
    return str(getattr(dtype, "name", dtype)).startswith(("int", "uint", "bool"))


_ZIP = re.compile(r"^\s*zip\(\s*(\w+)\s*,\s*(.+?)\s*\)\s*$")


_ZIP_TO_NAME = re.compile(r"^\s*zip\(\s*(.+?)\s*,\s*(\w+)\s*\)\s*$")


def _empty_variables(call: LiveCall, text: str) -> Violation | None:
    """S04: ``zip(grads, params)`` gave no pairs because ``params`` is an empty list read from
    a model's ``trainable_variables`` before the model had made its weights; G04 when the
    model was called and its layers hold ``tf.Variable`` attributes Keras 3 does not track."""
    untracked = _untracked_variables(call, text)
    if untracked is not None:
        return untracked
    zipped = _ZIP_TO_NAME.match(text)
    if zipped is None:
        return None
    name = zipped.group(2)
    value = value_of(call, name)
    if not isinstance(value, list | tuple) or value:
        return None
    made = last_assignment(call, name)
    owner = re.match(r"(\w+)\.(trainable_variables|trainable_weights|weights|variables)$", made)
    if owner is None:
        return None
    model = value_of(call, owner.group(1))
    now = len(getattr(model, owner.group(2), []) or [])
    return Violation(
        "S04",
        text,
        f"`{name}` is an empty list: `{name} = {made}` was read before `{owner.group(1)}` had "
        "built its weights (a model without an Input, or a subclassed one, makes them on its "
        f"first call), so zip({zipped.group(1)}, {name}) gives no pairs",
        f"read `{owner.group(1)}.{owner.group(2)}` after the model's first call (inside the "
        f"step, where the gradient is taken), or build it first: `{owner.group(1)}.build("
        "input_shape)` or one call on a batch",
        evidence=f"`{owner.group(1)}` now has {now} {owner.group(2).replace('_', ' ')}",
    )


def _untracked_variables(call: LiveCall, text: str) -> Violation | None:
    """G04: ``zip(grads, model.trainable_variables)`` is empty because the model's layers made
    their weights as ``tf.Variable`` attributes: Keras 3 tracks only ``add_weight`` (and
    ``keras.Variable``) weights, where Keras 2 tracked any ``tf.Variable`` set on a layer."""
    zipped = re.match(
        r"^\s*zip\(\s*(.+?)\s*,\s*(\w+)\.(trainable_variables|trainable_weights)\s*\)", text
    )
    if zipped is None:
        return None
    model = value_of(call, zipped.group(2))
    if getattr(model, zipped.group(3), None) != [] or not getattr(model, "built", False):
        return None
    layers = [model, *all_sublayers(model)]
    found = [
        (layer, key)
        for layer in layers
        for key, value in list(vars(layer).items())[:200]
        if type(value).__name__ in ("ResourceVariable", "UninitializedVariable")
        and getattr(value, "trainable", False)
    ]
    if not found:
        return None
    layer = found[0][0]
    names = ", ".join(f"self.{key}" for lay, key in found if lay is layer)
    return Violation(
        "G04",
        text,
        f"`{zipped.group(2)}.{zipped.group(3)}` is empty although the model was called: layer "
        f"'{layer.name}' ({type(layer).__name__}) keeps its weights as tf.Variable attributes "
        f"({names}), which Keras 3 does not track, so no gradient and no update reaches them",
        f"make them with `self.add_weight(shape=..., initializer=..., name=...)` in "
        f"{type(layer).__name__}.build (or `keras.Variable`), so the layer tracks them",
        evidence=f"{len(found)} tf.Variable attribute(s) on the model's layers; "
        f"`{zipped.group(2)}.{zipped.group(3)}` = []",
    )


def _misaligned_pairs(call: LiveCall, pairs: list[tuple[Any, Any]], text: str) -> Violation | None:
    """(gradient, variable) pairs whose shapes differ: the gradients were taken for other
    variables than the ones they are zipped with (another model's, or ``model.variables``
    where the tape differentiated ``model.trainable_variables``)."""
    bad = [
        (i, shape_of(g), shape_of(v))
        for i, (g, v) in enumerate(pairs)
        if g is not None and is_variable(v) and shape_of(g) not in (None, shape_of(v))
    ]
    if not bad:
        return None
    index, grad_shape, var_shape = bad[0]
    variable = pairs[index][1]
    path = getattr(variable, "path", getattr(variable, "name", "?"))
    zipped = _ZIP.match(text)
    grads_name, paired = (zipped.group(1), zipped.group(2)) if zipped else ("grads", "")
    sources = _gradient_sources(call, grads_name) if zipped else ""
    shapes = [shape_of(g) for g, _ in pairs]
    owner = "" if sources else _model_with_shapes(call, shapes)
    taken_for = sources or (f"{owner}.trainable_variables" if owner else "")
    evidence = (
        f"pair {index}: gradient {fmt(grad_shape)} with variable '{path}' {fmt(var_shape)}; "
        f"{len(bad)} of {len(pairs)} pairs differ in shape"
    )
    if taken_for and taken_for != paired:
        return Violation(
            "S12",
            text,
            f"the gradients `{grads_name}` were taken for `{taken_for}` but are zipped with "
            f"`{paired or 'other variables'}`: each gradient is applied to a variable of "
            "another shape",
            f"zip them with the variables they were taken for: "
            f"`apply_gradients(zip({grads_name}, {taken_for}))`",
            evidence,
        )
    return Violation(
        "S12",
        text,
        "the (gradient, variable) pairs do not line up: a gradient is paired with a variable of "
        "another shape",
        "zip the gradients with the same variable list, in the same order, that was passed to "
        "`tape.gradient(loss, variables)`",
        evidence,
    )


def _model_with_shapes(call: LiveCall, shapes: list[Any]) -> str:
    """The name of the one model in the user's namespace whose trainable variables have these
    shapes, in this order; "" when none or several do."""
    found = []
    for name, model in models_in(call):
        try:
            own = [shape_of(v) for v in model.trainable_variables]
        except Exception:
            continue
        if own == shapes:
            found.append(name)
    return found[0] if len(found) == 1 else ""


def _gradient_sources(call: LiveCall, name: str) -> str:
    """The source of the variables in ``name = tape.gradient(loss, SOURCES)`` in the file of
    the call (a cell), "" when the last assignment of ``name`` before the call is not one."""
    assigned = last_assignment(call, name)
    match = re.match(r"^\w+\.gradient\(\s*[^,]+,\s*(.+)\)$", assigned)
    return match.group(1).strip() if match else ""


def _unknown_variables(call: LiveCall, variables: list[Any]) -> Violation | None:
    optimizer = call.receiver
    if not variables:  # the pairs were a consumed zip: the optimizer's own frame unzipped them
        variables = list(call.receiver_locals.get("trainable_variables") or [])
    known = _optimizer_variables(optimizer)
    if not known or not variables:
        return None
    unknown = [v for v in variables if is_variable(v) and not any(v is k for k in known)]
    if not unknown:
        return None
    return _shared_optimizer(call, optimizer, known, unknown, None)


def _optimizer_variables(optimizer: Any) -> list[Any]:
    if not getattr(optimizer, "built", False):
        return []
    found = getattr(optimizer, "_trainable_variables", None)
    return list(found) if isinstance(found, list | tuple) else []


def _shared_optimizer(
    call: LiveCall, optimizer: Any, known: list[Any], unknown: list[Any], model: Any
) -> Violation:
    owners = []
    for name, other in models_in(call):
        if other is model:
            continue
        try:
            weights = other.trainable_variables
        except Exception:
            continue
        if weights and all(any(w is k for k in known) for w in weights):
            owners.append(name)
    path = getattr(unknown[0], "path", getattr(unknown[0], "name", "?"))
    opt = type(optimizer).__name__
    grown = _grown_model(call, known, unknown, model)
    if grown and not owners:
        name, frozen = grown
        layers = f" (of {', '.join(frozen)})" if frozen else ""
        return Violation(
            "S12",
            call.source,
            f"the {opt} optimizer was built for {len(known)} of `{name}`'s variables, when part "
            f"of it was frozen; it is now given {len(unknown)} more{layers} that became "
            f"trainable after its first step (e.g. '{path}')",
            "after changing `trainable`, create a new optimizer for the new set of trainable "
            f"variables (`keras.optimizers.{opt}(...)`), or call `{name}.compile(...)` again "
            "with a new one under fit()",
            evidence=f"{len(known)} variables known to the optimizer, all of `{name}`; "
            f"`{name}` now has {len(known) + len(unknown)} trainable",
        )
    if owners:
        other = _owner_of(call, unknown[0])
        loop = call.method in ("apply_gradients", "apply")
        hint = (
            # a custom loop steps each model with the optimizer it is given: one more instance
            f"give `{other or 'the other model'}` its own optimizer: "
            f"`{other or 'other'}_opt = keras.optimizers.{opt}(...)`, and step it with "
            f"`{other or 'other'}_opt.apply_gradients(...)`"
            if loop
            else f"give each model its own optimizer: "
            f"`compile(optimizer=keras.optimizers.{opt}(...))` with a new instance (not the "
            "one the other model uses)"
        )
        return Violation(
            "S12",
            call.source,
            f"the {opt} optimizer was built for the variables of model `{owners[0]}` and is now "
            f"given others ({len(unknown)} unknown, e.g. '{path}'"
            + (f", of `{other}`" if other else "")
            + "): one optimizer instance serves one set of variables",
            hint,
            evidence=f"{len(known)} variables known to the optimizer",
        )
    return Violation(
        "S12",
        call.source,
        f"the {opt} optimizer was built for {len(known)} variables and is now given "
        f"{len(unknown)} it does not know (e.g. '{path}')",
        "two causes fit: layers were unfrozen (`trainable = True`) after the optimizer was "
        "built, so the step now trains variables it never saw: call `model.compile(...)` again "
        "with a new optimizer; or the optimizer instance is shared with another model: give each "
        "its own",
        evidence=f"{len(known)} variables known to the optimizer",
    )


def _owner_of(call: LiveCall, variable: Any) -> str:
    """The name of the smallest model in the user's namespace (or held by one as an
    attribute: ``self.generator``) that holds ``variable``, or ""."""
    found: list[tuple[int, str]] = []
    for name, model in models_in(call):
        parts = [(name, model)] + [
            (f"{name}.{attr}", sub)
            for attr, sub in list(vars(model).items())[:50]
            if not attr.startswith("_") and sub is not model and hasattr(sub, "trainable_variables")
        ]
        for label, candidate in parts:
            try:
                weights = list(candidate.trainable_variables)
            except Exception:
                continue
            if any(w is variable for w in weights):
                found.append((len(weights), label))
    return min(found)[1] if found else ""


def _grown_model(
    call: LiveCall, known: list[Any], unknown: list[Any], model: Any
) -> tuple[str, list[str]] | None:
    """The model whose trainable variables hold both what the optimizer knows and what it does
    not (its trainable set grew after the optimizer was built), with the layers that hold the
    new variables; None when the unknown variables belong to another model."""
    candidates = ([("model", model)] if model is not None else []) + models_in(call)
    for name, candidate in candidates:
        try:
            own = list(candidate.trainable_variables)
        except Exception:
            continue
        if all(any(k is w for w in own) for k in known) and all(
            any(u is w for w in own) for u in unknown
        ):
            names = [n for n, m in models_in(call) if m is candidate]
            prefixes = []
            for variable in unknown:
                head = str(getattr(variable, "path", "")).split("/")[0]
                if head and head not in prefixes:
                    prefixes.append(head)
            return (names[0] if names else name), [f"'{p}'" for p in prefixes[:3]]
    return None


def fit_optimizer(call: LiveCall, exc: BaseException) -> Violation | None:
    if "Unknown variable" not in str(exc):
        return None
    model = call.receiver
    optimizer = getattr(model, "optimizer", None)
    known = _optimizer_variables(optimizer)
    try:
        unknown = [v for v in model.trainable_variables if not any(v is k for k in known)]
    except Exception:
        return None
    if not known or not unknown:
        return None
    return _shared_optimizer(call, optimizer, known, unknown, model)


def tape_gradient(call: LiveCall, exc: BaseException) -> Violation | None:
    target, sources = call.value("target"), call.value("sources")
    if target is UNREAD or sources is UNREAD:
        return None
    if is_a(sources, "Layer"):
        return Violation(
            "S12",
            call.text("sources"),
            f"`tape.gradient` got a {type(sources).__name__} as its sources; it takes tensors or "
            "variables",
            f"pass the variables: `tape.gradient(loss, {call.text('sources')}.trainable_variables)`",
        )
    items = items_of(target)
    if items and all(is_variable(t) for t in items) and is_tensorlike(sources):
        return Violation(
            "S12",
            call.source,
            "`tape.gradient(target, sources)` got the variables as the target and a tensor as "
            "the sources",
            "put the loss first: `tape.gradient(loss, variables)`",
        )
    return None


# labels and image ops -----------------------------------------------------------------------


def learning_rate_type(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: an optimizer given a NumPy (or tensor) number as ``learning_rate``, where Keras
    takes a Python float, a LearningRateSchedule or a callable."""
    if "`learning_rate` should be float" not in str(exc):
        return None
    value = call.value("learning_rate")
    kind = type(value)
    if value is UNREAD or kind.__module__.split(".")[0] not in ("numpy", "tensorflow"):
        return None
    dtype = str(getattr(getattr(value, "dtype", None), "name", getattr(value, "dtype", "")))
    text = call.text("learning_rate") or "learning_rate"
    what = f"a NumPy {dtype} scalar" if kind.__module__.startswith("numpy") else f"a {dtype} tensor"
    if getattr(value, "ndim", 0):
        what = f"an array of shape {fmt(shape_of(value))}"
    return Violation(
        "S11",
        text,
        f"learning_rate `{text}` is {what} ({kind.__name__}), not a Python float: the "
        "optimizer takes a float, a LearningRateSchedule or a callable",
        f"pass a Python float: `learning_rate=float({text})`",
    )
