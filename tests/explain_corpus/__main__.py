"""Write the coverage table of docs/diagnostics.md from the corpus, running every case for real.

``python -m tests.explain_corpus`` (from the repository root, with the
project's environment) replaces the table between the markers in
docs/diagnostics.md; ``tests/test_explain_corpus.py`` checks that the table
lists exactly the corpus's cases with their codes.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "diagnostics.md"
START, END = "<!-- corpus-table:start -->", "<!-- corpus-table:end -->"


def main() -> int:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    from tests.explain_corpus import PRELUDE, all_cases
    from tfnb_debug.ground.text import key_sentence

    shell = InteractiveShell.instance()
    with capture_output():
        shell.run_line_magic("load_ext", "tfnb_debug")
        shell.run_cell(PRELUDE, store_history=False)
    rows = ["| family | mistake | the error says | finding | fix |", "|---|---|---|---|---|"]
    for case in all_cases():
        with capture_output():
            result = shell.run_cell(textwrap.dedent(case.code).strip("\n"), store_history=False)
        error = result.error_in_exec
        said = key_sentence(str(error)) if error is not None else "(no error)"
        said = " ".join(said.split())[:110].replace("|", "\\|").replace("`", "'")
        code = case.expect or "none: " + case.unexplained.replace("|", "\\|")
        fix = case.fix.replace("|", "\\|")
        rows.append(
            f"| {case.family} | {case.name.replace('_', ' ')} | {type(error).__name__}: "
            f"{said} | {code} | {fix} |"
        )
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + START + "\n" + "\n".join(rows) + "\n" + END + tail, encoding="utf-8")
    print(f"{len(rows) - 2} cases written to {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
