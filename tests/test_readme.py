"""The README's examples: the script runs as written, the failing %%tfshape cell shows what it shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

README = Path(__file__).resolve().parents[1] / "README.md"


def shown_after(code_start: str) -> tuple[str, str]:
    """The README's ```python block that starts with ``code_start`` and the ``` block after it."""
    text = README.read_text(encoding="utf-8")
    pattern = r"```python\n(" + re.escape(code_start) + r".*?)```\n(?:(?!```).)*?```\n(.*?)```"
    match = re.search(pattern, text, re.S)
    assert match, f"the README has no {code_start!r} example followed by its output"
    return match.group(1), match.group(2)


def shown_lines_missing(shown: str, actual: str) -> list[str]:
    """README output lines the real output lacks; ``[...]`` stands for text left out."""
    missing = []
    for line in shown.splitlines():
        pieces = [p for p in line.rstrip().split("[...]") if p.strip()]
        at = 0
        for piece in pieces:
            at = actual.find(piece, at)
            if at < 0:
                missing.append(line)
                break
            at += len(piece)
    return missing


@pytest.mark.slow
def test_readme_python_example_runs_as_written(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    scripts = [b for b in blocks if "import tfnb_debug" in b and "%" not in b.split("\n")[0]]
    assert scripts, "the README has no runnable Python example"
    script = tmp_path / "example.py"
    script.write_text(scripts[0], encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "hidden" in out.stdout
    # What the README says it prints: each findings line (an empty list: nothing found).
    _, shown = shown_after(
        "import keras\nimport numpy as np\nimport tensorflow as tf\n\nimport tfnb_debug"
    )
    findings = [line for line in shown.splitlines() if " findings: " in line]
    assert len(findings) == 4
    assert [line for line in findings if line not in out.stdout.splitlines()] == []


@pytest.mark.slow
def test_readme_failing_tfshape_cell_shows_what_the_readme_says(shell: InteractiveShell) -> None:
    cell, shown = shown_after("%%tfshape\n")
    shell.run_cell("import keras\nfrom keras import layers")
    with capture_output() as captured:
        result = shell.run_cell(cell)
    assert isinstance(result.error_in_exec, ValueError)  # the user's own exception
    report = "\n".join(str(o.data.get("text/plain", "")) for o in captured.outputs)
    assert "FAILED in 'fuse' (Concatenate)" in report
    assert shown_lines_missing(shown, report) == []
