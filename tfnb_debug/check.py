"""The public import path of the NaN/Inf check (``%%tfcheck``).

The code lives in :mod:`tfnb_debug.features.check`; this module only re-exports
its public names, so that ``from tfnb_debug.check import ...`` keeps working.
"""

from tfnb_debug.features.check import CheckReport as CheckReport
from tfnb_debug.features.check import CheckThresholds as CheckThresholds
from tfnb_debug.features.check import run_checked as run_checked
