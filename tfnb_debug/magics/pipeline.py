"""``%tfpipeline`` and ``%%tfpipeline``: thin wrappers over :func:`tfnb_debug.inspect_pipeline`."""

from __future__ import annotations

import time
from typing import Any

from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, kwds, magic_arguments

from tfnb_debug.magics.memory import mem_argument
from tfnb_debug.magics.shell import (
    check_output_arguments,
    compile_cell,
    emit,
    evaluate,
    evaluate_model,
    output_arguments,
    parse_arguments,
    run_user_code,
    split_code,
    usage_errors,
    user_objects,
)


class _ProgressLine:
    """A one-line progress display updated in place, cleared at the end."""

    def __init__(self, every_s: float = 0.25) -> None:
        self.handle: Any = None
        self.every_s = every_s
        self.last = 0.0

    def __call__(self, what: str, fraction: float) -> None:
        # called per element while timing: stay cheap and update the display rarely
        now = time.monotonic()
        if now - self.last < self.every_s:
            return
        self.last = now
        from IPython.display import HTML, display

        html = HTML(
            f'<div style="font-size:12px;color:#555;">tfpipeline: {what} '
            f'<progress value="{fraction:.2f}" max="1"></progress></div>'
        )
        if self.handle is None:
            self.handle = display(html, display_id=True)
        else:
            self.handle.update(html)

    def close(self) -> None:
        if self.handle is not None:
            from IPython.display import HTML

            self.handle.update(HTML(""))


# argparse formats this with %(prog)s; the help shows the first line after "%"
_USAGE = (
    "%(prog)s [--model MODEL] [--batches N] [--class-names EXPR] [--no-timing] "
    "[--against DS2] [-q] [-o] [-v NAME] DS   (or [options] -- EXPRESSION)\n"
    "  %%%%%(prog)s [--model MODEL] [--batches N] [--class-names EXPR] [--no-timing] [--mem] "
    "[-q] [-o] [-v NAME]   (cell magic)"
)


@magics_class
class PipelineMagics(Magics):
    @property
    def _ip(self) -> InteractiveShell:
        assert self.shell is not None
        return self.shell

    @no_var_expand
    @line_cell_magic
    @magic_arguments()
    @kwds(usage=_USAGE)
    @argument("dataset", nargs="?", default=None, help="the tf.data.Dataset (a name or expression)")
    @argument(
        "--model", default=None, help="a compiled Keras model: P11 input-bound, N04, P10, P12"
    )
    @argument("--batches", type=int, default=2, help="how many batches to sample (default 2)")
    @argument(
        "--class-names", dest="class_names", default=None, help="an expression giving class names"
    )
    @argument(
        "--no-timing", dest="timing", action="store_false", help="skip the throughput measurements"
    )
    @argument(
        "--against",
        default=None,
        help="another dataset split from the same source with take()/skip() (P17); "
        "default: the notebook's datasets",
    )
    @mem_argument
    @output_arguments
    def tfpipeline(self, line: str, cell: str | None = None) -> Any:
        """Inspect a tf.data pipeline: chain, element spec, sample images, throughput, findings.

        Usage::

            %tfpipeline DS [--model MODEL] [--batches N] [--class-names EXPR] [-q] [-o] [-v NAME]
            %tfpipeline [options] -- EXPRESSION      (a dataset expression with spaces)
            %%tfpipeline [--model MODEL] ...     (runs the cell, inspects every Dataset it creates)
            %%tfpipeline --mem ...               (adds the %%tfmem memory plot of the cell's run)
            %tfpipeline test_ds --against val_ds   (P17: parts of one reshuffling split)

        Shows the transformation chain (e.g. ``from_tensor_slices(1797) -> shuffle(64) ->
        map(parallel=AUTOTUNE, random ops: yes) -> batch(32) -> prefetch(AUTOTUNE)``), each
        component's shape, dtype and role, the first batches as an image grid / table, the
        label distribution, random augmentations before and after, examples/s of each prefix
        of the chain, and findings P01-P12 (N04 with --model); P17 when DS is a take()/skip()
        of a dataset that reshuffles each pass (its partner: --against, or found among the
        notebook's datasets). Never advances your iterators.

        Example::

            %tfpipeline train_ds --model model --class-names class_names
            report = %tfpipeline train_ds -q -o
        """
        __tracebackhide__ = True
        head, expression = split_code(line)
        args = check_output_arguments(parse_arguments(self.tfpipeline, head, cell=cell is not None))
        shell = self._ip
        if cell is None:
            expression = expression or args.dataset
            if not expression:
                raise UsageError("give the dataset to inspect: %tfpipeline train_ds")
            if args.mem:
                raise UsageError("--mem records memory while a cell runs: use it with %%tfpipeline")
            model, names = self._extras(args)
            ds = evaluate(shell, expression, "dataset")
            with usage_errors():
                report = self._inspect(ds, args, model, names, expression)
            return emit(shell, report, args)
        if args.dataset:
            raise UsageError(
                "%%tfpipeline takes no dataset name: it inspects the datasets the cell creates"
            )
        return self._run_cell(cell, args)

    def _extras(self, args: Any) -> tuple[Any, Any]:
        model = None
        if args.model:
            model = evaluate_model(self._ip, args.model, "--model", "%tfpipeline ds --model model")
        names = evaluate(self._ip, args.class_names, "class names") if args.class_names else None
        return model, names

    def _run_cell(self, cell: str, args: Any) -> Any:
        __tracebackhide__ = True
        import tensorflow as tf

        from tfnb_debug.features.memory import track_memory, with_memory

        code = compile_cell(self._ip, cell)  # a syntax error stops it here
        existing = {id(v) for v in user_objects(self._ip, ("dataset",), private=True).values()}
        memory = track_memory(enabled=args.mem)
        with memory:
            result = run_user_code(self._ip, code)
        model, names = self._extras(args)
        found = {
            k: v for k, v in user_objects(self._ip, ("dataset",)).items() if id(v) not in existing
        }
        if isinstance(result, tf.data.Dataset) and all(v is not result for v in found.values()):
            found["result"] = result
        if not found:
            raise UsageError(
                "the cell created no tf.data.Dataset (assign it to a name or return it)"
            )
        reports = {}
        with usage_errors():
            for key, ds in found.items():
                reports[key] = with_memory(self._inspect(ds, args, model, names, key), memory)
        for report in reports.values():
            emit(self._ip, report, _quiet_copy(args))
        if args.var:
            self._ip.user_ns[args.var] = reports
        return reports if args.output else None

    def _inspect(self, ds: Any, args: Any, model: Any, names: Any, label: str) -> Any:
        from tfnb_debug.features.pipeline import inspect_pipeline

        if args.against:  # P17: the other part of a take()/skip() split
            against = {args.against: evaluate(self._ip, args.against, "dataset")}
        else:
            against = user_objects(self._ip, ("dataset",))

        progress = _ProgressLine()
        try:
            return inspect_pipeline(
                ds,
                model=model,
                batches=args.batches,
                class_names=names,
                throughput=args.timing,
                name=label,
                progress=None if args.quiet else progress,
                against=against,
            )
        finally:
            progress.close()


def _quiet_copy(args: Any) -> Any:
    """The arguments for showing one report of a cell: display only, no -v/-o per report."""
    from argparse import Namespace

    return Namespace(quiet=args.quiet, var=None, output=False)
