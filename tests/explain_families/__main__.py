"""Score the diagnosis on the family cases: ``python -m tests.explain_families [--family F] [--case N] [--full]``."""

from __future__ import annotations

import sys

from tests.explain_fresh.__main__ import main

if __name__ == "__main__":
    sys.exit(main(package="tests.explain_families"))
