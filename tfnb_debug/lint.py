"""The public import path of the model lint (``%tflint``).

The code lives in :mod:`tfnb_debug.features.lint`; this module only re-exports
its public names, so that ``from tfnb_debug.lint import ...`` keeps working.
"""

from tfnb_debug.features.lint import LintReport as LintReport
from tfnb_debug.features.lint import lint_model as lint_model
