"""The public import path of the small-batch overfit test (``%tfoverfit``).

The code lives in :mod:`tfnb_debug.features.overfit`; this module only re-exports
its public names, so that ``from tfnb_debug.overfit import ...`` keeps working.
"""

from tfnb_debug.features.overfit import OverfitReport as OverfitReport
from tfnb_debug.features.overfit import OverfitThresholds as OverfitThresholds
from tfnb_debug.features.overfit import overfit_small_batch as overfit_small_batch
