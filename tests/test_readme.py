"""The README's script example runs as written, in a fresh Python process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


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
