"""The public import path of run folders (``%tfrun``, ``open_run``).

The code lives in :mod:`tfnb_debug.features.runs`; this module only re-exports
its public names, so that ``from tfnb_debug.runs import ...`` keeps working.
"""

from tfnb_debug.features.runs import RunReport as RunReport
from tfnb_debug.features.runs import RunThresholds as RunThresholds
from tfnb_debug.features.runs import open_run as open_run
