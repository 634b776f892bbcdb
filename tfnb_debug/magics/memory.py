"""``%%tfmem``: host and device memory over a cell's run."""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, cell_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments

from tfnb_debug.features.memory import DEFAULT_INTERVAL_MS
from tfnb_debug.magics.fit_options import control_argument, label_control
from tfnb_debug.magics.live import live_arguments, live_view
from tfnb_debug.magics.shell import (
    check_output_arguments,
    compile_cell,
    emit,
    emit_partial,
    evaluate_model,
    output_arguments,
    parse_arguments,
    run_user_code,
    usage_errors,
    user_objects,
)

mem_argument = argument(
    "--mem",
    action="store_true",
    help="also record host and GPU memory while the cell runs (the %%%%tfmem plot and findings)",
)
"""The ``--mem`` option of the other cell magics: pair it with ``track_memory(enabled=args.mem)``
around the cell and ``with_memory(report, tracker)`` on the report."""


@magics_class
class MemoryMagics(Magics):
    @no_var_expand
    @cell_magic
    @magic_arguments()
    @argument(
        "--interval",
        type=float,
        default=DEFAULT_INTERVAL_MS,
        metavar="MS",
        help=f"sample memory every MS milliseconds (default {DEFAULT_INTERVAL_MS:g})",
    )
    @argument("--model", metavar="NAME", help="also estimate the memory of this Keras model (M06)")
    @argument("--batch-size", type=int, metavar="N", help="batch size for the activation estimate")
    @live_arguments
    @control_argument
    @output_arguments
    def tfmem(self, line: str, cell: str) -> Any:
        """Run the cell while a background thread records host and GPU memory.

        Shows memory over time per device (process RSS via psutil; each GPU's
        TensorFlow allocator, reset at the start), the peak, a tick per training
        step (``model.fit``, ``train_on_batch``, eager ``apply_gradients``), a
        start/end/peak/delta table, a memory estimate for the models trained in
        the cell, and findings R01 memory-growth, R02 near-capacity,
        R03 out-of-memory, M06 memory-budget, from the arguments of the
        cell's ``fit`` calls P13 validation-split-skew and P14
        steps-exceed-data, and from what each ``fit`` left (read when the
        recording has ended) P15 labels-unlearnable, P16 majority-class and
        P17.  P15's control run on shuffled labels (a few seconds) is skipped
        with -q unless ``--control`` asks for it.  While the cell runs, a live
        view shows the current and peak memory and the steps so far, updated every ``--live-interval``
        seconds (default 2; on in Jupyter, ``--no-live`` turns it off).  If the cell raises, the report up
        to that point is shown and the exception reaches you unchanged.

        Example::

            %%tfmem --interval 20
            for step in range(100):
                train_step(x, y)

            %%tfmem -q -v rep --model model --batch-size 64
            model.fit(x, y, batch_size=64, epochs=3)

        then ``rep.to_dataframe("memory")``, ``rep.samples_dataframe()``.  The
        cell's last value is its output, or with ``-o`` the report.
        """
        __tracebackhide__ = True
        from tfnb_debug.features.memory import MemoryLive, track_memory

        shell = self.shell
        assert shell is not None
        args = parse_arguments(self.tfmem, line, cell=True)
        code = compile_cell(shell, cell)  # a syntax error stops it here, before any sample
        live = live_view(shell, args, "%%tfmem")
        models = []
        if args.model:
            models = [evaluate_model(shell, args.model, "--model", "%%tfmem --model model")]
        with usage_errors():
            tracker = track_memory(
                args.interval,
                models=models,
                optimizers=_optimizers(user_objects(shell, ("model", "optimizer"), private=True)),
                batch_size=args.batch_size,
                title="%%tfmem",
                label_control=label_control(args),
            )
        check_output_arguments(args)  # before the cell runs, not after
        value = None
        try:
            with tracker:
                live.add(MemoryLive(tracker))
                with live:
                    value = run_user_code(shell, code)
        except BaseException:
            emit_partial(shell, tracker.report, args, live=live)  # how far it got
            raise
        report = tracker.report
        if report is None:
            live.close()
        result = emit(shell, report, args, live=live) if report is not None else None
        return result if args.output else value


def _optimizers(namespace: dict[str, Any]) -> list[Any]:
    """The notebook's Keras optimizers (and compiled models' ones): their steps inside an
    already-traced ``tf.function`` are counted by reading ``iterations``."""
    import keras

    found: list[Any] = []
    for value in list(namespace.values()):
        if isinstance(value, keras.Model):
            value = getattr(value, "optimizer", None)
        if isinstance(value, keras.optimizers.Optimizer) and all(value is not f for f in found):
            found.append(value)
    return found
