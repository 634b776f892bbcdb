"""The public import path of the train-vs-inference consistency check (``%tfconsistency``).

The code lives in :mod:`tfnb_debug.features.consistency`; this module only re-exports
its public names, so that ``from tfnb_debug.consistency import ...`` keeps working.
"""

from tfnb_debug.features.consistency import ConsistencyReport as ConsistencyReport
from tfnb_debug.features.consistency import ConsistencyThresholds as ConsistencyThresholds
from tfnb_debug.features.consistency import check_consistency as check_consistency
