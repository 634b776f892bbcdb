"""Execute notebooks for real: nbclient on an ipykernel that runs this environment's Python."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
KERNEL_NAME = "tfnb-debug-tests"


def _kernel_dir() -> str:
    """A kernelspec for *this* interpreter under a name nothing else uses.

    A user-level ``python3`` kernelspec would otherwise shadow the venv's.
    """
    base = Path(tempfile.mkdtemp(prefix="tfnb-kernels-"))
    spec = base / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "tfnb_debug tests", "language": "python"})
    )
    return str(base)


class _ObservingClient(NotebookClient):
    """nbclient as it is, also handing every iopub message of a cell to ``observe``."""

    def __init__(self, *args: Any, observe: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._observe = observe

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        self._observe(cell_index, msg)
        return super().process_message(msg, cell, cell_index)


def execute_notebook(path: Path, timeout: int = 600, observe: Any = None) -> nbformat.NotebookNode:
    """Run every cell of ``path`` in a fresh kernel and return the executed notebook.

    ``observe(cell_index, msg)`` sees every iopub message as it arrives (display
    updates included, which the saved notebook no longer shows).
    """
    nb = nbformat.read(path, as_version=4)
    env_backup = {k: os.environ.get(k) for k in ("JUPYTER_PATH",)}
    os.environ["JUPYTER_PATH"] = _kernel_dir() + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    try:
        options: dict[str, Any] = dict(
            timeout=timeout,
            kernel_name=KERNEL_NAME,
            resources={"metadata": {"path": str(path.parent)}},
        )
        client = (
            NotebookClient(nb, **options)
            if observe is None
            else _ObservingClient(nb, observe=observe, **options)
        )
        client.execute()
    finally:
        for key, value in env_backup.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb


def expects_error(cell: nbformat.NotebookNode) -> bool:
    """A cell tagged ``raises-exception`` shows a mistake on purpose (nbclient runs on past it)."""
    return "raises-exception" in cell.get("metadata", {}).get("tags", [])


def error_outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Errors in cells that should not fail, and tagged cells that failed to fail."""
    errors = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        raised = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if expects_error(cell):
            # IPython shows a UsageError as one line on stderr, not as an error output.
            usage = any(
                o.get("name") == "stderr" and "UsageError" in o.get("text", "")
                for o in cell.get("outputs", [])
            )
            if not raised and not usage:
                errors.append(f"cell {index} is tagged raises-exception but raised nothing")
            continue
        errors.extend(f"cell {index}: {o.get('ename')}: {o.get('evalue')}" for o in raised)
    return errors


def displayed_text(nb: nbformat.NotebookNode) -> str:
    """Everything the notebook showed, as text and HTML, for assertions on finding codes."""
    parts: list[str] = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data: dict[str, Any] = output.get("data", {})
            parts.append(output.get("text", ""))
            parts.extend(str(data.get(kind, "")) for kind in ("text/plain", "text/html"))
    return "\n".join(parts)


FINDING_LINE = re.compile(r"\b([A-Z]\d\d) [a-z0-9-]+ \((?:error|warning|info)\)")


def cell_codes(cell: nbformat.NotebookNode) -> set[str]:
    """The finding codes a cell's outputs show (text or HTML), e.g. ``{"P01"}``."""
    texts: list[str] = []
    for output in cell.get("outputs", []):
        data: dict[str, Any] = output.get("data", {})
        texts.append(str(output.get("text", "")))
        texts.extend(str(data.get(kind, "")) for kind in ("text/plain", "text/html"))
    return set(FINDING_LINE.findall("\n".join(texts)))


def expectation_failures(nb: nbformat.NotebookNode) -> list[str]:
    """Cells whose ``tfnb_expect`` metadata says which codes they must show or must not show."""
    failures = []
    for index, cell in enumerate(nb.cells):
        expect = cell.get("metadata", {}).get("tfnb_expect")
        if not expect:
            continue
        codes = cell_codes(cell)
        missing = set(expect.get("shows", [])) - codes
        unexpected = set(expect.get("absent", [])) & codes
        if missing:
            failures.append(
                f"cell {index} should show {sorted(missing)} but showed {sorted(codes)}"
            )
        if unexpected:
            failures.append(f"cell {index} should not show {sorted(unexpected)}")
    return failures


def expected_codes(nb: nbformat.NotebookNode) -> set[str]:
    return {
        code
        for cell in nb.cells
        for code in cell.get("metadata", {}).get("tfnb_expect", {}).get("shows", [])
    }


def network_is_cut() -> bool:
    """True when no route leads off this machine (connecting to a public address fails at once)."""
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing decides, no packet is sent
    except OSError:
        return True
    finally:
        probe.close()
    return False


OFFLINE = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"']


def offline_available() -> bool:
    """Can this machine run a command in a network namespace of its own (with loopback up)?"""
    import shutil
    import subprocess

    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run([*OFFLINE, "true"], capture_output=True)
    return probe.returncode == 0


def execute_offline(path: Path, out: Path, timeout: int = 900) -> nbformat.NotebookNode:
    """Execute ``path`` in a network namespace with only loopback: proof it needs no network."""
    import subprocess

    cmd = [*OFFLINE, sys.executable, "-m", "tests.notebook_runner", str(path), str(out)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"offline run of {path.name} failed:\n{done.stdout}\n{done.stderr}")
    return nbformat.read(out, as_version=4)


if __name__ == "__main__":
    if not network_is_cut():
        raise SystemExit("refusing: the network is reachable, so this run would prove nothing")
    executed = execute_notebook(Path(sys.argv[1]))
    nbformat.write(executed, sys.argv[2])
