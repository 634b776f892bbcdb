"""Tapes and tf.function contracts (T03): a loss computed after the tape closed, a second
``gradient`` call on a non-persistent tape, a ``tf.Variable`` created on every call.

The late loss is read from the user's own source: the cell (or file) of the
frame that raised is parsed with :mod:`ast`, the ``with tf.GradientTape() as
tape:`` blocks and the ``tape.gradient(target, ...)`` calls found, and the
last assignment to ``target`` before the call compared with the block's lines.
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
from dataclasses import dataclass

from tfnb_debug.explain._context import ErrorContext, Frame
from tfnb_debug.explain._operands import call_name, cell_text
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

NO_GRADIENTS = "No gradients provided for any variable"
_TWICE = "A non-persistent GradientTape can only be used to compute one set of gradients"
_SINGLETON = "tf.function only supports singleton tf.Variables created on the first call"
# a tf.Variable made while Keras traces a layer's call (building the model, or in fit's graph)
_NOT_LIFTED = "could not be lifted out of a `tf.function`"
_BUILT_STATE = "You cannot add new elements of state (variables or sub-layers) to a layer that is already built"


@dataclass(frozen=True)
class LateLoss:
    """``tape.gradient(target)`` where ``target`` (or a term of it) was computed after the block."""

    target: str  # the expression given to tape.gradient
    tape: str  # the tape's name
    block_end: int  # last line of the ``with`` block
    line: int  # the line that computed the target (or the gradient call, for an expression)
    source: str  # that line's code
    term: bool  # a term was added after the block (``loss += ...``) to a loss computed inside
    frame: Frame
    call_line: int  # the line of the tape.gradient call
    #: the forward pass the loss is computed from ran before the block opened (``line`` and
    #: ``source`` are then that pass's assignment, ``early`` the name it assigned)
    early: str = ""


def late_loss(ctx: ErrorContext) -> LateLoss | None:
    """The first ``tape.gradient`` target in the failing user code computed outside its tape."""
    seen: set[str] = set()
    for frame in reversed(ctx.user_frames()):
        if frame.filename in seen:
            continue
        seen.add(frame.filename)
        tree = _parse(frame.filename)
        if tree is None:
            continue
        scope = _enclosing_scope(tree, frame.lineno)
        found = _late_in_scope(scope, frame)
        if found is not None:
            return found
    return None


def loss_lines(ctx: ErrorContext) -> str:
    """The lines inside a tape's block of the failing user code that compute a gradient target."""
    for frame in reversed(ctx.user_frames()):
        tree = _parse(frame.filename)
        if tree is None:
            continue
        nodes = _own_nodes(_enclosing_scope(tree, frame.lineno))
        blocks = _tape_blocks(nodes)
        if blocks:
            source = linecache.getlines(frame.filename)
            return "".join(
                source[line - 1]
                for start, end in blocks.values()
                for line in range(start + 1, end + 1)
                if line <= len(source)
            )
    return ""


def tape_misuse(ctx: ErrorContext) -> Explained | None:
    """T03: the tape or tf.function was used against its contract."""
    text = ctx.text
    if NO_GRADIENTS in text:
        late = late_loss(ctx)
        return _late_finding(ctx, late) if late is not None else None
    if _TWICE in text:
        return _gradient_twice(ctx)
    if _SINGLETON in text:
        return _variable_per_call(ctx)
    if _BUILT_STATE in text:
        return _state_after_build(ctx)
    if _NOT_LIFTED in text and "Variable" in text:
        return _variable_in_call(ctx)
    if _BRANCH_RETURN.search(text):
        return _contract(
            ctx,
            "a tf.function",
            "an `if` on a tensor returns in one branch only: AutoGraph turns it into tf.cond, "
            "and both branches of tf.cond must give a value of the same structure",
            _BRANCH_RETURN.search(text).group(0),  # type: ignore[union-attr]
            "return a value on every path (`else: return tf.zeros_like(...)`), or compute both "
            "results and choose with tf.where(cond, a, b)",
            by="AutoGraph",
        )
    if _OUT_OF_LOOP.search(text):
        return _contract(
            ctx,
            "a tf.function",
            "a tensor made inside a loop over a tensor (`for i in tf.range(n)`, a tf.while_loop "
            "once traced) was kept in a Python object (a list it appends to) and used after the "
            "loop, where it does not exist",
            "cannot be accessed ... defined in FuncGraph(name=while_body...), which is out of scope",
            "collect per-step values in a tf.TensorArray (`ta = tf.TensorArray(tf.float32, "
            "size=n)`, `ta = ta.write(i, value)` in the loop, `ta.stack()` after it), or loop "
            "over a Python `range(n)` with a Python int",
        )
    return None


