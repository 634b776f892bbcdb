"""Glue shared by every magic: running the user's cell, finding names, showing reports.

Imported only when the extension loads or a magic runs, never by ``import tfnb_debug``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from types import CodeType
from typing import Any, TypeVar

from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic_arguments import argument

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Report
from tfnb_debug.ground.text import first_line
from tfnb_debug.magics.tracebacks import hidden_hook_frames

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class CompiledCell:
    """A cell's code, compiled: the statements, and its last expression when it ends in one."""

    body: CodeType
    last: CodeType | None


def compile_cell(shell: InteractiveShell, source: str) -> CompiledCell:
    """Compile a cell as IPython would (its ``%magics``, ``!cmd`` lines and AST transformers).

    A cell magic compiles first, before it starts recording anything: a
    syntax error or a top-level ``await`` is refused before the cell runs.
    """
    code = shell.transform_cell(source)
    # IPython 9 wants the transformed cell passed in (it no longer transforms it itself).
    if shell.should_run_async(source, transformed_cell=code, preprocessing_exc_tuple=None):
        raise UsageError(
            "tfnb_debug cell magics cannot run top-level `await`; wrap the code in a function "
            "and call it with asyncio.run(...)"
        )
    filename = shell.compile.cache(code, shell.execution_count, raw_code=source)
    tree = shell.transform_ast(_parse(shell, code, filename))
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        expression = ast.Expression(tree.body.pop().value)
        last = shell.compile(expression, filename, "eval")  # type: ignore[arg-type]
    return CompiledCell(shell.compile(tree, filename, "exec"), last)


def run_user_code(shell: InteractiveShell, cell: str | CompiledCell) -> Any:
    """Run a cell's code once, in the user namespace, and return its last expression's value.

    Not ``shell.run_cell``: nested inside a magic that would mark the cell as
    successful even when the user's code raised.  The user's exception
    propagates unchanged, with no frame from inside tfnb_debug in its traceback.
    """
    __tracebackhide__ = True
    compiled = cell if isinstance(cell, CompiledCell) else compile_cell(shell, cell)
    namespace = shell.user_ns
    with hidden_hook_frames(shell):
        exec(compiled.body, namespace)
        if compiled.last is not None:
            return eval(compiled.last, namespace)
    return None


def _parse(shell: InteractiveShell, code: str, filename: str) -> Any:
    """The cell's syntax tree; a syntax error is shown as IPython shows one (the cell's line,
    no frame from inside the magic) and the cell fails with a one-line ``UsageError``."""
    try:
        return shell.compile.ast_parse(code, filename=filename)
    except SyntaxError:
        shell.showsyntaxerror()
    raise UsageError("the cell has a syntax error (shown above), so none of it ran")


def evaluate(shell: InteractiveShell, expression: str, what: str) -> Any:
    """Evaluate ``expression`` in the user namespace; a bad name is a one-line ``UsageError``."""
    text = expression.strip()
    if not text:
        raise UsageError(f"no {what} given")
    try:
        return eval(text, shell.user_ns)
    except NameError as err:
        name = getattr(err, "name", None) or text
        raise UsageError(
            f"{what} {name!r} is not defined in the notebook: run the cell that defines it first"
        ) from None
    except SyntaxError as err:
        raise UsageError(f"{what} {text!r} is not a valid Python expression: {err.msg}") from None
    except Exception as err:
        raise UsageError(
            f"evaluating {what} {text!r} raised {type(err).__name__}: {first_line(err)}"
        ) from None


def evaluate_model(shell: InteractiveShell, expression: str, option: str, example: str) -> Any:
    """The Keras model an option such as ``--model NAME`` names; anything else is a ``UsageError``.

    ``example``: how the option is used, for the message (``%%tfmem --model model``).
    """
    from tfnb_debug.collect.keras_access import require_keras

    with usage_errors():
        return require_keras(
            evaluate(shell, expression, "model"),
            what=f"{option} {expression}",
            built=False,
            example=f"give the name of a Keras model, e.g. `{example}`",
        )


# the kinds of notebook objects magics look for: (module that must be imported, class path)
_KINDS: dict[str, tuple[str, str]] = {
    "model": ("keras", "Model"),
    "layer": ("keras", "layers.Layer"),
    "optimizer": ("keras", "optimizers.Optimizer"),
    "dataset": ("tensorflow", "data.Dataset"),
}


