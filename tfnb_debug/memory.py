"""The public import path of memory tracking and estimates (``%%tfmem``).

The code lives in :mod:`tfnb_debug.features.memory`; this module only re-exports
its public names, so that ``from tfnb_debug.memory import ...`` keeps working.
"""

from tfnb_debug.features.memory import MemoryReport as MemoryReport
from tfnb_debug.features.memory import MemoryThresholds as MemoryThresholds
from tfnb_debug.features.memory import ModelMemoryReport as ModelMemoryReport
from tfnb_debug.features.memory import estimate_model_memory as estimate_model_memory
from tfnb_debug.features.memory import memory_section as memory_section
from tfnb_debug.features.memory import track_memory as track_memory