_BRANCH_RETURN = re.compile(r"the (?:else|if|main) branch must also have a return statement")
_OUT_OF_LOOP = re.compile(
    r"cannot be accessed from FuncGraph\(.*?because it was defined in "
    r"FuncGraph\(name=while_body",
    re.S,
)


def _late_finding(ctx: ErrorContext, late: LateLoss) -> Explained:
    where = ctx.where(late.frame.filename, late.line)
    if late.early:
        return (
            finding(
                "T03",
                f"the loss `{late.target}` is computed inside the `with` block of tape "
                f"'{late.tape}' from `{late.early}`, but `{late.early}` was computed before the "
                "block opened, so the tape did not record the forward pass and no variable "
                "gets a gradient",
                place=where,
                evidence=f"`{late.source}` at line {late.line}, before the `with` block; "
                f'Keras: "{NO_GRADIENTS}"',
                hint=f"compute `{late.source}` inside the `with tf.GradientTape() as "
                f"{late.tape}:` block, before the loss",
            ),
            (),
        )
    what = (
        f"a term of the loss `{late.target}` was added after the `with` block of tape "
        f"'{late.tape}' closed"
        if late.term
        else f"the loss `{late.target}` given to `{late.tape}.gradient` was computed after the "
        f"`with` block of tape '{late.tape}' closed"
    )
    return (
        finding(
            "T03",
            f"{what}, so the tape did not record it and no variable gets a gradient",
            place=where,
            evidence=f"`{late.source}` at line {late.line}; the `with` block ends at line "
            f'{late.block_end}; Keras: "{NO_GRADIENTS}"',
            hint=_late_hint(late),
        ),
        (),
    )


def _late_hint(late: LateLoss) -> str:
    block = f"`with tf.GradientTape() as {late.tape}:` block"
    if late.line == late.call_line:  # the target is an expression computed in the call itself
        return (
            f"compute `{late.target}` inside the {block} (`loss = {late.target}`) and pass "
            f"`loss` to `{late.tape}.gradient`"
        )
    return (
        f"compute the whole loss inside the {block}: indent `{late.source}` into it (only "
        f"`{late.tape}.gradient(...)` and the update may come after the block)"
    )


def _gradient_twice(ctx: ErrorContext) -> Explained:
    return _contract(
        ctx,
        "the second tape.gradient call",
        "gradient was called a second time on a non-persistent GradientTape: a tape "
        "releases what it recorded after its first gradient call",
        _TWICE,
        "ask for every gradient in one call (`tape.gradient(loss, a + b)`), or create "
        "the tape with `tf.GradientTape(persistent=True)` and `del tape` when done",
    )


_LAYER_MADE = re.compile(r"^\s*(\w+)\s*=\s*((?:tf\.)?(?:keras\.)?layers\.\w+\(.*)$")


def _layer_made_in(ctx: ErrorContext) -> tuple[str, str] | None:
    """(variable, constructor call) of a Keras layer constructed in the body of the traced
    function, before the failing line (the one that line calls first)."""
    import linecache

    line = ctx.user_code_line()
    if line is None or not line[2]:
        return None
    filename, lineno, function, source = line
    lines = linecache.getlines(filename)
    name = function.rsplit(".", 1)[-1]
    start = next(
        (
            i
            for i in range(min(lineno, len(lines)) - 1, -1, -1)
            if re.match(rf"\s*def {name}\(", lines[i])
        ),
        None,
    )
    if start is None:
        return None
    made = [m for m in (_LAYER_MADE.match(x) for x in lines[start + 1 : lineno]) if m]
    called = [m for m in made if re.search(rf"\b{m.group(1)}\(", source)]
    chosen = (called or made)[0] if called or made else None
    return (chosen.group(1), chosen.group(2).strip()) if chosen else None


