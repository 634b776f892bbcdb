"""The public import path of gradient recording (``%%tfgrad``, ``%tfgrad``).

The code lives in :mod:`tfnb_debug.features.gradients`; this module only re-exports
its public names, so that ``from tfnb_debug.gradients import ...`` keeps working.
"""

from tfnb_debug.features.gradients import GradientReport as GradientReport
from tfnb_debug.features.gradients import GradThresholds as GradThresholds
from tfnb_debug.features.gradients import live_source as live_source
from tfnb_debug.features.gradients import probe_gradients as probe_gradients
from tfnb_debug.features.gradients import record_gradients as record_gradients
