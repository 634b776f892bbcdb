"""Which loss each optimizer step's gradients came from, and the names the user gave it.

A step may compute several losses, each with its own ``GradientTape`` and optimizer
(a GAN: ``gen_loss`` for the generator, ``disc_loss`` for the discriminator).  Each
``tape.gradient(target, sources)`` call is noted with the gradients it returned; the
gradients an optimizer then applies are matched to that call by identity (the objects
``gradient`` returned), or, inside a ``tf.function``, through the ops that made them
from those (clipped or scaled gradients).  A step whose gradients match no call gets the
one loss computed since (the way a single-loss step was always read), and none when more
than one is pending: a loss is never given to the wrong optimizer.

The names, best first, are what the source shows:

* the Python variable the loss was held in at the ``gradient`` call
  (``gen_tape.gradient(gen_loss, ...)`` -> ``gen_loss``), read from the code that
  made the call (a notebook cell, a module, or the code AutoGraph generated for a
  ``tf.function``, whose ``ag__.ld(gen_loss)`` names the same variable);
* the variable the optimizer is bound to where ``apply_gradients`` was called
  (``generator_optimizer``);
* the variable of the Keras model whose trainable variables the step updates
  (``generator``).

Only names read from the calling code are kept: none is guessed.
"""

from __future__ import annotations

import ast
import linecache
import sys
import threading
import types
import weakref
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from tfnb_debug.collect.trained_models import model_names

__all__ = ["LossTargets", "MatchedLoss", "caller_frame", "names_bound_to"]

#: gradient calls remembered per thread (the oldest is dropped first)
KEEP = 8
#: ops walked back from one applied gradient inside a graph to reach a noted one
WALK = 64
#: modules whose frames are no user's code (their calls are not the user's words)
_LIBRARIES = ("tensorflow", "keras", "tf_keras", "tfnb_debug", "absl", "numpy")


@dataclass(frozen=True)
class MatchedLoss:
    """The target of the ``gradient`` call an optimizer step's gradients came from."""

    loss: Any  # the scalar floating target (a tensor), or None when it is not one
    name: str | None  # the Python variable holding it at the call, when the code shows one


@dataclass(eq=False)
class _Call:
    loss: Any
    name: str | None
    refs: dict[int, Any]  # id -> weak reference of each gradient (an id is never reused)


