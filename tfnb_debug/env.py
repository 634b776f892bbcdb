"""The public import path of the environment check (``%tfenv``).

The code lives in :mod:`tfnb_debug.features.env`; this module only re-exports
its public names, so that ``from tfnb_debug.env import ...`` keeps working.
"""

from tfnb_debug.features.env import EnvReport as EnvReport
from tfnb_debug.features.env import check_environment as check_environment
