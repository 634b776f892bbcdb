"""A real JupyterLab (or Notebook 7) in a real browser, for end-to-end tests of what notebooks show.

``running_lab(notebook_dir)`` starts this environment's JupyterLab
(``app="notebook"``: Notebook 7, the ``notebook`` package's server) on
127.0.0.1 with a random token, as root if need be (CI runs as root), with its
config, data, runtime and settings directories inside a temporary folder so a
user's own Jupyter setup cannot leak in.  ``chromium_page(lab)`` drives
Debian's Chromium (``/usr/bin/chromium``) headless through Playwright's Python
package; Playwright's own browser download is never used (it cannot work here).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
)
KERNEL_NAME = "tfnb-debug-browser"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@dataclass(frozen=True)
class Lab:
    url: str
    token: str
    notebook_dir: Path
    log: Path
    app: str = "lab"  # "lab" (JupyterLab) or "notebook" (Notebook 7)

    def notebook_url(self, name: str) -> str:
        if self.app == "notebook":
            return f"{self.url}/notebooks/{name}?token={self.token}"
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"

    def tree_url(self) -> str:
        """Notebook 7's file browser (JupyterLab's for ``app="lab"``)."""
        path = "tree" if self.app == "notebook" else "lab/tree"
        return f"{self.url}/{path}?token={self.token}"

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no server log)"


def browser_problem(app: str = "lab") -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed"
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        return "jupyterlab is not installed in this environment"
    if app == "notebook":
        try:
            import notebook  # noqa: F401
        except ImportError:
            return "the notebook package (Notebook 7) is not installed in this environment"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_notebook(path: Path, cells: list[str]) -> Path:
    """A notebook of code cells, without outputs, that runs on the test kernel."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": KERNEL_NAME,
        "display_name": "tfnb_debug browser tests",
        "language": "python",
    }
    nbformat.write(nb, path)
    return path


def _isolated_env(base: Path) -> dict[str, str]:
    """Jupyter directories inside ``base`` plus a kernelspec for this interpreter."""
    spec = base / "data" / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "tfnb_debug browser tests", "language": "python"})
    )
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        JUPYTER_PATH=str(base / "data"),
        IPYTHONDIR=str(base / "ipython"),
        TF_CPP_MIN_LOG_LEVEL="3",
        TF_ENABLE_ONEDNN_OPTS="0",
        PYTHONDONTWRITEBYTECODE="1",
        MPLBACKEND="Agg",
    )
    # No "would you like news?" toast over the notebook.
    settings = base / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    return env


@contextlib.contextmanager
def running_lab(
    notebook_dir: Path, *, app: str = "lab", startup_timeout: float = 120.0
) -> Iterator[Lab]:
    """JupyterLab (or Notebook 7) serving ``notebook_dir`` on 127.0.0.1; stopped on exit."""
    base = Path(tempfile.mkdtemp(prefix="tfnb-lab-"))
    env = _isolated_env(base)
    port = free_port()
    token = secrets.token_hex(16)
    log = base / "server.log"
    app_class = "JupyterNotebookApp" if app == "notebook" else "LabApp"
    command = [
        sys.executable,
        "-m",
        "notebook" if app == "notebook" else "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={notebook_dir}",
        f"--{app_class}.expose_app_in_browser=True",
        "--ServerApp.open_browser=False",
    ]
    if app == "lab":
        command += [
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.news_url=",
        ]
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            command, cwd=notebook_dir, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
    lab = Lab(f"http://127.0.0.1:{port}", token, notebook_dir, log, app)
    try:
        _wait_for_server(lab, process, startup_timeout)
        yield lab
    finally:
        _stop(process)
        shutil.rmtree(base, ignore_errors=True)


def _wait_for_server(lab: Lab, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    url = f"{lab.url}/api/status?token={lab.token}"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {process.returncode}:\n{lab.log_tail()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s:\n{lab.log_tail()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server we started (it shuts its kernels down on SIGTERM)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextlib.contextmanager
def chromium_page(*, width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A Playwright page in headless Debian Chromium with a fresh profile directory."""
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="tfnb-chromium-"))
    try:
        with sync_playwright() as pw:
            # Playwright passes ``--user-data-dir`` itself: a persistent context on a
            # fresh, empty directory is how it takes one we chose.
            context = pw.chromium.launch_persistent_context(
                str(profile),
                executable_path=CHROMIUM,
                args=list(CHROMIUM_ARGS),
                headless=True,
                viewport={"width": width, "height": height},
            )
            try:
                page = context.pages[0] if context.pages else context.new_page()
                yield page
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def run_all_cells(page: Any, *, timeout_ms: int = 120_000) -> None:
    """Run every cell through JupyterLab's own command and wait until the kernel is idle."""
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
        timeout=timeout_ms,
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    wait_idle(page, timeout_ms=timeout_ms)


def wait_idle(page: Any, *, timeout_ms: int = 120_000) -> None:
    """Wait until every code cell shows an execution count (``[3]:``) and the kernel is idle."""
    page.wait_for_function(
        "() => {"
        " const w = window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext.session && w.sessionContext.session.kernel;"
        " const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];"
        " const done = prompts.every(e => /\\[\\d+\\]/.test(e.textContent));"
        " return k && k.status === 'idle' && prompts.length > 0 && done; }",
        timeout=timeout_ms,
    )


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def open_notebook(page: Any, lab: Lab, name: str) -> Any:
    """JupyterLab: the notebook's URL.  Notebook 7: /tree, then a click on the file (new tab)."""
    if lab.app == "lab":
        page.goto(lab.notebook_url(name))
        return page
    page.goto(lab.tree_url())
    entry = page.locator(".jp-DirListing-item", has_text=name)
    entry.wait_for(timeout=60_000)
    with page.context.expect_page(timeout=60_000) as opened:
        entry.dblclick()
    notebook = opened.value
    notebook.wait_for_load_state()
    assert "/notebooks/" in notebook.url
    return notebook


@contextlib.contextmanager
def notebook_in_browser(
    tmp_path: Path, app: str, cells: list[str], name: str, failure_png: str
) -> Iterator[tuple[Any, Path]]:
    """``cells`` written to ``tmp_path/name``, opened in ``app`` in Chromium: (page, notebook).

    A test that cannot run fails with the reason; when the body raises, a
    screenshot goes to ``failure_png`` and the server's log tail is printed.
    """
    import pytest

    reason = browser_problem(app)
    if reason is not None:
        pytest.fail(f"the browser test cannot run: {reason}")
    notebook = write_notebook(tmp_path / name, cells)
    with running_lab(tmp_path, app=app) as lab, chromium_page() as first:
        page = first
        try:
            page = open_notebook(first, lab, notebook.name)
            yield page, notebook
        except Exception:
            screenshot(page, failure_png)
            print(lab.log_tail())
            raise
