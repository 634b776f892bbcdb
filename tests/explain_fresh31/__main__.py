"""Score the diagnosis on the fresh set 31: ``python -m tests.explain_fresh31 [--family F] [--json PATH]``.

The same runner and scorer as ``tests.explain_fresh`` (one real IPython shell,
``tfnb_debug`` loaded, ``PRELUDE`` run first), on this package's cases.
"""

from __future__ import annotations

import sys

from tests.explain_fresh.__main__ import main

if __name__ == "__main__":
    sys.exit(main(package="tests.explain_fresh31"))
