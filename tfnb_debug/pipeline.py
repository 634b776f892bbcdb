"""The public import path of the ``tf.data`` pipeline inspection (``%tfpipeline``).

The code lives in :mod:`tfnb_debug.features.pipeline`; this module only re-exports
its public names, so that ``from tfnb_debug.pipeline import ...`` keeps working.
"""

from tfnb_debug.features.pipeline import PipelineReport as PipelineReport
from tfnb_debug.features.pipeline import PipelineThresholds as PipelineThresholds
from tfnb_debug.features.pipeline import inspect_pipeline as inspect_pipeline
