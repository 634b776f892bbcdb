"""Which ``raise`` sites of the installed Keras and TensorFlow the diagnosis covers, per API.

For each API users call most, :func:`raise_sites` reads the source of the
function that runs (unwrapped from decorators) and of the functions it calls
in its own module or on its own class, two calls deep, and lists every
``raise`` statement with its exception type and the literal head of its
message.  A site is *covered by a contract* when a contract of
:mod:`._contracts` for that API names a pattern the message matches, *by a
message rule* when one of the explain rules' patterns matches it, else
*uncovered*.  A site that is new in another Keras shows up as uncovered: the
reader never fails on code it does not know.

Exceptions raised by Python or NumPy inside the API (an ``IndexError`` from
indexing, an ``AttributeError`` on a wrong type) are not ``raise`` statements;
the contracts cover them by checking the arguments, which this table does not
count.  ``python scripts/explain_coverage.py --write`` writes the table into
docs/diagnostics.md; a test checks that it is current for the installed Keras.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Any

# public name -> how to find the function that runs (resolved lazily; keras/tf imported then)
API_PATHS: tuple[tuple[str, str], ...] = (
    ("keras.Model.fit", "keras.Model.fit"),
    ("keras.Model.evaluate", "keras.Model.evaluate"),
    ("keras.Model.predict", "keras.Model.predict"),
    ("keras.Model.compile", "keras.Model.compile"),
    ("keras.Model.save", "keras.Model.save"),
    ("keras.saving.load_model", "keras.saving.load_model"),
    ("keras.Model (Functional construction)", "keras.src.models.functional.Functional.__init__"),
    ("keras.layers.Layer.__call__", "keras.layers.Layer.__call__"),
    ("keras.layers.Layer.add_weight", "keras.layers.Layer.add_weight"),
    ("keras.layers.Layer.set_weights", "keras.layers.Layer.set_weights"),
    ("keras.layers.RNN.call (initial_state)", "keras.layers.RNN.call"),
    ("keras.layers.Attention.call", "keras.layers.Attention.call"),
    ("keras.layers.MultiHeadAttention.call", "keras.layers.MultiHeadAttention.call"),
    ("keras.layers.Concatenate.build", "keras.layers.Concatenate.build"),
    ("keras.optimizers.Optimizer.apply_gradients", "keras.optimizers.Optimizer.apply_gradients"),
    ("keras.optimizers.Optimizer.apply", "keras.optimizers.Optimizer.apply"),
    ("keras.layers.Normalization.adapt", "keras.layers.Normalization.adapt"),
    ("keras.layers.TextVectorization.adapt", "keras.layers.TextVectorization.adapt"),
    ("keras.utils.to_categorical", "keras.utils.to_categorical"),
    ("keras.callbacks.ModelCheckpoint", "keras.callbacks.ModelCheckpoint.__init__"),
    ("tf.GradientTape.gradient", "tf.GradientTape.gradient"),
    ("tf.image.resize", "tf.image.resize"),
    ("tf.data.Dataset.from_generator", "tf.data.Dataset.from_generator"),
    ("tf.data.Dataset.from_tensor_slices", "tf.data.Dataset.from_tensor_slices"),
    ("tf.data.Dataset.map", "tf.data.Dataset.map"),
    ("tf.data.Dataset.batch", "tf.data.Dataset.batch"),
    ("tf.data.Dataset.padded_batch", "tf.data.Dataset.padded_batch"),
)
# which contract names (see _contracts.CONTRACTS' apis) stand for each public name
CONTRACT_NAMES: dict[str, tuple[str, ...]] = {
    "keras.Model.fit": ("Model.fit",),
    "keras.Model.evaluate": ("Model.evaluate",),
    "keras.Model.predict": ("Model.predict",),
    "keras.Model.compile": ("Model.compile",),
    "keras.Model (Functional construction)": ("keras.Model", "keras.Function"),
    "keras.layers.Layer.add_weight": ("Layer.add_weight",),
    "keras.layers.Layer.set_weights": ("Layer.set_weights",),
    "keras.layers.RNN.call (initial_state)": ("RNN", "Bidirectional"),
    "keras.layers.Attention.call": ("Attention",),
    "keras.layers.MultiHeadAttention.call": ("MultiHeadAttention",),
    "keras.layers.Concatenate.build": ("Concatenate",),
    "keras.optimizers.Optimizer.apply_gradients": ("Optimizer.apply_gradients",),
    "keras.optimizers.Optimizer.apply": ("Optimizer.apply",),
    "keras.utils.to_categorical": ("to_categorical",),
    "tf.GradientTape.gradient": ("GradientTape.gradient",),
    "tf.image.resize": ("tf.image.",),
    "tf.data.Dataset.from_tensor_slices": ("Dataset.from_tensor_slices",),
    "tf.data.Dataset.map": ("Dataset.map",),
    "tf.data.Dataset.padded_batch": ("Dataset.padded_batch",),
}


@dataclass(frozen=True)
class RaiseSite:
    """One ``raise`` statement an API can reach: where, what type, the literal head of the message."""

    api: str
    file: str  # relative to the package's site-packages folder
    line: int
    exception: str
    message: str
    covered_by: str  # "contract", "rule" or ""


def _resolve(path: str) -> Any:
    import importlib

    parts = path.split(".")
    root = parts[0]
    obj: Any = importlib.import_module("tensorflow" if root == "tf" else root)
    for i, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(
                ".".join(["tensorflow" if root == "tf" else root, *parts[1 : i + 1]])
            )
    return obj


def _function(obj: Any) -> Any:
    obj = getattr(obj, "__func__", obj)
    try:
        return inspect.unwrap(obj)
    except Exception:
        return obj


def _message_head(node: ast.Raise) -> tuple[str, str]:
    exc = node.exc
    if exc is None:
        return "(re-raise)", ""
    func = exc.func if isinstance(exc, ast.Call) else exc
    name = ast.unparse(func).rpartition(".")[2]
    if not isinstance(exc, ast.Call) or not exc.args:
        return name, ""
    return name, _literal(exc.args[0])


def _literal(node: ast.expr) -> str:
    """The literal text of a message: f-strings with ``{...}`` for their fields, "+" joined."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)  # type: ignore[misc]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _literal(node.left) + (_literal(node.right) if isinstance(node.op, ast.Add) else "")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    ):
        return _literal(node.func.value)
    return ""