def user_objects(
    shell: InteractiveShell, kinds: Iterable[str], *, private: bool = False
) -> dict[str, Any]:
    """The notebook's objects of some ``kinds``, by name, in the order they were defined.

    Kinds: ``"model"``, ``"layer"``, ``"optimizer"`` (Keras), ``"dataset"``
    (``tf.data``), ``"function"`` (a ``tf.function``).  A kind whose library was
    never imported has no objects, so nothing is imported here.  Names that
    start with ``_`` (IPython's output history, private helpers) only with
    ``private``.
    """
    classes: list[type] = []
    functions = False
    for kind in kinds:
        if kind == "function":
            functions = True
            continue
        module_name, path = _KINDS[kind]
        found: Any = sys.modules.get(module_name)
        if found is None:
            continue
        for part in path.split("."):
            found = getattr(found, part)
        classes.append(found)
    wanted = tuple(classes)
    return {
        name: value
        for name, value in list(shell.user_ns.items())
        if (private or not name.startswith("_"))
        and (
            isinstance(value, wanted)
            or (functions and hasattr(value, "experimental_get_tracing_count"))
        )
    }


#: a word that looks like an option (``-q``, ``--input-shape=2,4``, ``--bogus``), not ``-1``
_OPTION = re.compile(r"--?[A-Za-z]")


def split_options(magic: Any, line: str) -> tuple[str, str]:
    """A line magic's options and the raw code between them, read off its ``@argument`` lines.

    ``magic`` is the method decorated with ``@magic_arguments`` (its ``parser``).

    Leading words that look like options are options (a known one with its
    value when it takes one; an unknown one is left for argparse to name); the
    first other word starts the code, which is kept verbatim (string literals,
    spaces and negative numbers survive).  Option-looking words after the code
    (`` -q``, `` --bogus``: a space before, outside brackets and strings) are
    options too.  ``--`` ends the options explicitly: all after it is code.
    """
    parser: argparse.ArgumentParser = magic.parser
    known = parser._option_string_actions
    end = 0
    tokens = re.finditer(r"\S+", line)
    for token in tokens:
        text = token.group()
        if text == "--":
            return line[:end], line[token.end() :].strip()
        action = known.get(text.partition("=")[0])
        if action is None and not _OPTION.match(text):
            break
        end = token.end()
        if action is not None and action.nargs != 0 and "=" not in text:
            value = next(tokens, None)
            end = value.end() if value is not None else end
    code = line[end:].strip()
    tail = trailing_options(code)
    return f"{line[:end]} {code[tail:]}".strip(), code[:tail].strip()


def trailing_options(code: str) -> int:
    """Where options written after the code start (``len(code)`` when there are none).

    The first word that looks like an option, after a space, outside brackets
    and string literals: ``model x --bogus`` -> ``--bogus``, while
    ``model x[:, -1]`` and ``f(a, -b)`` keep their minus signs.
    """
    depth, quote, index = 0, "", 0
    while index < len(code):
        char = code[index]
        if quote:
            if char == "\\":
                index += 1
            elif code.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char in "'\"":
            quote = code[index : index + 3] if code[index : index + 3] in ('"""', "'''") else char
            index += len(quote) - 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and code[index - 1 : index].isspace() and _OPTION.match(code, index):
            return index
        index += 1
    return len(code)


def parse_arguments(magic: Any, line: str, *, cell: bool = False) -> Any:
    """``parse_argstring``, with argparse's complaint made one line: what is wrong (an unknown
    option named as one), then the magic's usage.  ``cell``: called as a cell magic."""
    try:
        return magic.parser.parse_args(grouped_arguments(line))
    except UsageError as err:
        problem = _argparse_problem(str(err))
    except ValueError as err:  # shlex: "No closing quotation"
        problem = f"cannot read the arguments: {str(err).lower()}"
    raise UsageError(f"{problem}; usage: {usage_line(magic, cell=cell)}")


_OPEN, _CLOSE = "([{", ")]}"


def grouped_arguments(line: str) -> list[str]:
    """IPython's split of a magic's line (``arg_split``), with the pieces of a bracketed
    expression that holds spaces joined back into one argument: ``--data (x, y)`` gives
    ``['--data', '(x, y)']`` where the split alone gives ``['--data', '(x,', 'y)']``.
    Brackets inside quotes do not count; an unbalanced line is split as IPython splits it."""
    from IPython.utils._process_common import arg_split

    words = arg_split(line, strict=True)
    grouped: list[str] = []
    pending: list[str] = []
    for word in words:
        pending.append(word)
        if _bracket_balance(" ".join(pending)) <= 0:  # quotes may span the split pieces
            grouped.append(" ".join(pending))
            pending = []
    return grouped if not pending else words


