"""The public import path of the findings read from a ``fit`` call's data.

The code lives in :mod:`tfnb_debug.features.fit_data`; this module only re-exports
its public names, so that ``from tfnb_debug.fit_data import ...`` keeps working.
"""

from tfnb_debug.features.fit_data import FitDataThresholds as FitDataThresholds
from tfnb_debug.features.fit_data import OutcomeThresholds as OutcomeThresholds
from tfnb_debug.features.fit_data import record_fit_args as record_fit_args