def _called(function: Any, tree: ast.AST) -> list[Any]:
    """The functions ``function`` calls that live in its module or on its class."""
    import importlib

    module = inspect.getmodule(function)
    globals_ = dict(vars(module)) if module is not None else {}
    for node in ast.walk(tree):  # imports inside the function (tf.data imports its ops lazily)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = alias.asname or alias.name
                try:  # a submodule is an attribute of its package only once something imported it
                    globals_[name] = importlib.import_module(f"{node.module}.{alias.name}")
                    continue
                except Exception:
                    pass
                try:
                    globals_[name] = getattr(importlib.import_module(node.module), alias.name)
                except Exception:
                    continue
    owner_name = function.__qualname__.rpartition(".")[0]
    owner = globals_.get(owner_name.split(".")[0]) if owner_name else None
    found: list[Any] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target: Any = None
        if isinstance(node.func, ast.Name):
            target = globals_.get(node.func.id)
        elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            base = node.func.value.id
            if base in ("self", "cls") and owner is not None:
                target = getattr(owner, node.func.attr, None)
            elif inspect.ismodule(globals_.get(base)):
                target = getattr(globals_[base], node.func.attr, None)
        if inspect.isclass(target):
            target = vars(target).get("__init__")
        target = _function(target) if target is not None else None
        if inspect.isfunction(target) and _is_library(target):
            found.append(target)
    return found


def _is_library(function: Any) -> bool:
    module = getattr(function, "__module__", "") or ""
    return module.split(".")[0] in ("keras", "tensorflow")


