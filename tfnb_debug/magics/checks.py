"""``%tfconsistency``, ``%tfoverfit``, ``%tflint`` and ``%%tfcheck``: thin wrappers over the API."""

from __future__ import annotations

from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, line_magic, magics_class, no_var_expand
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from tfnb_debug._ipython import emit, evaluate, output_arguments, usage_errors


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
        from tfnb_debug.consistency import ConsistencyThresholds, check_consistency

        args = parse_argstring(self.tfconsistency, line)
        shell = self._shell()
        model = evaluate(shell, args.model, "MODEL")
        x = evaluate(shell, args.x, "X")
        with usage_errors():
            thresholds = ConsistencyThresholds()
            if args.rtol is not None:
                thresholds = ConsistencyThresholds(inference_rtol=args.rtol, export_rtol=args.rtol)
            report = check_consistency(model, x, export=args.export, thresholds=thresholds)
        return emit(shell, report, args)
