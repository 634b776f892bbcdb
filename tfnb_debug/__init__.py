"""tfnb_debug: a Jupyter-native debugger for TensorFlow and Keras.

``%load_ext tfnb_debug`` registers the magics.  The public functions below work
without IPython; each magic is a thin wrapper over one of them.  Importing this
package is light: TensorFlow, matplotlib and ipywidgets load when a feature
first needs them.
"""

from __future__ import annotations

import functools
import importlib
import types
from collections.abc import Callable
from typing import Any

from tfnb_debug._version import __version__ as __version__
from tfnb_debug.ground.errors import TfnbDebugError as TfnbDebugError
from tfnb_debug.ground.errors import TfnbDebugWarning as TfnbDebugWarning
from tfnb_debug.ground.reports import Finding as Finding
from tfnb_debug.ground.reports import Report as Report
from tfnb_debug.ground.startup import missing_tensorflow_error, tensorflow_installed

# Public name -> the module that defines it, imported on first use.
_LAZY = {
    "CheckReport": "tfnb_debug.features.check",
    "CheckThresholds": "tfnb_debug.features.check",
    "run_checked": "tfnb_debug.features.check",
    "check_consistency": "tfnb_debug.features.consistency",
    "ConsistencyReport": "tfnb_debug.features.consistency",
    "ConsistencyThresholds": "tfnb_debug.features.consistency",
    "check_environment": "tfnb_debug.features.env",
    "EnvReport": "tfnb_debug.features.env",
    "explain_exception": "tfnb_debug.explain",
    "ExplainReport": "tfnb_debug.explain",
    "GradientReport": "tfnb_debug.features.gradients",
    "GradThresholds": "tfnb_debug.features.gradients",
    "probe_gradients": "tfnb_debug.features.gradients",
    "record_gradients": "tfnb_debug.features.gradients",
    "lint_model": "tfnb_debug.features.lint",
    "LintReport": "tfnb_debug.features.lint",
    "estimate_model_memory": "tfnb_debug.features.memory",
    "memory_section": "tfnb_debug.features.memory",
    "MemoryReport": "tfnb_debug.features.memory",
    "MemoryThresholds": "tfnb_debug.features.memory",
    "ModelMemoryReport": "tfnb_debug.features.memory",
    "track_memory": "tfnb_debug.features.memory",
    "overfit_small_batch": "tfnb_debug.features.overfit",
    "OverfitReport": "tfnb_debug.features.overfit",
    "OverfitThresholds": "tfnb_debug.features.overfit",
    "inspect_pipeline": "tfnb_debug.features.pipeline",
    "PipelineReport": "tfnb_debug.features.pipeline",
    "PipelineThresholds": "tfnb_debug.features.pipeline",
    "open_run": "tfnb_debug.features.runs",
    "RunReport": "tfnb_debug.features.runs",
    "RunThresholds": "tfnb_debug.features.runs",
    "layer_for_path": "tfnb_debug.features.shapes",
    "record_shapes": "tfnb_debug.features.shapes",
    "ShapeReport": "tfnb_debug.features.shapes",
    "ShapeThresholds": "tfnb_debug.features.shapes",
    "trace_shapes": "tfnb_debug.features.shapes",
    "inspect": "tfnb_debug.widgets.api",
    "LayerInspector": "tfnb_debug.widgets.inspector",
}

# Public functions that work without TensorFlow: reading a run folder (JSON and npz files).
_WITHOUT_TENSORFLOW = frozenset({"open_run"})

__all__ = sorted(["Finding", "Report", "TfnbDebugError", "TfnbDebugWarning", "__version__", *_LAZY])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tfnb_debug' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    if (
        isinstance(value, types.FunctionType)
        and name not in _WITHOUT_TENSORFLOW
        and not tensorflow_installed()
    ):
        return _needs_tensorflow(value)
    return value


def _needs_tensorflow(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` for a Python without TensorFlow: calling it raises one line with the install command
    (instead of a long ModuleNotFoundError from inside Keras)."""

    @functools.wraps(func)
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise missing_tensorflow_error(f"{func.__name__}()") from None

    return missing


def __dir__() -> list[str]:
    return __all__


def load_ipython_extension(shell: Any) -> None:
    from tfnb_debug._extension import load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    from tfnb_debug._extension import unload

    unload(shell)
