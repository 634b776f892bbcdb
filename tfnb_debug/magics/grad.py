"""``%%tfgrad`` (record a training cell) and ``%tfgrad MODEL X Y`` (dry probe)."""

from __future__ import annotations

import contextlib
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, kwds, magic_arguments

from tfnb_debug.magics.auto import mark_reported
from tfnb_debug.magics.fit_options import control_argument, label_control
from tfnb_debug.magics.live import live_arguments, live_view
from tfnb_debug.magics.memory import mem_argument
from tfnb_debug.magics.shell import (
    check_output_arguments,
    compile_cell,
    emit,
    emit_partial,
    evaluate,
    options_given,
    output_arguments,
    parse_arguments,
    run_user_code,
    usage_errors,
    user_objects,
)

# argparse formats this with %(prog)s; the help shows the first line after "%"
_USAGE = (
    "%(prog)s [--loss LOSS] [-q] [-o] [-v NAME] MODEL X Y   (dry probe)\n"
    "  %%%%%(prog)s [--every N] [--max-steps N] [--stop-on {nan,explode}] [--mem] [--live] "
    "[--no-live] [--live-interval S] [--control] [--no-trial] [-q] [-o] [-v NAME]   (cell magic)"
)
#: the options of a training cell, which the dry probe cannot honour
_CELL_ONLY = (
    "every",
    "max_steps",
    "stop_on",
    "mem",
    "live",
    "live_interval",
    "control",
    "no_trial",
)


