"""``%tfenv``: the environment check."""

from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import magic_arguments

from tfnb_debug.magics.shell import emit, output_arguments, parse_arguments


@magics_class
class EnvMagics(Magics):
    @line_magic
    @magic_arguments()
    @output_arguments
    def tfenv(self, line: str) -> Any:
        """Show the environment check: versions, CUDA build, devices, threads, memory, policy.

        Runs a small matmul on each device and shows where the result landed.
        Findings E01-E03 where they apply.

        Example::

            %tfenv
            env = %tfenv -q -o
        """
        from tfnb_debug.features.env import check_environment

        args = parse_arguments(self.tfenv, line)
        return emit(self.shell, check_environment(), args)
