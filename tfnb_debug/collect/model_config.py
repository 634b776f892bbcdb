"""What a model's configuration says about how it can start learning (plain reading, no call).

The layers that make its outputs, its hidden sigmoid/tanh and ReLU layers, and the
initializers that cannot start a layer that learns.  Read by the fix trial (which
changes them on a copy, :mod:`tfnb_debug.collect.fix_trial`) and by the fit outcome
(P16's hint for an output that ignores its input, :mod:`tfnb_debug.collect.fit_outcome`).
"""

from __future__ import annotations

import math
from typing import Any

from tfnb_debug.records.trials import Schedule, Setting

__all__ = [
    "bias_problem",
    "hidden_blockers",
    "hidden_saturating",
    "hidden_saturating_layers",
    "kernel_problem",
    "optimizer_defaults",
    "optimizer_settings",
    "schedule_over_run",
    "output_layers",
    "safe_config",
    "suspicious_initializers",
]

_SATURATING = frozenset({"sigmoid", "tanh", "hard_sigmoid"})


def schedule_over_run(model: Any, steps: int) -> Schedule | None:
    """``model``'s learning-rate schedule over the recorded ``steps``: its highest rate at
    about 32 evenly spaced steps, the powers of two and the first and last step, and its
    rate at the last; None when the learning rate is a number or the schedule cannot be
    rebuilt.  The schedule is a fresh copy made from the optimizer's config, so the user's
    own object and the optimizer are not touched (a registered custom schedule is called
    as the optimizer would call it)."""
    import keras

    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or steps < 1:
        return None
    try:
        config = optimizer.get_config().get("learning_rate")
        if not isinstance(config, dict):
            return None
        schedule = keras.optimizers.schedules.deserialize(config)
        doubling = [2**k for k in range(steps.bit_length()) if 2**k < steps]  # a short warm-up
        probes = sorted({0, steps - 1, *doubling, *range(0, steps, max(1, steps // 32))})
        rates = [float(schedule(step)) for step in probes]
    except Exception:
        return None
    counted = tuple(
        (key, repr(value))
        for key, value in config.get("config", {}).items()
        if (key.endswith("steps") or key == "boundaries") and value is not None
    )
    name = str(config.get("class_name", "schedule"))
    return Schedule(name, max(rates), rates[-1], steps, counted)


def optimizer_defaults(model: Any) -> dict[str, float | None]:
    """The numeric defaults of the constructor of ``model``'s optimizer class, by argument
    (``SGD``: ``learning_rate`` 0.01, ``momentum`` 0.0; ``clipnorm`` None): what a setting
    is when the user did not pass it."""
    import inspect

    try:
        parameters = inspect.signature(type(model.optimizer).__init__).parameters
    except (AttributeError, TypeError, ValueError):
        return {}
    return {
        name: float(p.default)
        if isinstance(p.default, int | float) and not isinstance(p.default, bool)
        else None
        for name, p in parameters.items()
    }


def optimizer_settings(model: Any) -> tuple[Setting, ...]:
    """Every numeric setting of ``model``'s optimizer that is set, except its learning rate
    and the booleans, with the default its class's constructor gives it
    (:func:`optimizer_defaults`: ``SGD(momentum=0.0)``, ``Adam(beta_2=0.999)``,
    ``clipnorm=None``)."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None:
        return ()
    try:
        config = optimizer.get_config()
    except Exception:
        return ()
    defaults = optimizer_defaults(model)
    return tuple(
        Setting(type(optimizer).__name__, name, float(value), defaults.get(name))
        for name, value in config.items()
        if name != "learning_rate"
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    )


def suspicious_initializers(model: Any, *, up_to: Any = None, small: bool = True) -> list[str]:
    """``'name' (what)`` for each layer of ``model`` whose kernel or bias initializer cannot
    start a layer that learns: a constant kernel (zeros, ones, ``Constant``: every unit
    starts the same and stays so), a random kernel with a spread of 1 or more or 1e-4 or
    less (saturating or vanishing from the first step) or one too small for the layer's
    fan-in (:data:`SMALL_GAIN`), a bias of magnitude 1 or more (ReLUs dead, or sigmoids
    saturated, before training).  ``up_to``: stop after that layer (the layers that feed
    it, in the model's order); ``small=False``: leave out the spreads that are too small
    (they shrink a signal, they never pin a unit at its bounds)."""
    found = []
    for layer in getattr(model, "layers", []):
        config = safe_config(layer)
        if config is not None:
            kernel = kernel_problem(config, fan_in_of(layer), small=small)
            why = [w for w in (kernel, bias_problem(config)) if w]
            if why:
                found.append(f"'{layer.name}' ({', '.join(why)})")
        if layer is up_to:
            break
    return found


def init_of(config: dict[str, Any], key: str) -> tuple[str, dict[str, Any]] | None:
    """An initializer of a layer config as ``(class name, its config)``, or None."""
    value = config.get(key)
    if isinstance(value, dict):
        return str(value.get("class_name", "")), dict(value.get("config") or {})
    if isinstance(value, str):
        return value, {}
    return None


#: a random kernel whose std x sqrt(fan-in) is below this shrinks a signal (and its
#: gradient) by half or more at every layer: Glorot's and LeCun's keep it at about 1
SMALL_GAIN = 0.5


def fan_in_of(layer: Any) -> int | None:
    """The inputs each unit of ``layer``'s built kernel sums (all axes but the last)."""
    shape = getattr(getattr(layer, "kernel", None), "shape", None)
    try:
        dims = [int(d) for d in shape] if shape is not None else []
    except (TypeError, ValueError):
        return None
    return math.prod(dims[:-1]) if len(dims) >= 2 else None


def kernel_problem(config: dict[str, Any], fan_in: int | None = None, *, small: bool = True) -> str:
    """Why the config's kernel initializer cannot start learning, or ''; with the layer's
    ``fan_in``, also a random spread too small for it (:data:`SMALL_GAIN`).  ``small=False``
    leaves out the spreads that are too small (they shrink a signal, they never pin a unit
    at its bounds)."""
    init = init_of(config, "kernel_initializer")
    if init is None:
        return ""
    name, args = init
    if name.lower() in {"zeros", "ones", "constant"}:
        return f"{name} kernel"
    spread = None
    if name in {"RandomNormal", "TruncatedNormal"}:
        spread = float(args.get("stddev", 0.05))
    elif name == "RandomUniform":
        spread = max(abs(float(args.get("minval", -0.05))), abs(float(args.get("maxval", 0.05))))
    if spread is not None and (spread >= 1.0 or (small and spread <= 1e-4)):
        return f"{name} kernel of spread {spread:g}"
    if spread is not None and fan_in and small:
        std = spread / math.sqrt(3.0) if name == "RandomUniform" else spread
        gain = std * math.sqrt(fan_in)
        if gain < SMALL_GAIN:
            return (
                f"{name} kernel of spread {spread:g}, {gain:.2g}x the 1/sqrt(fan_in) scale "
                f"for its {fan_in} inputs"
            )
    return ""


def bias_problem(config: dict[str, Any]) -> str:
    """Why the config's bias initializer cannot start learning, or ''."""
    init = init_of(config, "bias_initializer")
    if init is None or not config.get("use_bias", True):
        return ""
    name, args = init
    value = 1.0 if name.lower() == "ones" else args.get("value") if name == "Constant" else None
    if isinstance(value, int | float) and abs(value) >= 1.0:
        return f"bias {value:g}"
    return ""


def safe_config(layer: Any) -> dict[str, Any] | None:
    """The layer's ``get_config()``, or None when it raises."""
    try:
        return dict(layer.get_config())
    except Exception:
        return None


def hidden_saturating_layers(model: Any) -> list[str]:
    """The names of ``model``'s hidden layers with a sigmoid/tanh activation."""
    return [layer.name for layer in hidden_saturating(model)]


def hidden_saturating(model: Any) -> list[Any]:
    """``model``'s hidden layers (not making an output) with a sigmoid/tanh activation."""
    outputs = {id(layer) for layer in output_layers(model)}
    return [
        layer
        for layer in getattr(model, "layers", [])
        if id(layer) not in outputs
        and getattr(getattr(layer, "activation", None), "__name__", None) in _SATURATING
    ]


def output_layers(model: Any) -> list[Any]:
    """The layers that make ``model``'s outputs (its last layer when they cannot be read)."""
    outputs = getattr(model, "outputs", None) or []
    found = []
    for t in outputs:
        history = getattr(t, "_keras_history", None)
        if history is not None:
            found.append(history[0])
    layers = getattr(model, "layers", [])
    return found or layers[-1:]


_RELU = frozenset({"relu", "relu6"})


def hidden_blockers(model: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What in the model's configuration could keep the input from its output (a constant
    output): hidden ReLUs (dead), hidden sigmoid/tanh (saturated), initializers that
    cannot start learning.  Read only when the output is constant."""
    outputs = {id(layer) for layer in output_layers(model)}
    relu = tuple(
        layer.name
        for layer in getattr(model, "layers", [])
        if id(layer) not in outputs
        and (
            getattr(getattr(layer, "activation", None), "__name__", None) in _RELU
            or (type(layer).__name__ == "ReLU" and not getattr(layer, "negative_slope", 0))
        )
    )
    found = (
        ("initializer", tuple(suspicious_initializers(model))),
        ("relu", relu),
        ("saturating", tuple(hidden_saturating_layers(model))),
    )
    return tuple((kind, names) for kind, names in found if names)