def _variable_per_call(ctx: ErrorContext) -> Explained:
    made = _layer_made_in(ctx)
    if made is not None:
        variable, constructor = made
        return _contract(
            ctx,
            "a tf.function",
            f"the function makes a new layer on each trace, `{variable} = {constructor}`, and "
            "its weights with it; a tf.function may create variables only on its first trace",
            _SINGLETON,
            f"create `{variable}` once, outside the function (or in a model's `__init__`), and "
            "only call it inside",
        )
    return _contract(
        ctx,
        "a tf.function",
        "a tf.function creates a tf.Variable each time it is traced: variables may only "
        "be created on the first call",
        _SINGLETON,
        "create the variable once, outside the function (or in a layer's `build`/"
        "`__init__`, e.g. with `self.add_weight`), and only `assign` to it inside",
    )


def _state_after_build(ctx: ErrorContext) -> Explained:
    """Keras 3 builds a layer before its first call and refuses new state after that: a weight
    (or sub-layer) created in ``call`` (or after ``build``) breaks it."""
    user = ctx.user_code_line()
    source = user[3] if user else ""
    function = user[2] if user else ""
    owner = function.rpartition(".")[0] if "." in function else "the layer"
    sublayer = re.search(r"\b(?:keras\.)?layers\.\w+\(", source) is not None
    if sublayer:
        what, hint = (
            "a sub-layer",
            "create the sub-layer once in `__init__` (`self.proj = keras.layers.Dense(...)`) "
            "and only call it in `call`",
        )
    else:
        what, hint = (
            "a weight",
            "create the weight in `build(self, input_shape)` with `self.add_weight(shape=..., "
            "...)` (sized from `input_shape[-1]`), or in `__init__` when its shape is fixed, and "
            "only use it in `call`",
        )
    in_method = function.rpartition(".")[2] if "." in function else ""
    return _contract(
        ctx,
        "the layer",
        f"{owner} creates {what} in `{in_method or 'call'}()`, after Keras built the layer: "
        "Keras 3 builds a layer before its first call and takes no new state after that",
        _BUILT_STATE,
        hint,
        by="Keras",
    )


def _variable_in_call(ctx: ErrorContext) -> Explained:
    """A ``tf.Variable(...)`` on a line the traced function runs: its initial value is a graph
    tensor, which TensorFlow cannot lift out to make a variable once."""
    user = ctx.user_code_line()
    function = user[2] if user else ""
    owner, _, method = function.rpartition(".")
    if owner and method == "call":
        return _contract(
            ctx,
            "the layer",
            f"{owner} creates a tf.Variable in `call()`, which Keras traces as a graph: a "
            "variable made there would be made anew on every call, and TensorFlow refuses it",
            _NOT_LIFTED,
            "create the weight once, in `build(self, input_shape)` with `self.w = "
            "self.add_weight(shape=(input_shape[-1],), initializer='ones')` (or in `__init__` "
            "when its shape is fixed), and only use it in `call`",
        )
    return _contract(
        ctx,
        "a tf.function",
        "a tf.Variable is created inside a traced function: its initial value is a graph "
        "tensor, so the variable cannot be made once, outside the graph",
        _NOT_LIFTED,
        "create the variable once, outside the function (or in a layer's `build`/"
        "`__init__`, with `self.add_weight`), and only `assign` to it inside",
    )


def _contract(
    ctx: ErrorContext, fallback: str, message: str, said: str, hint: str, by: str = "TensorFlow"
) -> Explained:
    """T03 at the user's line that broke the contract TensorFlow's message names."""
    user = ctx.user_code_line()
    place = ctx.where(user[0], user[1], user[2]) if user else fallback
    source = f"`{user[3]}`; " if user and user[3] else ""
    return (
        finding("T03", message, place=place, evidence=f'{source}{by}: "{said}"', hint=hint),
        (),
    )


