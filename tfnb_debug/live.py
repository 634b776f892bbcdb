"""The public import path of the live view of a running cell (``--live``, ``--stop-on``).

The code lives in :mod:`tfnb_debug.features.live`; this module only re-exports
its public names, so that ``from tfnb_debug.live import ...`` keeps working.
"""

from tfnb_debug.features.live import LiveSource as LiveSource
from tfnb_debug.features.live import LiveView as LiveView
from tfnb_debug.features.live import TrainingStopped as TrainingStopped
