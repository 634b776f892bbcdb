"""The public import path of per-layer shape tables (``%tfshape``).

The code lives in :mod:`tfnb_debug.features.shapes`; this module only re-exports
its public names, so that ``from tfnb_debug.shapes import ...`` keeps working.
"""

from tfnb_debug.features.shapes import ShapeReport as ShapeReport
from tfnb_debug.features.shapes import ShapeThresholds as ShapeThresholds
from tfnb_debug.features.shapes import layer_for_path as layer_for_path
from tfnb_debug.features.shapes import record_shapes as record_shapes
from tfnb_debug.features.shapes import trace_shapes as trace_shapes
