"""The ground the contract modules share: a broken call contract as plain values, and how
they read a value's shape (and write one), a model's output names, what kind of value an
argument is, the source text of an argument's item (``x`` of ``(x, y)``), and the names the
user's namespaces give to values and models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tfnb_debug.explain._api import LiveCall


@dataclass(frozen=True)
class Violation:
    """One argument that breaks the called API's contract."""

    code: str  # catalog code: S12 structure, S01 layer input, S07 op shape, S11 dtype, P12 range
    argument: str  # the argument as the user wrote it
    problem: str  # what it is, against what the API takes
    hint: str  # the fix, derived from both
    evidence: str = ""
    quote_call: bool = True  # the evidence starts with the user's call as written


def shape_of(value: Any) -> tuple[int | None, ...] | None:
    """The shape of an array, tensor, KerasTensor or TensorSpec, None when it has none."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        return tuple(None if d is None else int(d) for d in shape)
    except Exception:
        return None


def features_spec(spec: Any) -> Any:
    """The features of a dataset's element spec: the first part of an (x, y[, w]) tuple, else
    the spec itself."""
    return spec[0] if isinstance(spec, tuple) and spec else spec


def fmt(shape: tuple[int | None, ...] | None) -> str:
    """``(None, 8)``, ``(8,)``; ``(?)`` when the shape is unknown."""
    if shape is None:
        return "(?)"
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def output_names(model: Any) -> list[str]:
    """The names a loss dict, a target dict or ``class_weight`` are keyed by: the keys of a
    model built with a dict of outputs (``keras.Model(inp, {"price": ...})``), else the output
    layers' names (``model.output_names``); [] when it has none to read."""
    structure = getattr(model, "_outputs_struct", None)
    if isinstance(structure, dict):
        return [str(k) for k in structure]
    try:
        return [str(n) for n in model.output_names]
    except Exception:
        return []


def is_variable(value: Any) -> bool:
    return any(
        c.__name__ in ("Variable", "ResourceVariable", "BaseResourceVariable")
        for c in type(value).__mro__
    )


def is_tensorlike(value: Any) -> bool:
    return shape_of(value) is not None and not is_variable(value)


def is_a(value: Any, *class_names: str) -> bool:
    return any(c.__name__ in class_names for c in type(value).__mro__)


def items_of(value: Any) -> list[Any] | None:
    return list(value) if isinstance(value, list | tuple) else None


def name_in(call: LiveCall, value: Any) -> str:
    for space in call.namespaces[:2]:
        for key, item in list(space.items()):
            if item is value and not key.startswith("_"):
                return key
    return ""


def models_in(call: LiveCall) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for space in call.namespaces[:6]:
        for key, value in list(space.items()):
            if key.startswith("_") or not is_a(value, "Model"):
                continue
            if all(value is not m for _, m in out):
                out.append((key, value))
    return out[:30]


def is_number(text: str) -> bool:
    """Whether a text reads as a number ('1.5', '-3', 'nan')."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def item_text(text: str, index: int | str) -> str:
    """The source of item ``index`` of an argument: ``x`` of ``(x, y)``, else ``text[index]``."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Tuple | ast.List) and isinstance(index, int) and index < len(node.elts):
        return ast.unparse(node.elts[index])
    if isinstance(node, ast.Dict) and isinstance(index, str):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == index:
                return ast.unparse(value)
    return f"{text}[{index!r}]"