def _bracket_balance(word: str) -> int:
    balance, quote = 0, ""
    for char in word:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in _OPEN:
            balance += 1
        elif char in _CLOSE:
            balance -= 1
    return balance


def _argparse_problem(message: str) -> str:
    missing = re.fullmatch(r"the following arguments are required: (.*)", message.strip())
    if missing is not None:
        return f"missing {missing.group(1)}"
    match = re.fullmatch(r"unrecognized arguments: (.*)", message.strip())
    if match is None:
        return message.strip()
    words = match.group(1).split()
    options = [w for w in words if _OPTION.match(w)]
    others = [w for w in words if not _OPTION.match(w)]
    parts = []
    if options:
        parts.append(f"unknown option{'s' * (len(options) > 1)} {' '.join(options)}")
    if others:
        parts.append(f"unexpected argument{'s' * (len(others) > 1)} {' '.join(others)}")
    return " and ".join(parts)


def usage_line(magic: Any, *, cell: bool = False) -> str:
    """The magic's usage on one line, for its line form (or, with ``cell``, its cell form)."""
    parser: argparse.ArgumentParser = magic.parser
    forms: list[str] = []
    for row in parser.format_usage().replace("::", "", 1).splitlines():
        if row.strip().startswith("%") or (forms and row.strip()):
            if row.strip().startswith("%"):
                forms.append("")
            forms[-1] = " ".join(f"{forms[-1]} {row}".split())
    name = f"%{parser.prog}"
    wanted = [f for f in forms if f.startswith("%%") == cell] or forms
    form = wanted[0] if wanted else name
    return f"%{form}" if cell and not form.startswith("%%") else form


def options_given(magic: Any, args: Any, dests: Iterable[str]) -> list[str]:
    """The option strings of ``dests`` whose value in ``args`` is not the parser's default."""
    parser: argparse.ArgumentParser = magic.parser
    given = []
    for action in parser._actions:
        if action.dest in dests and getattr(args, action.dest, None) != action.default:
            given.append(action.option_strings[-1] if action.option_strings else action.dest)
    return given


def output_arguments(func: F) -> F:
    """The IPython conventions every tfnb_debug magic takes: ``-q``, ``-o`` and ``-v NAME``."""
    func = argument(
        "-v",
        "--var",
        metavar="NAME",
        default=None,
        help="store the report in the notebook variable NAME",
    )(func)
    func = argument(
        "-o",
        "--output",
        action="store_true",
        help="also return the report (`r = %%magic -o ...`); add -q to return it without showing it",
    )(func)
    func = argument("-q", "--quiet", action="store_true", help="do not display the report")(func)
    return func


def check_output_arguments(args: Any) -> Any:
    """Refuse a bad ``-v NAME`` at once, before a cell runs (never after the user's code)."""
    if getattr(args, "var", None) and not args.var.isidentifier():
        raise UsageError(f"-v needs a Python variable name, got {args.var!r}")
    return args


def emit(shell: Any, report: Report, args: Any, *, live: Any = None) -> Report | None:
    """Display, store and/or return a report as the ``-q``/``-o``/``-v`` options ask.

    ``live``: the cell's :class:`~tfnb_debug.features.live.LiveView`; its display is
    replaced by the report (instead of a second output below it).
    """
    check_output_arguments(args)
    if not args.quiet and (live is None or not live.show(report)):
        from IPython.display import display

        display(report)
    if args.var:
        shell.user_ns[args.var] = report
    return report if args.output else None


def emit_partial(shell: Any, report: Report | None, args: Any, *, live: Any = None) -> None:
    """Show (and store) how far a failing cell got, while the user's exception is in flight.

    A failure to show it is swallowed: it must never replace the user's own error.
    Without a report, a live view is left showing its last update, marked as ended.
    """
    if report is None:
        if live is not None:
            live.close()
        return
    with contextlib.suppress(Exception):
        emit(shell, report, args, live=live)


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """Turn tfnb_debug's bad-input errors into IPython's one-line ``UsageError``."""
    try:
        yield
    except TfnbDebugError as err:
        raise UsageError(str(err)) from None


def split_code(line: str) -> tuple[str, str]:
    """Split a line magic into its leading options and the raw code after ``--``.

    The code is kept verbatim (no re-joined argparse tokens, so string literals
    and negative numbers survive).
    """
    if " -- " in f" {line} ":
        head, _, tail = f" {line} ".partition(" -- ")
        return head.strip(), tail.strip()
    return line, ""
