"""binder/ installs everything the notebooks import, and tfnb_debug's own dependencies."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import tomllib
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def binder_requirements() -> dict[str, str]:
    reqs = {}
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            reqs[_norm(name)] = version
    return reqs


def notebook_imports() -> set[str]:
    """Top-level modules imported by the notebooks' code cells (magics transformed as IPython does)."""
    modules: set[str] = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "code":
                continue
            code = TransformerManager().transform_cell("".join(cell["source"]))
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.Import):
                    modules.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    modules.add(node.module.split(".")[0])
    return modules


def test_binder_pins_python_and_installs_the_package() -> None:
    assert re.fullmatch(r"python-3\.\d+\s*", (BINDER / "runtime.txt").read_text())
    post = (BINDER / "postBuild").read_text()
    assert "set -e" in post and "pip install" in post and " -e ." in post


def test_binder_requirements_cover_notebook_imports() -> None:
    reqs = binder_requirements()
    owners = packages_distributions()
    missing = []
    for module in sorted(notebook_imports()):
        if module in sys.stdlib_module_names or module == "tfnb_debug":
            continue
        dists = {_norm(d) for d in owners.get(module, [])}
        if module == "tensorflow":
            dists |= {"tensorflow", "tensorflow-cpu"}
        if not dists & set(reqs):
            missing.append(f"{module} (from {sorted(dists) or 'unknown'})")
    assert missing == []


def test_binder_requirements_cover_the_package_dependencies() -> None:
    """postBuild installs tfnb_debug with --no-deps, so its dependencies must be pinned here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = binder_requirements()
    for requirement in project["dependencies"]:
        name = _norm(re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0])
        assert name in reqs, (
            f"{name} is a dependency of tfnb_debug but not in binder/requirements.txt"
        )
    assert "tensorflow-cpu" in reqs or "tensorflow" in reqs


@pytest.mark.slow
def test_binder_requirements_resolve() -> None:
    """pip can resolve the pinned set (a dry run: nothing is installed)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "-r",
            str(BINDER / "requirements.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