@magics_class
class GradMagics(Magics):
    @no_var_expand
    @line_cell_magic
    @magic_arguments()
    @kwds(usage=_USAGE)
    @argument("--every", type=int, default=1, metavar="N", help="record every N-th optimizer step")
    @argument(
        "--max-steps", type=int, default=1000, metavar="N", help="stop recording after N records"
    )
    @argument(
        "--loss",
        default=None,
        metavar="LOSS",
        help="probe: loss to use instead of the compiled one",
    )
    @argument(
        "--stop-on",
        choices=("nan", "explode"),
        default=None,
        help="stop training at the first step with NaN/Inf gradients or loss (G03/G05), or "
        "also exploding gradients (G02), and show the report so far",
    )
    @mem_argument
    @live_arguments
    @control_argument
    @argument(
        "--no-trial",
        action="store_true",
        help="do not try the fixes of training faults (G01-G07) on a copy of the model",
    )
    @output_arguments
    @argument(
        "names",
        nargs="*",
        metavar="MODEL X Y",
        help="probe: the model, input batch and label batch (names or expressions without spaces)",
    )
    def tfgrad(self, line: str, cell: str | None = None) -> Any:
        """Gradient health: record a training cell, or probe one batch without a step.

        ``%%tfgrad [--every N] [--max-steps N] [--stop-on nan|explode] [--mem] [--live]
        [-q] [-o] [-v NAME]`` records the
        gradients of every optimizer step the cell takes (model.fit,
        train_on_batch, custom GradientTape loops, eager or tf.function, XLA
        included): per-layer table, histograms, a layers x steps heatmap, the
        loss, findings G01-G07 and M01-M03.  Everything is restored when the
        cell ends; a later plain fit runs uninstrumented.  A tf.function
        traced in an earlier cell and reached from this one (by name, or
        through your own functions and classes) is traced again, hooked, and
        gets its own traces back afterwards.  ``--mem`` adds the
        ``%%tfmem`` memory plot, table and findings (R01-R03) to the report.
        After each ``fit`` it reads what the model now predicts (P15, P16);
        P15's control run on shuffled labels (a few seconds, when the history
        points at the labels) is skipped with -q unless ``--control`` asks for it.
        When a ``fit`` shows a training fault (G01-G07), the fixes its evidence
        supports (learning rate 10x lower or higher, clipnorm, ReLU with He
        initialization for hidden sigmoid/tanh layers) are tried on a copy of
        the model on a sample of the data (a few seconds, the model restored
        bit for bit), and each finding says whether one made the loss fall;
        skipped with -q unless ``--control``, never with ``--no-trial``.

        While the cell runs, a live view updates in place every
        ``--live-interval`` seconds (default 2): steps, loss, per-layer
        gradient norms, memory with ``--mem``, and G02/G03/G05 as soon as they
        are seen; the report replaces it at the end.  On by default in Jupyter,
        off with -q or ``--no-live``; ``--live`` in a terminal prints a line per
        update.  ``--stop-on nan`` stops training after the first step with
        NaN/Inf gradients or loss (``--stop-on explode``: also G02): ``fit``
        ends as with ``keras.callbacks.TerminateOnNaN``, a custom loop is
        left at that step; the report covers the steps up to it.

        ``%tfgrad MODEL X Y [--loss LOSS]`` runs one forward/backward pass on
        the batch and takes no optimizer step: all weights and optimizer state
        are bit-identical afterwards.  Adds M04/M05 (label checks).

        Examples::

            %%tfgrad --every 10
            model.fit(x, y, epochs=3)

            %tfgrad model x_batch y_batch
            r = %tfgrad -q -o model x y --loss sparse_categorical_crossentropy
        """
        __tracebackhide__ = True
        args = check_output_arguments(parse_arguments(self.tfgrad, line, cell=cell is not None))
        if cell is None:
            return self._probe(args)
        if args.names:
            raise UsageError(
                "%%tfgrad takes no names: the training code goes in the cell body "
                "(for a dry probe use the line magic `%tfgrad MODEL X Y`)"
            )
        if args.loss is not None:
            raise UsageError(
                "--loss is for the dry probe `%tfgrad MODEL X Y --loss LOSS`: %%tfgrad records "
                "the loss the cell's own training computes"
            )
        from tfnb_debug.collect.retrace import cell_functions, retraced, unseen_note
        from tfnb_debug.features.gradients import live_source, record_gradients
        from tfnb_debug.features.live import TrainingStopped, with_stop_note
        from tfnb_debug.features.memory import MemoryLive, track_memory, with_memory

        shell = self.shell
        assert shell is not None
        code = compile_cell(shell, cell)  # a syntax error stops it here, before any hook
        live = live_view(shell, args, "%%tfgrad", stop_on=args.stop_on)
        with usage_errors():
            context = record_gradients(
                every=args.every,
                max_steps=args.max_steps,
                watch=[*user_objects(shell, ("model", "optimizer"), private=True).values()],
                label_control=label_control(args),
                fix_trial=False if args.no_trial else label_control(args),
            )
            # tf.functions traced in earlier cells trace again, hooked, for this cell
            retrace, unseen = cell_functions(shell.transform_cell(cell), shell.user_ns, "%%tfgrad")
        # a concrete function's graph cannot take the hook: said now, not after the run
        if unseen:
            print(unseen_note("%%tfgrad", unseen, "the optimizer steps in them are not recorded"))
        # the recording's own fit outcomes (P15, P16); memory is recorded inside it, so P15's
        # control, which runs as the recording ends, is not in the memory timeline
        memory = track_memory(enabled=args.mem, fit_outcomes=False)
        recording = None
        value = None
        try:
            with context as recording, memory, retraced(retrace):
                live.add(live_source(recording))
                if args.mem:
                    live.add(MemoryLive(memory))
                # --stop-on leaves a custom loop at the bad step: the report says so
                with live, contextlib.suppress(TrainingStopped):
                    value = run_user_code(shell, code)
        except BaseException as err:
            if recording is not None:
                partial = with_stop_note(recording.report, live.stopped)
                emit_partial(shell, partial, args, live=live)  # how far it got, and G04
                shown = recording.report is not None and not args.quiet
                if shown and recording.loss_not_differentiable:
                    mark_reported(err)  # its G04 already says why the step failed
            else:
                live.close()
            raise
        assert recording is not None
        if unseen and recording.report is None and recording.stale_functions:
            live.close()
            return value  # every step ran in the graphs named before the run
        with usage_errors(), live.closed_on_error():
            report = with_stop_note(with_memory(recording.result(), memory), live.stopped)
        _remember(shell, report)
        emitted = emit(shell, report, args, live=live)
        return emitted if args.output else value

    def _probe(self, args: Any) -> Any:
        from tfnb_debug.features.gradients import probe_gradients

        shell = self.shell
        assert shell is not None
        cell_only = options_given(self.tfgrad, args, _CELL_ONLY)
        if cell_only:
            raise UsageError(
                f"{', '.join(cell_only)} {'is' if len(cell_only) == 1 else 'are'} for recording "
                "a training cell with %%tfgrad: the dry probe `%tfgrad MODEL X Y` takes only "
                "--loss, -q, -o and -v"
            )
        if len(args.names) != 3:
            raise UsageError(
                "usage: %tfgrad MODEL X Y [--loss LOSS] (or %%tfgrad as a cell magic around "
                f"training code); got {' '.join(shlex.quote(n) for n in args.names) or 'nothing'}"
            )
        model = evaluate(shell, args.names[0], "model")
        x = evaluate(shell, args.names[1], "input batch X")
        y = evaluate(shell, args.names[2], "label batch Y")
        loss = args.loss
        if loss is not None and loss in shell.user_ns:
            loss = shell.user_ns[loss]
        with usage_errors():
            report = probe_gradients(model, x, y, loss=loss)
        _remember(shell, report)
        return emit(shell, report, args)


def _remember(shell: Any, report: Any) -> None:
    """Keep the latest report of each model for the layer inspector (``%tfshape --inspect``)."""
    from tfnb_debug.widgets.linking import remember_gradient_report

    remember_gradient_report(shell, report)