class LossTargets:
    """The ``gradient`` calls of one capture, per thread (each replica of a distributed
    step runs in its own)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _calls(self) -> list[_Call]:
        calls = getattr(self._local, "calls", None)
        if calls is None:
            calls = self._local.calls = []
        return calls

    def note(self, target: Any, result: Any, frame: types.FrameType | None) -> None:
        """A ``tape.gradient(target, ...)`` call returned ``result``; ``frame`` made the call."""
        # a scalar loss, or one with no elements (a Keras loss over a replica's empty batch)
        usable = isinstance(target, tf.Tensor | tf.Variable) and (
            target.shape.rank == 0 or target.shape.num_elements() == 0
        )
        loss = target if usable and target.dtype.is_floating else None
        grads = [g for g in tf.nest.flatten(result) if g is not None]
        refs: dict[int, Any] = {}
        for g in grads:
            try:
                refs[id(g)] = weakref.ref(g)
            except TypeError:
                refs[id(g)] = lambda g=g: g  # not weakly referable: held for the step
        calls = self._calls()
        calls.append(_Call(loss, _target_name(frame), refs))
        del calls[:-KEEP]

    def take(self, grads: list[Any]) -> MatchedLoss | None:
        """The loss the gradients applied now came from (the call is used up), or None."""
        calls = self._calls()
        present = [g for g in grads if g is not None]
        call = _by_identity(calls, present) or _through_ops(calls, present)
        if call is None:
            if len({id(c.loss) for c in calls}) != 1:
                calls.clear()  # none, or several losses and no way to tell which: none
                return None
            call = calls[-1]
        calls.remove(call)
        return MatchedLoss(call.loss, call.name)


def _returned(call: _Call, grad: Any) -> bool:
    """Whether ``grad`` is one of the gradients the call returned (the object itself)."""
    ref = call.refs.get(id(grad))
    return ref is not None and ref() is grad


def _by_identity(calls: list[_Call], grads: list[Any]) -> _Call | None:
    for call in reversed(calls):
        if any(_returned(call, g) for g in grads):
            return call
    return None


def _through_ops(calls: list[_Call], grads: list[Any]) -> _Call | None:
    """Inside a graph: the one noted call whose gradients the applied ones were made from."""
    if not calls or not grads or any(not hasattr(g, "op") for g in grads):
        return None
    found: set[int] = set()
    for g in grads:
        seen: set[int] = set()
        todo = [g]
        while todo and len(seen) < WALK:
            tensor = todo.pop()
            if id(tensor) in seen:
                continue
            seen.add(id(tensor))
            hit = [i for i, c in enumerate(calls) if _returned(c, tensor)]
            if hit:
                found.update(hit)
                continue
            op = getattr(tensor, "op", None)
            todo.extend(getattr(op, "inputs", ()))
    return calls[found.pop()] if len(found) == 1 else None


# -- names from the calling code ------------------------------------------------------------


def caller_frame(frame: types.FrameType | None) -> types.FrameType | None:
    """The first frame from ``frame`` up that is the user's code (not a library's)."""
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module.split(".", 1)[0] not in _LIBRARIES:
            return frame
        frame = frame.f_back
    return None


def _call_source(code: types.CodeType, lasti: int, globals_: Any) -> str | None:
    """The source of the expression at instruction ``lasti`` (a call), from its code positions."""
    try:
        positions = list(code.co_positions())[lasti // 2]
    except (AttributeError, IndexError):
        return None
    start, end, col, end_col = positions
    if None in positions:
        return None
    assert start is not None and end is not None and col is not None and end_col is not None
    lines = [linecache.getline(code.co_filename, n, globals_) for n in range(start, end + 1)]
    if not all(lines):
        return None
    raw = [line.encode("utf-8") for line in lines]  # offsets count UTF-8 bytes
    if len(raw) == 1:
        text = raw[0][col:end_col]
    else:
        text = b"".join([raw[0][col:], *raw[1:-1], raw[-1][:end_col]])
    return text.decode("utf-8", errors="replace")


def _target_name(frame: types.FrameType | None) -> str | None:
    """The variable passed as the target of the ``gradient`` call ``frame`` is making.

    ``frame`` is the frame that called ``gradient`` (AutoGraph's call machinery is
    skipped up to the code it generated); only a plain variable counts.
    """
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(
        "tensorflow.python.autograph"
    ):
        frame = frame.f_back
    if frame is None or str(frame.f_globals.get("__name__", "")).split(".")[0] in _LIBRARIES:
        return None
    return _name_at(frame.f_code, frame.f_lasti, frame.f_globals)


#: the name read at each call site (code object, instruction), the oldest dropped first
_NAMES: dict[tuple[types.CodeType, int], str | None] = {}
_NAMES_KEPT = 256


def _name_at(code: types.CodeType, lasti: int, globals_: Any) -> str | None:
    """The name at a call site, read once: an eager loop makes the same call every step."""
    key = (code, lasti)
    if key not in _NAMES:
        if len(_NAMES) >= _NAMES_KEPT:
            _NAMES.pop(next(iter(_NAMES)), None)
        _NAMES[key] = _read_name(code, lasti, globals_)
    return _NAMES[key]


def _read_name(code: types.CodeType, lasti: int, globals_: Any) -> str | None:
    """The target variable of the ``gradient`` call at instruction ``lasti`` of ``code``."""
    source = _call_source(code, lasti, globals_)
    if source is None:
        return None
    try:
        call = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return None
    generated = "__autograph_generated_file" in code.co_filename
    args: list[ast.expr] = list(call.args)
    keywords: dict[str | None, ast.expr] = {k.arg: k.value for k in call.keywords}
    if generated and call.func.attr == "converted_call" and len(args) >= 2:
        # ag__.converted_call(ag__.ld(tape).gradient, (ag__.ld(loss), ...), kwargs, fscope)
        method, packed = args[0], args[1]
        if not isinstance(method, ast.Attribute) or not isinstance(packed, ast.Tuple):
            return None
        attr = method.attr
        args = list(packed.elts)
        keywords = {}
        if len(call.args) > 2 and isinstance(call.args[2], ast.Dict):
            pairs = zip(call.args[2].keys, call.args[2].values, strict=True)
            keywords = {
                k.value: v for k, v in pairs if isinstance(k, ast.Constant) and type(k.value) is str
            }
    else:
        attr = call.func.attr
    if attr != "gradient":
        return None
    target = args[0] if args else keywords.get("target")
    return _variable(target, generated)


def _variable(node: ast.expr | None, generated: bool) -> str | None:
    if isinstance(node, ast.Name) and not generated:
        return node.id
    if generated and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        # ag__.ld(name), or ag__.ldu(lambda: name, 'name') for a name maybe undefined
        if node.func.attr == "ld" and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            return node.args[0].id
        if node.func.attr == "ldu" and len(node.args) == 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                return name.value
    return None


def names_bound_to(obj: Any, frame: types.FrameType | None) -> list[str]:
    """The variables of ``frame`` (its locals, then its globals) bound to ``obj`` itself."""
    if frame is None:
        return []
    names = []
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in list(scope.items()):
            if value is obj and not name.startswith("_") and name not in names:
                names.append(name)
    return names


def evidence_names(
    matched: MatchedLoss | None, optimizer: Any, variables: list[Any]
) -> tuple[str, ...]:
    """The names the calling code gives a step's loss, best first (see the module's text):
    read when the step is taken (traced) under the optimizer's ``apply``."""
    names: list[str] = []
    if matched is not None and matched.name:
        names.append(matched.name)
    frame = caller_frame(sys._getframe(1))
    bound = names_bound_to(optimizer, frame)
    if len(bound) == 1:
        names.append(bound[0])
    models = model_names(variables, frame)
    if len(models) == 1:
        names.append(models[0])
    return tuple(dict.fromkeys(names))