def _parse(filename: str) -> ast.Module | None:
    lines = linecache.getlines(filename)
    return _parse_source("".join(lines)) if lines else None


@functools.lru_cache(maxsize=8)
def _parse_source(source: str) -> ast.Module | None:
    """The tree of a cell or file (read, never changed): the rules of one failing cell
    (late_loss, loss_lines) parse the same source once."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


_Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef


def _enclosing_scope(tree: ast.Module, lineno: int) -> _Scope:
    """The innermost function containing ``lineno``, else the module."""
    best: _Scope = tree
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            if node.lineno <= lineno <= end and (
                best is tree or node.lineno >= getattr(best, "lineno", 0)
            ):
                best = node
    return best


def _own_nodes(scope: _Scope) -> list[ast.AST]:
    """The nodes of ``scope`` outside nested functions and classes."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        out.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                stack.append(child)
    return out


def _tape_blocks(nodes: list[ast.AST]) -> dict[str, tuple[int, int]]:
    """``{tape name: (first, last line of its with block)}`` for ``with ...GradientTape(...) as t``."""
    blocks: dict[str, tuple[int, int]] = {}
    for node in nodes:
        if not isinstance(node, ast.With | ast.AsyncWith):
            continue
        for item in node.items:
            call = item.context_expr
            if (
                isinstance(call, ast.Call)
                and call_name(call.func).endswith("GradientTape")
                and isinstance(item.optional_vars, ast.Name)
            ):
                blocks[item.optional_vars.id] = (node.lineno, node.end_lineno or node.lineno)
    return blocks


def _late_in_scope(scope: _Scope, frame: Frame) -> LateLoss | None:
    nodes = _own_nodes(scope)
    blocks = _tape_blocks(nodes)
    if not blocks:
        return None
    assigns = _assignments(nodes)
    calls = sorted(
        (
            n
            for n in nodes
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "gradient"
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id in blocks
            and n.args
        ),
        key=lambda n: n.lineno,
    )
    source = linecache.getlines(frame.filename)
    for call in calls:
        tape = call.func.value.id  # type: ignore[attr-defined]
        start, end = blocks[tape]
        target = call.args[0]
        text = ast.unparse(target)
        if isinstance(target, ast.Name):
            before = [a for a in assigns.get(target.id, []) if a[0] < call.lineno]
            if not before:
                continue
            line, augmented = before[-1]
            inside = [a for a in before if start <= a[0] <= end]
            if line > end:
                term = augmented and bool(inside)
                return LateLoss(
                    text, tape, end, line, _line(source, line), term, frame, call.lineno
                )
            if start <= line <= end:
                early = _early_forward(nodes, assigns, target.id, line, start)
                if early is not None:
                    name, at = early
                    return LateLoss(
                        text, tape, end, at, _line(source, at), False, frame, call.lineno, name
                    )
        elif call.lineno > end and _mentions_computation(target):
            where = _line(source, call.lineno)
            return LateLoss(text, tape, end, call.lineno, where, False, frame, call.lineno)
    return None


_LIBRARIES = frozenset({"tf", "np", "keras", "ops", "math", "jnp", "numpy", "tensorflow"})


def _early_forward(
    nodes: list[ast.AST],
    assigns: dict[str, list[tuple[int, bool]]],
    target: str,
    line: int,
    start: int,
) -> tuple[str, int] | None:
    """``(name, line)`` of a value the target's assignment inside the block reads that was
    last assigned before the block opened by a call of the user's own object (``pred =
    model(x)``: the forward pass), when the assignment itself calls no such object."""
    value = next(
        (
            n.value
            for n in nodes
            if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)
            and n.lineno == line
            and n.value is not None
        ),
        None,
    )
    if value is None:
        return None
    called_inside = _user_callees(value)  # a loss function, or the model again
    names = dict.fromkeys(n.id for n in ast.walk(value) if isinstance(n, ast.Name))
    for name in names:
        earlier = [a for a in assigns.get(name, []) if a[0] < line]
        if not earlier or earlier[-1][0] >= start:
            continue
        at = earlier[-1][0]
        assigned = next(
            (n.value for n in nodes if isinstance(n, ast.Assign) and n.lineno == at), None
        )
        forward = _user_callees(assigned) if assigned is not None else set()
        if forward and not forward & called_inside:  # the block does not run it again
            return name, at
    return None


