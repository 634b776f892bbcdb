"""``%tfshape`` and ``%%tfshape``: thin wrappers over :func:`tfnb_debug.trace_shapes` and :func:`tfnb_debug.record_shapes`."""

from __future__ import annotations

import ast
import contextlib
import re
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, kwds, magic_arguments

from tfnb_debug.magics.auto import mark_reported
from tfnb_debug.magics.memory import mem_argument
from tfnb_debug.magics.shell import (
    check_output_arguments,
    compile_cell,
    emit,
    emit_partial,
    evaluate,
    hidden_hook_frames,
    output_arguments,
    parse_arguments,
    run_user_code,
    usage_errors,
)
from tfnb_debug.magics.shell import split_options as split_leading_options

# argparse formats this with %(prog)s; the help shows the first line after "%"
_USAGE = (
    "%(prog)s [--input-shape SHAPE] [--no-stats] [--inspect] [-q] [-o] [-v NAME] MODEL [INPUT]\n"
    "  %%%%%(prog)s [--no-stats] [--inspect] [--mem] [-q] [-o] [-v NAME]   (cell magic)"
)


def split_options(line: str) -> tuple[str, str]:
    """Leading options and the raw code after them (kept verbatim; ``--`` ends the options)."""
    return split_leading_options(ShapeMagics.tfshape, line)


def split_model_input(code: str) -> tuple[str, str]:
    """``MODEL [INPUT]``: split at the first top-level space where both sides are expressions."""
    code = code.strip()
    if not code:
        raise UsageError("no model given: `%tfshape MODEL [INPUT]`, e.g. `%tfshape model x[:2]`")
    if _is_expression(code):
        return code, ""
    for match in re.finditer(r"\s+", code):
        left, right = code[: match.start()], code[match.end() :]
        if _is_expression(left) and _is_expression(right):
            return left, right
    raise UsageError(
        f"cannot read {code!r} as `MODEL [INPUT]`: give a model expression and optionally an "
        "input expression, e.g. `%tfshape model x_train[:2]`"
    )


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return bool(text.strip())


@magics_class
class ShapeMagics(Magics):
    @no_var_expand
    @line_cell_magic
    @magic_arguments()
    @kwds(usage=_USAGE)
    @argument("--input-shape", default=None, help="batch-first input shape, e.g. 2,28,28,1")
    @argument("--no-stats", action="store_true", help="shapes only, no output statistics")
    @argument(
        "--inspect",
        action="store_true",
        help="click-through layer inspector (widgets; the static table everywhere else)",
    )
    @mem_argument
    @output_arguments
    # MODEL and INPUT are read off the raw line (split_model_input), never by argparse: they
    # are here for the help and for whatever reads a magic's arguments off its parser
    @argument("model", nargs="?", metavar="MODEL", help="the Keras model (an expression)")
    @argument("input", nargs="?", metavar="INPUT", help="the input batch (an expression)")
    def tfshape(self, line: str, cell: str | None = None) -> Any:
        """Per-layer shape table, in call order, that still appears when a layer fails.

        Line magic: ``%tfshape [options] MODEL [INPUT]`` calls MODEL once on INPUT
        (an expression: array, tensor, list or dict of them) or, without it, on a
        synthetic batch built from the model's input spec or ``--input-shape``.

        Cell magic: ``%%tfshape [options]`` runs the cell and records every Keras
        layer call it makes (eager, symbolic while a Functional model is built,
        traced inside tf.function, and those of a ``keras.Sequential([...])``
        whose construction fails).

        If a layer raises, the partial table is shown with the failing row
        marked and finding S01, then your exception is raised as usual.

        Options: ``-q`` do not display, ``-o`` return the report, ``-v NAME``
        store it in NAME, ``--no-stats`` shapes only, ``--input-shape 2,28,28,1``,
        ``--mem`` (cell magic) adds the ``%%tfmem`` memory plot and findings,
        ``--inspect`` shows the click-through layer inspector (click a layer:
        its config, weights, parameter arithmetic, output, gradients, findings;
        ``-o``/``-v`` then give the inspector, whose ``.report`` is the table).

        Examples::

            %tfshape model x_train[:8]
            %tfshape model --input-shape 2,28,28,1
            %tfshape --inspect model x_train[:8]
            report = %tfshape -q -o model

            %%tfshape
            y = model(x)
        """
        __tracebackhide__ = True
        shell = self.shell
        assert shell is not None
        options, code = split_options(line)
        args = parse_arguments(self.tfshape, options, cell=cell is not None)
        check_output_arguments(args)
        if cell is None:
            return _line(shell, args, code)
        if code:
            raise UsageError(f"%%tfshape takes only options on its line, got {code!r}")
        if args.input_shape is not None:
            raise UsageError(
                "--input-shape builds a batch for the line magic `%tfshape MODEL --input-shape "
                "2,28,28,1`: %%tfshape records the calls the cell itself makes"
            )
        return _cell(shell, args, cell)


def _line(shell: Any, args: Any, code: str) -> Any:
    """``%tfshape MODEL [INPUT]``: trace one call; a failing layer shows the partial table first."""
    __tracebackhide__ = True
    from tfnb_debug.features.shapes import trace_shapes

    if args.mem:
        raise UsageError("--mem records memory while a cell runs: use it with %%tfshape")
    model_text, input_text = split_model_input(code)
    model = evaluate(shell, model_text, "model")
    inputs = evaluate(shell, input_text, "input") if input_text else None
    if args.inspect:
        from tfnb_debug.widgets.api import inspect_for_magic

        with usage_errors(), hidden_hook_frames(shell):
            return inspect_for_magic(
                shell,
                model,
                inputs,
                args,
                input_shape=args.input_shape,
                stats=not args.no_stats,
                name=model_text,
            )
    shown: list[Any] = []

    def on_failure(partial: Any) -> None:
        shown.append(partial)
        emit_partial(shell, partial, args)

    try:
        with usage_errors(), hidden_hook_frames(shell):
            report = trace_shapes(
                model,
                inputs,
                input_shape=args.input_shape,
                stats=not args.no_stats,
                reraise=True,
                on_failure=on_failure,
                name=model_text,
            )
    except BaseException as err:
        if shown:
            mark_reported(err)  # the partial table and S01 above already explain it
        raise
    return emit(shell, report, args)


def _cell(shell: Any, args: Any, cell: str) -> Any:
    """``%%tfshape``: record every layer call of the cell; on failure show how far it got."""
    __tracebackhide__ = True
    from tfnb_debug.features.memory import track_memory, with_memory
    from tfnb_debug.features.shapes import record_shapes

    code = compile_cell(shell, cell)  # a syntax error stops it here, before any recording
    recording = record_shapes(stats=not args.no_stats)
    memory = track_memory(enabled=args.mem)
    try:
        with memory, recording:
            result = run_user_code(shell, code)
    except BaseException as err:
        if recording.report.failing_call is not None or recording.report.explained:
            mark_reported(err)  # the table and its findings above already explain it
        with contextlib.suppress(Exception):  # never replace the user's own error
            _show_cell(shell, with_memory(recording.report, memory), args)
        raise
    shown = _show_cell(shell, with_memory(recording.report, memory), args)
    return shown if args.output else result


def _show_cell(shell: Any, report: Any, args: Any) -> Any:
    """Display the cell's report (or its inspector, with ``--inspect``); what ``-o`` returns."""
    if args.inspect:
        from tfnb_debug.widgets.api import inspector_for_cell

        return inspector_for_cell(shell, report, args) or report
    emit(shell, report, args)
    return report
