"""The IPython magics: thin wrappers over the public functions, one module per feature."""

from __future__ import annotations

from IPython.core.magic import Magics


def magic_classes() -> list[type[Magics]]:
    """Every Magics class the extension registers, in a stable order."""
    from tfnb_debug.magics.auto import AutoMagics
    from tfnb_debug.magics.checks import CheckMagics
    from tfnb_debug.magics.env import EnvMagics
    from tfnb_debug.magics.grad import GradMagics
    from tfnb_debug.magics.memory import MemoryMagics
    from tfnb_debug.magics.pipeline import PipelineMagics
    from tfnb_debug.magics.run import RunMagics
    from tfnb_debug.magics.shape import ShapeMagics

    return [
        AutoMagics,
        EnvMagics,
        CheckMagics,
        GradMagics,
        MemoryMagics,
        PipelineMagics,
        RunMagics,
        ShapeMagics,
    ]
