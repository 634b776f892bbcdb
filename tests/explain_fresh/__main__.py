"""Score the diagnosis on the fresh cases, running every case for real.

``python -m tests.explain_fresh [--family F] [--case NAME] [--full] [--json PATH]`` (from the
repository root, with the project's environment) runs every case in one real
IPython ``InteractiveShell`` with ``tfnb_debug`` loaded, after ``PRELUDE``,
and prints a verdict per case (right, generic, silent, wrong, broken; see
``_score.score``) with the first finding line, then the counts per family.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
from collections import Counter

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def main(argv: list[str] | None = None, package: str = "tests.explain_fresh") -> int:
    """Score the cases of ``package`` (a module with ``PRELUDE`` and ``all_cases``)."""
    parser = argparse.ArgumentParser(prog=f"python -m {package}")
    parser.add_argument("--family", help="run only this family")
    parser.add_argument("--case", help="run only the case of this name")
    parser.add_argument("--full", action="store_true", help="print every finding line whole")
    parser.add_argument("--json", help="write the per-case results to this file")
    args = parser.parse_args(argv)

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    cases_module = importlib.import_module(package)
    PRELUDE, all_cases = cases_module.PRELUDE, cases_module.all_cases
    from tests.explain_fresh._score import VERDICTS, run_case

    cases = [
        c for c in all_cases() if args.family in (None, c.family) and args.case in (None, c.name)
    ]
    if not cases:
        print(f"no cases for family {args.family!r}, case {args.case!r}", file=sys.stderr)
        return 2
    json_path = os.path.abspath(args.json) if args.json else ""
    shell = InteractiveShell.instance()
    with capture_output():
        shell.run_line_magic("load_ext", "tfnb_debug")
        shell.run_cell(PRELUDE, store_history=False)
    results = []
    # cases save models and checkpoints under relative paths: keep them out of the checkout
    home = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="tfnb-cases-") as work:
        os.chdir(work)
        try:
            for case in cases:
                result = run_case(shell, case)
                results.append(result)
                first = result.findings[0][:200] if result.findings else "-"
                print(f"{result.verdict:8} {case.family}/{case.name}: {first}", flush=True)
                if args.full:
                    print(f"         raised {result.raised}")
                    for line in result.findings:
                        print(f"         | {line}")
        finally:
            os.chdir(home)

    families = sorted({r.family for r in results})
    counts = {f: Counter(r.verdict for r in results if r.family == f) for f in families}
    total = Counter(r.verdict for r in results)
    width = max(len(f) for f in [*families, "total"])
    header = f"{'family':{width}} " + " ".join(f"{v:>7}" for v in VERDICTS) + f" {'cases':>7}"
    print()
    print(header)
    print("-" * len(header))
    for family in [*families, "total"]:
        row = total if family == "total" else counts[family]
        cells = " ".join(f"{row.get(v, 0):>7}" for v in VERDICTS)
        print(f"{family:{width}} {cells} {sum(row.values()):>7}")
    if json_path:
        with open(json_path, "w", encoding="utf-8") as handle:
            json.dump([r.as_dict() for r in results], handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
