"""``%tfrun``: open a run that scripts recorded, every worker in one report."""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from tfnb_debug.magics.shell import emit, output_arguments, parse_arguments, usage_errors


@magics_class
class RunMagics(Magics):
    @line_magic
    @magic_arguments()
    @argument("run_dir", metavar="RUN_DIR", help="the run folder (a local path or gs://...)")
    @output_arguments
    def tfrun(self, line: str) -> Any:
        """Open a run folder that scripts wrote with ``record_gradients(save_to=RUN_DIR)``.

        Each worker of a multi-worker job (``TF_CONFIG``), or a single-process
        script, writes ``RUN_DIR/worker-N/``; this shows them merged: per-worker
        step times with the stragglers named, per-worker gradient norms side by
        side, each worker's findings, and D02 unsharded-input when workers read
        identical input batches; with ``track_memory(save_to=RUN_DIR)`` also
        each worker's peak and host memory.  ``$name`` or ``{expr}`` in the line is
        replaced by the notebook's value.

        Example::

            %tfrun runs/exp1
            run = %tfrun -q -o runs/exp1
            run.worker(1)            # worker 1's own gradient report
            run.to_dataframe("workers")
        """
        from tfnb_debug.features.runs import open_run

        args = parse_arguments(self.tfrun, line)
        with usage_errors():
            report = open_run(args.run_dir)
        return emit(self.shell, report, args)
