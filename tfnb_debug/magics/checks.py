"""``%tfconsistency``, ``%tfoverfit``, ``%tflint`` and ``%%tfcheck``: thin wrappers over the API."""

from __future__ import annotations

import math
from typing import Any

from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from tfnb_debug.magics.fit_options import control_argument, label_control
from tfnb_debug.magics.live import live_arguments, live_view
from tfnb_debug.magics.progress import ProgressLine
from tfnb_debug.magics.shell import (
    check_output_arguments,
    compile_cell,
    emit,
    evaluate,
    hidden_hook_frames,
    output_arguments,
    parse_arguments,
    run_user_code,
    usage_errors,
    user_objects,
)


@magics_class
class CheckMagics(Magics):
    def _shell(self) -> InteractiveShell:
        assert self.shell is not None
        return self.shell

    @no_var_expand
    @line_magic
    @magic_arguments()
    @output_arguments
    @argument("--rtol", type=float, default=None, help="relative tolerance for C01/C02 (1e-4)")
    @argument(
        "--export", action="store_true", help="also check .keras/SavedModel/checkpoint round trips"
    )
    @argument("model", help="the Keras model (name or expression without spaces)")
    @argument(
        "x", help="a batch of inputs (name or expression without spaces) or a tf.data.Dataset"
    )
    def tfconsistency(self, line: str) -> Any:
        """Check train vs inference vs export consistency of MODEL on the batch X (C01-C04).

        Two inference calls must agree (C01); training=True vs training=False
        outputs are compared and the BatchNorm/Dropout layers responsible named
        (C03); with --export a .keras round trip and a SavedModel export must
        reproduce the outputs within --rtol (C02) and checkpoint round trips must
        keep every weight and the optimizer state (C04).  The model, its weights
        and optimizer state are unchanged afterwards.

        Example::

            %tfconsistency model x_val[:32] --export
            r = %tfconsistency -q -o model x_val
        """
        from tfnb_debug.features.consistency import ConsistencyThresholds, check_consistency

        args = check_output_arguments(parse_arguments(self.tfconsistency, line))
        if args.rtol is not None and not 0 <= args.rtol < math.inf:
            raise UsageError(
                f"--rtol {args.rtol:g} is out of range: give a relative tolerance of 0 or more, "
                "e.g. --rtol 1e-3"
            )
        shell = self._shell()
        model = evaluate(shell, args.model, "MODEL")
        x = evaluate(shell, args.x, "X")
        with usage_errors():
            thresholds = ConsistencyThresholds()
            if args.rtol is not None:
                thresholds = ConsistencyThresholds(inference_rtol=args.rtol, export_rtol=args.rtol)
            report = check_consistency(model, x, export=args.export, thresholds=thresholds)
        return emit(shell, report, args)

    @no_var_expand
    @line_magic
    @magic_arguments()
    @output_arguments
    @argument("--steps", type=int, default=200, help="full-batch training steps at most (200)")
    @argument(
        "--samples",
        type=int,
        default=None,
        help="examples to memorize (16; fewer, down to 4, when each input is large)",
    )
    @argument(
        "--time",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="seconds of training after the first step before it stops (5; 0: no limit)",
    )
    @argument(
        "--loss-key",
        default=None,
        help="the logged value to read when the model's train_step logs no 'loss' (g_loss)",
    )
    @argument("model", help="the compiled Keras model (name or expression without spaces)")
    @argument("data", help="(x, y) arrays or a tf.data.Dataset of (x, y) (no spaces)")
    def tfoverfit(self, line: str) -> Any:
        """Can MODEL memorize a few examples of DATA?  Trains MODEL itself, then restores it.

        The standard first step when the loss does not fall: MODEL is trained
        with model.fit for at most --steps full-batch steps on --samples examples
        (augmentation layers run as in inference); the loss is plotted and the
        verdict given.  Training stops once the examples are memorized, and
        after --time seconds (the first step, which compiles, not counted): a
        run cut short says it ran out of time, never that MODEL cannot
        memorize.  A progress line shows while it trains (none with -q).  A
        model with its own train_step (VAE, GAN) trains through it and its
        logged loss is read (DATA may then be inputs alone).  Afterwards every
        weight, optimizer, metric and random state, the compiled train function
        and model.history are put back bit for bit, also if the run raises or is
        interrupted.  If MODEL cannot memorize the examples, the %tflint
        findings that can explain why are listed.  A MODEL that already fits
        them before any step (a trained model) is said to, and not trained:
        check an untrained copy to see whether its training can memorize them.

        Example::

            %tfoverfit model train_ds
            r = %tfoverfit -q -o model (x_train,y_train) --samples 8 --steps 100
            %tfoverfit big_model train_ds --time 30
            %tfoverfit gan real_images --loss-key g_loss
        """
        __tracebackhide__ = True  # the user's model raises through here: IPython leaves it out
        from tfnb_debug.features.overfit import overfit_small_batch

        args = check_output_arguments(parse_arguments(self.tfoverfit, line))
        if not (math.isfinite(args.time) and args.time >= 0):
            raise UsageError(
                f"--time {args.time:g} is out of range: give seconds of training, e.g. --time 30 "
                "(0: no limit)"
            )
        shell = self._shell()
        model = evaluate(shell, args.model, "MODEL")
        data = evaluate(shell, args.data, "DATA")
        progress = None if args.quiet else ProgressLine(shell)
        try:
            with usage_errors(), hidden_hook_frames(shell):
                report = overfit_small_batch(
                    model,
                    data,
                    samples=args.samples,
                    steps=args.steps,
                    loss_key=args.loss_key,
                    time_budget=args.time or None,
                    progress=progress,
                )
        finally:
            if progress is not None:
                progress.close()
        return emit(shell, report, args)

    @no_var_expand
    @line_magic
    @magic_arguments()
    @output_arguments
    @argument(
        "--data", default=None, help="(x, y) arrays or a tf.data.Dataset, for P12/N04/M04/M05"
    )
    @argument(
        "--validation-split",
        type=float,
        default=None,
        metavar="F",
        help="with --data x,y: check the labels of fit's validation_split=F (P13)",
    )
    @argument("model", help="the Keras model (name or expression without spaces)")
    def tflint(self, line: str) -> Any:
        """Lint MODEL and its compile configuration (M01-M06, S05; with --data also P12, N04).

        Loss/output pairing (softmax with from_logits=True, ...), the class
        count and label encoding against the data's labels, the training
        memory estimate against the device, the output dtype under mixed
        precision, and labels/input range against the model.  Runs at most one
        forward pass; the model is unchanged.  With ``--data x,y --validation-split F``
        also whether the last F of the labels, which ``fit`` would take for
        validation unshuffled, are distributed like the rest (P13).

        Example::

            %tflint model --data train_ds
            %tflint model --data x_train,y_train --validation-split 0.2
        """
        from tfnb_debug.features.lint import lint_model

        args = check_output_arguments(parse_arguments(self.tflint, line))
        shell = self._shell()
        model = evaluate(shell, args.model, "MODEL")
        data = evaluate(shell, args.data, "--data") if args.data is not None else None
        with usage_errors():
            report = lint_model(model, data, validation_split=args.validation_split)
        return emit(shell, report, args)

    @no_var_expand
    @cell_magic
    @magic_arguments()
    @live_arguments
    @control_argument
    @output_arguments
    @argument("--retrace-limit", type=int, default=5, help="T01: traces of one tf.function (5)")
    @argument("--no-op-detail", action="store_true", help="do not re-run the failing layer")
    def tfcheck(self, line: str, cell: str) -> Any:
        """Run the cell with in-graph NaN/Inf checks; stop at the first bad number and say where.

        Checks the input batch (N05), every layer output in execution order
        (N01), the loss (G05; also the one a custom train_step gives
        GradientTape.gradient) and the gradients before they are applied
        (G03), inside tf.function and model.fit.  A step is one training
        batch (a GAN's two optimizer updates count once).  The failing layer is re-run alone
        with op-level checks to name the op and source line.  Every model that
        trains, evaluates or predicts in the cell gets its cached
        train/test/predict functions dropped and XLA switched off for the cell
        (XLA silently drops the checks); both are restored afterwards.  A
        tf.function traced in an earlier cell and reached from this one (by
        name, or through your own functions and classes) is traced again
        under the checks, and gets its own traces back
        afterwards.  Counts tf.function retracing (T01).  Also checks the
        arguments of the cell's ``fit`` calls (P13, P14) and, once the checks
        are removed, what each ``fit`` left (P15, P16, P17); P15's control run
        on shuffled labels (a few seconds) is skipped with -q unless
        ``--control`` asks for it.  The model's checked
        train/test/predict functions are kept for the next cell on the same
        model, optimizer, compile configuration and options, which runs them
        without tracing (never left on the model between cells).  Returns the cell's
        last value (the report with -o).  While the cell runs, a live view
        shows the steps checked so far (every ``--live-interval`` seconds, on
        in Jupyter; ``--no-live`` turns it off); the report replaces it.

        Example::

            %%tfcheck
            model.fit(x, y, epochs=3)
        """
        __tracebackhide__ = True
        from tfnb_debug.collect.retrace import cell_functions, unseen_note
        from tfnb_debug.features.check import CheckReport, CheckThresholds, run_checked

        args = check_output_arguments(parse_arguments(self.tfcheck, line, cell=True))
        shell = self._shell()
        code = compile_cell(shell, cell)  # a syntax error stops it here, before any check
        live = live_view(shell, args, "%%tfcheck")
        with usage_errors():
            thresholds = CheckThresholds(retrace_limit=args.retrace_limit)
        functions = list({id(f): f for f in user_objects(shell, ("function",)).values()}.values())
        with usage_errors():
            retrace, unseen = cell_functions(shell.transform_cell(cell), shell.user_ns, "%%tfcheck")
        if unseen:  # said before the run: a traced graph cannot take the checks
            print(unseen_note("%%tfcheck", unseen, "the ops in them are not checked"))

        def partial(report: CheckReport) -> None:
            if not args.quiet and not live.show(report):
                from IPython.display import display

                display(report)

        def run() -> Any:
            __tracebackhide__ = True
            return run_user_code(shell, code)

        value, report = run_checked(
            run,
            functions=functions,
            retrace=retrace,
            thresholds=thresholds,
            op_detail=not args.no_op_detail,
            on_error=partial,
            live=live,
            label_control=label_control(args),
        )
        returned = emit(shell, report, args, live=live)
        if report.stopped:
            first = report.findings[0] if report.findings else None
            where = first.to_text()[:160] if first is not None else report.summary[0]
            raise UsageError(f"%%tfcheck stopped the cell at the first NaN/Inf: {where}")
        return returned if args.output else value
