"""Score tfnb_debug on the training-fault benchmark, running every case for real.

``python -m tests.fault_bench [--family F] [--case NAME] [--json PATH]
[--magic tfgrad|tflint|both]`` (from the repository root, with the project's
environment) runs the buggy and the correct version of every case in one real
IPython ``InteractiveShell`` with ``tfnb_debug`` loaded, prints a line per case
(``name IB FL FS LF false-alarms``), the totals as a Markdown table and the false
alarms on correct versions; ``--json`` writes everything.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fault_bench")
    parser.add_argument("--family", help="run only this family")
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--json", help="write every finding and score to this file")
    parser.add_argument("--magic", choices=("tfgrad", "tflint", "both"), default="both")
    args = parser.parse_args(argv)

    from tests.fault_bench import all_cases
    from tests.fault_bench._score import (
        MAGICS,
        case_line,
        close_shell,
        make_shell,
        run_version,
        score,
        totals_table,
    )

    cases = [
        c
        for c in all_cases()
        if args.family in (None, c.family) and (not args.case or c.name in args.case)
    ]
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    magics = MAGICS if args.magic == "both" else (args.magic,)
    shell = make_shell()
    started = time.perf_counter()
    runs = {}
    try:
        for case in cases:
            buggy = run_version(shell, case, buggy=True, magics=magics)
            correct = run_version(shell, case, buggy=False, magics=magics)
            runs[case.name] = (buggy, correct)
            took = buggy.seconds + correct.seconds
            print(f"ran {case.family}/{case.name} ({took:.1f} s)", file=sys.stderr, flush=True)
            for label, run in (("buggy", buggy), ("correct", correct)):
                if run.error:
                    print(f"ERROR in {case.name} ({label}):\n{run.error}", flush=True)
    finally:
        close_shell(shell)
    scores = score(cases, runs)

    width = max(len(c.name) for c in cases)
    print(f"\n{'case':{width}} IB FL FS LF")
    for s in scores:
        print(case_line(s, width))
    print()
    print(totals_table(scores))
    print("\nFalse alarms on correct versions (warning/error):")
    alarms = [(s.name, f) for s in scores for f in s.false_alarms]
    for name, f in alarms:
        print(f"- {name}: {f.text()}")
    if not alarms:
        print("- none")
    checklists = [(s.name, h) for s in scores for h in s.checklist_hints]
    if checklists:
        print("\nHints not counted as a fix (the same text on cases with other fixes):")
        for name, hint in checklists:
            print(f"- {name}: {hint[:200]}")
    print(f"\n{len(cases)} cases, magics {'+'.join(magics)}, {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "magics": list(magics),
                    "cases": [
                        {**s.as_dict(), **_case_dict(c)} for s, c in zip(scores, cases, strict=True)
                    ],
                },
                handle,
                indent=2,
            )
    return 0


def _case_dict(case: object) -> dict[str, object]:
    from dataclasses import fields

    out: dict[str, object] = {}
    for f in fields(case):  # type: ignore[arg-type]
        value = getattr(case, f.name)
        if f.name in ("bug", "learns"):
            value = repr(value)
        elif isinstance(value, frozenset):
            value = sorted(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[f"case_{f.name}"] = value
    return out


if __name__ == "__main__":
    sys.exit(main())