def _sites_of(function: Any, depth: int, seen: set[Any]) -> list[tuple[str, int, str, str]]:
    if function in seen or not inspect.isfunction(function):
        return []
    seen.add(function)
    try:
        lines, start = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        file = inspect.getsourcefile(function) or ""
    except (OSError, TypeError, SyntaxError):
        return []
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            exc, message = _message_head(node)
            if exc != "(re-raise)":
                sites.append((file, start + node.lineno - 1, exc, message))
    if depth > 0:
        for callee in _called(function, tree):
            sites.extend(_sites_of(callee, depth - 1, seen))
    return sites


def _rule_patterns() -> list[re.Pattern[str]]:
    """Every compiled pattern of the explain rules' modules (what the message rules read)."""
    import importlib
    import pkgutil

    import tfnb_debug.explain as package

    patterns: list[re.Pattern[str]] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        patterns.extend(
            v for v in vars(module).values() if isinstance(v, re.Pattern) and _specific(v.pattern)
        )
    return patterns


def _specific(pattern: str) -> bool:
    """A pattern that names an error (a literal run of 12+ characters), not a shape or a quote
    reader such as ``'([^']*)'`` that would match any message."""
    runs = re.split(r"\\.|[\[\]\(\)\{\}\*\+\?\|\^\$.]", pattern)
    return any(len(run) >= 12 for run in runs)


_FIELDS = ("X", "1", "(None, 1)", "'x'")


def _matches(pattern: str | re.Pattern[str], message: str) -> bool:
    """A pattern explains a site when it matches the message's literal text with its fields
    filled by a word, a number, a shape or a quoted name (one of them)."""
    if not message.replace("{...}", "").strip():
        return False
    try:
        return any(re.search(pattern, message.replace("{...}", f)) for f in _FIELDS)
    except re.error:
        return False


def raise_sites(
    apis: tuple[tuple[str, str], ...] = API_PATHS, depth: int = 2
) -> tuple[list[RaiseSite], list[str]]:
    """Every raise site each API reaches, with its coverage; and the APIs that did not resolve."""
    from tfnb_debug.explain._contracts import CONTRACTS

    rules = _rule_patterns()
    out: list[RaiseSite] = []
    missing: list[str] = []
    for api, path in apis:
        try:
            function = _function(_resolve(path))
        except Exception:
            missing.append(api)
            continue
        names = CONTRACT_NAMES.get(api, ())
        explains = [p for c in CONTRACTS if set(c.apis) & set(names) for p in c.explains]
        for file, line, exc, message in _sites_of(function, depth, set()):
            if any(_matches(p, message) for p in explains):
                covered = "contract"
            elif message and any(_matches(p, message) for p in rules):
                covered = "rule"
            else:
                covered = ""
            relative = file.split("site-packages/")[-1]
            out.append(
                RaiseSite(api, relative, line, exc, " ".join(message.split())[:120], covered)
            )
    return out, missing


def coverage_table(sites: list[RaiseSite], apis: tuple[tuple[str, str], ...] = API_PATHS) -> str:
    """The Markdown table of docs/diagnostics.md: per API, sites reached and how many are covered."""
    rows = [
        "| API | raise sites reached | by a contract | by a message rule | uncovered |",
        "|---|---|---|---|---|",
    ]
    for api, _ in apis:
        mine = [s for s in sites if s.api == api]
        contract = sum(s.covered_by == "contract" for s in mine)
        rule = sum(s.covered_by == "rule" for s in mine)
        rows.append(
            f"| `{api}` | {len(mine)} | {contract} | {rule} | {len(mine) - contract - rule} |"
        )
    total = len(sites)
    contract = sum(s.covered_by == "contract" for s in sites)
    rule = sum(s.covered_by == "rule" for s in sites)
    rows.append(f"| all | {total} | {contract} | {rule} | {total - contract - rule} |")
    return "\n".join(rows)
