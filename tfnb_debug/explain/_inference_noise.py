"""Two inference calls of one model on the same input that a check finds different (C01).

Keras runs a model in inference mode in ``predict`` and in ``model(x)``: its own random
layers (Dropout, GaussianNoise, the augmentation layers) pass their input through then,
and a layer's ``call`` learns the mode from its ``training`` argument.  A custom layer that
draws random numbers in ``call`` without taking ``training`` adds them in inference too.
The check here is the user's failing comparison (``tf.debugging.assert_near(first,
second)``, ``np.testing.assert_allclose``): both values were assigned above from calls of
one model on the same argument, and the model holds such a layer.  Its ``call`` source is
read, never run.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._violation import Violation

__all__ = ["INFERENCE_NOISE", "repeated_inference_differs"]

_INFERENCE = ("predict", "predict_on_batch", "__call__")
_RANDOM = re.compile(r"\b(?:tf\.random|keras\.random|np\.random|random)\.\w+\(|tf\.nn\.dropout\(")


def repeated_inference_differs(call: LiveCall, exc: BaseException) -> Violation | None:
    """C01: the compared values come from two inference calls of one model on one input,
    and a layer of the model draws random numbers in a ``call`` that takes no ``training``."""
    texts = [call.text(p) for p in ("x", "actual", "a", "arg0") if call.value(p) is not UNREAD]
    texts += [call.text(p) for p in ("y", "desired", "b", "arg1") if call.value(p) is not UNREAD]
    if len(texts) < 2:
        return None
    made = [_inference_call(t, call) for t in texts[:2]]
    if any(m is None for m in made):
        return None
    (model_text, model, arg), (other_text, other, other_arg) = made  # type: ignore[misc]
    if model is not other or arg != other_arg:
        return None
    noisy = [layer for layer in all_sublayers(model) if _random_without_training(layer)]
    if not noisy:
        return None
    layer = noisy[0]
    kind = type(layer).__name__
    return Violation(
        "C01",
        model_text,
        f"`{texts[0]}` and `{texts[1]}` are two inference calls of `{model_text}` on "
        f"`{arg}`, and layer '{layer.name}' ({kind}) draws random numbers in its call, which "
        "takes no `training` argument: the noise is added in predict too, so they differ",
        f"give {kind}.call a training argument and add the noise only when training, `def "
        "call(self, x, training=None): return x + noise if training else x` (or use "
        "keras.layers.GaussianNoise, which does)",
        f"{kind}.call({', '.join(_parameters(layer))}) reads a random op",
    )


def _inference_call(text: str, call: LiveCall) -> tuple[str, Any, str] | None:
    """(the model as written, the model, its argument as written) of ``text = model.predict(x)``
    (or ``model(x)``) above the failing line."""
    source = assigned_before(text, call.filename, call.lineno) if text.isidentifier() else text
    try:
        node = ast.parse(source, mode="eval").body if source else None
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _INFERENCE:
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    model = next((s[func.id] for s in call.namespaces if func.id in s), None)
    if model is None or not all_sublayers(model):
        return None
    return func.id, model, ast.unparse(node.args[0])


def _random_without_training(layer: Any) -> bool:
    klass = type(layer)
    if klass.__module__.split(".")[0] in ("keras", "tf_keras", "tensorflow"):
        return False  # Keras' own random layers read the mode
    if "training" in _parameters(layer):
        return False
    try:
        source = textwrap.dedent(inspect.getsource(klass.call))
    except (OSError, TypeError):
        return False
    return bool(_RANDOM.search(source))


def _parameters(layer: Any) -> list[str]:
    try:
        return list(inspect.signature(type(layer).call).parameters)[1:]
    except (TypeError, ValueError):
        return []


#: this module's contracts, as ``Contract`` arguments (apis, check, explains)
INFERENCE_NOISE: tuple[tuple[Any, ...], ...] = (
    (
        ("assert_near", "assert_equal", "assert_allclose", "assert_array_equal"),
        repeated_inference_differs,
        (),
    ),
)
