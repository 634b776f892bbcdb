"""Print (or write into docs/diagnostics.md) which raise sites of the installed Keras and
TensorFlow the diagnosis under a failing cell covers, per API.

    .venv/bin/python scripts/explain_coverage.py            # the table and the uncovered sites
    .venv/bin/python scripts/explain_coverage.py --write    # replace the table in docs/diagnostics.md
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "diagnostics.md"
START, END = "<!-- raise-coverage:start -->", "<!-- raise-coverage:end -->"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    from tfnb_debug.explain.coverage import coverage_table, raise_sites

    sites, missing = raise_sites()
    table = coverage_table(sites)
    if "--write" in argv:
        text = DOC.read_text(encoding="utf-8")
        head, _, rest = text.partition(START)
        _, _, tail = rest.partition(END)
        DOC.write_text(head + START + "\n" + table + "\n" + END + tail, encoding="utf-8")
        print(f"table written to {DOC.relative_to(ROOT)}")
        return 0
    print(table)
    if missing:
        print("\nAPIs not found in the installed versions:", ", ".join(missing))
    print("\nUncovered raise sites:")
    for site in sites:
        if not site.covered_by:
            print(f"  {site.api}: {site.file}:{site.line} {site.exception}: {site.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