def _user_callees(expr: ast.expr) -> set[str]:
    """The objects of the user's own that ``expr`` calls, as written up to the call (``model``
    for ``model(x)``, ``self.g`` for ``self.g(z)``, ``self`` for ``self(x)``), library
    functions left out: a block that calls ``self.d`` does not run ``self.g`` again."""
    found = set()
    for node in ast.walk(expr):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        root = func
        while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
            root = root.value if not isinstance(root, ast.Call) else root.func
        if isinstance(root, ast.Name) and root.id not in _LIBRARIES:
            found.add(ast.unparse(func) if _dotted(func) else root.id)
    return found


def _dotted(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _assignments(nodes: list[ast.AST]) -> dict[str, list[tuple[int, bool]]]:
    """``{name: [(line, augmented), ...]}`` sorted by line."""
    found: dict[str, list[tuple[int, bool]]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            targets, augmented, line = node.targets, False, node.lineno
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets, augmented, line = [node.target], isinstance(node, ast.AugAssign), node.lineno
        else:
            continue
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    found.setdefault(name.id, []).append((line, augmented))
    for entries in found.values():
        entries.sort()
    return found


def _mentions_computation(expr: ast.expr) -> bool:
    """An expression that computes something (a call or arithmetic), not a plain name."""
    return any(isinstance(n, ast.Call | ast.BinOp | ast.UnaryOp) for n in ast.walk(expr))


def _line(source: list[str], lineno: int) -> str:
    return re.sub(r"\s+", " ", source[lineno - 1].strip()) if 0 < lineno <= len(source) else ""


def gradient_target(ctx: ErrorContext) -> str | None:
    """The name the cell passes to ``tape.gradient`` first (``error_rate``), or None."""
    found = re.search(r"\.gradient\(\s*(\w+)", cell_text(ctx.user_frames()))
    return found.group(1) if found else None


_CUTS = re.compile(
    r"\b(?:tf\.|keras\.ops\.|ops\.|np\.|numpy\.)?(argmax|argmin|argsort|round|floor|ceil|"
    r"sign|equal|greater|less|cast|numpy|stop_gradient)\b(?:\s*\()?"
)


_PREDICT = re.compile(r"\b([A-Za-z_][\w.]*)\.(predict(?:_on_batch)?)\s*\(")


def gradient_cuts(source: str) -> tuple[str, ...]:
    """The ops in ``source`` that have no gradient (or cut it), as written, first seen first
    (``model.predict`` too: it returns NumPy arrays, outside any tape)."""
    found: list[str] = []
    for line in source.splitlines():
        code = line.split("#", 1)[0]
        for match in _PREDICT.finditer(code):
            token = f"{match.group(1)}.{match.group(2)}"
            if token not in found:
                found.append(token)
        code = _PREDICT.sub("", code)
        for match in _CUTS.finditer(code):
            token = match.group(0).rstrip("( ")
            if token == "numpy" and ".numpy" not in code:
                continue
            if token.endswith("cast") and not re.search(r"int|bool", code):
                continue  # a cast between float types keeps the gradient
            if token.endswith("stop_gradient"):  # what it stops: tf.stop_gradient(q_values)
                stopped = re.search(r"stop_gradient\(\s*([\w.\[\]]+)\s*\)", code)
                made = re.match(r"\s*(\w+)\s*=[^=]", code)
                token += (
                    f"({stopped.group(1)})"
                    if stopped
                    else f"(...) that makes `{made.group(1)}`"
                    if made
                    else ""
                )
            if token not in found:
                found.append(token)
    return tuple(found)
