"""A newcomer's first hour, in real subprocesses: the extension loads from the folder that holds
the clone, TensorFlow's start-up lines stay out, and a Python without TensorFlow gets one line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import tfnb_debug
from tfnb_debug.ground.startup import drop_startup_noise

ROOT = Path(__file__).resolve().parents[1]
STATUS = f"tfnb_debug {tfnb_debug.__version__} | TensorFlow "
# What TensorFlow 2.21 prints to stderr on import on an x86 CPU (absl's banner, oneDNN, the
# CPU-instructions notice); TF_ENABLE_ONEDNN_OPTS=1 makes the oneDNN line appear on any CPU.
NOISE = (
    "absl::InitializeLog",
    "oneDNN custom operations",
    "cpu_feature_guard",
    "rebuild TensorFlow",
)
HIDE_TENSORFLOW = """
import sys
class HideTensorFlow:
    # what an environment without TensorFlow answers: no module of that name
    def find_spec(self, name, path=None, target=None):
        if name == "tensorflow" or name.startswith("tensorflow."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, HideTensorFlow())
"""


def _env(tmp_path: Path, **changes: str | None) -> dict[str, str]:
    """The test's environment without PYTHONPATH (the clone must come from the install), with
    a private IPython directory and ``changes`` applied (None removes a variable)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["IPYTHONDIR"] = str(tmp_path / "ipythondir")
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _ipython(
    cell: str, *, cwd: Path, env: dict[str, str], python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """Run ``cell`` in a real terminal IPython (``ipython -c``) started in ``cwd``."""
    argv = [python, "-m", "IPython", "--quick", "--no-banner", "--colors=NoColor"]
    argv += ["--HistoryManager.enabled=False", "-c", cell]
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _beside_a_clone(tmp_path: Path) -> Path:
    """A folder holding a clone-like folder named ``tfnb_debug`` (this repository, linked)."""
    parent = tmp_path / "projects"
    parent.mkdir()
    (parent / "tfnb_debug").symlink_to(ROOT, target_is_directory=True)
    return parent


LOAD_BESIDE_THE_CLONE = textwrap.dedent(
    """
    import importlib.machinery, os
    spec = importlib.machinery.PathFinder.find_spec("tfnb_debug", [os.getcwd()])
    print("SHADOW:", spec is not None and spec.loader is None)
    %load_ext tfnb_debug
    import tfnb_debug
    print("VERSION:", tfnb_debug.__version__)
    print("FILE:", tfnb_debug.__file__)
    """
)


def _assert_loaded_from_the_package(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 0, out.stdout + out.stderr
    # the situation is the real one: seen from here, the clone is a namespace-package candidate
    assert "SHADOW: True" in out.stdout, out.stdout
    assert "not an IPython extension" not in out.stdout
    assert STATUS in out.stdout, out.stdout + out.stderr
    assert f"VERSION: {tfnb_debug.__version__}" in out.stdout
    assert f"FILE: {ROOT / 'tfnb_debug' / '__init__.py'}" in out.stdout


@pytest.mark.slow
def test_the_extension_loads_in_the_folder_that_holds_the_clone(tmp_path: Path) -> None:
    """The environment `make` set up (this one): a notebook saved beside the clone loads it."""
    parent = _beside_a_clone(tmp_path)
    out = _ipython(LOAD_BESIDE_THE_CLONE, cwd=parent, env=_env(tmp_path))
    _assert_loaded_from_the_package(out)


@pytest.mark.slow
def test_a_notebook_beside_the_clone_loads_it_without_start_up_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real kernel (nbclient) whose notebook sits in the folder that holds the clone."""
    import nbformat
    from nbclient import NotebookClient

    from tests.notebook_runner import KERNEL_NAME, _kernel_dir

    parent = _beside_a_clone(tmp_path)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(LOAD_BESIDE_THE_CLONE)])
    monkeypatch.setenv(
        "JUPYTER_PATH", _kernel_dir() + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    )
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    monkeypatch.setenv("TF_ENABLE_ONEDNN_OPTS", "1")
    client = NotebookClient(
        nb, timeout=300, kernel_name=KERNEL_NAME, resources={"metadata": {"path": str(parent)}}
    )
    client.execute()
    streams = {"stdout": "", "stderr": ""}
    for output in nb.cells[0].outputs:
        assert output.output_type == "stream", output
        streams[output.name] += output.text
    out = subprocess.CompletedProcess([], 0, streams["stdout"], streams["stderr"])
    _assert_loaded_from_the_package(out)
    assert [n for n in NOISE if n in streams["stdout"] + streams["stderr"]] == [], streams


@pytest.mark.slow
def test_a_plain_editable_install_loads_beside_the_clone(tmp_path: Path) -> None:
    """`pip install -e .` into a fresh environment, no setup script: the same holds."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps"]
        + ["--disable-pip-version-check", "-e", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    # tfnb_debug comes from the new environment; IPython, TensorFlow and the rest from this one
    # (a plain path entry: its .pth files, this environment's tfnb_debug among them, do not run)
    deps = sysconfig.get_paths()["purelib"]
    out = _ipython(
        LOAD_BESIDE_THE_CLONE,
        cwd=_beside_a_clone(tmp_path),
        env={**_env(tmp_path), "PYTHONPATH": deps},
        python=python,
    )
    _assert_loaded_from_the_package(out)


@pytest.mark.slow
def test_tensorflow_start_up_lines_stay_out_unless_the_user_sets_the_log_level(
    tmp_path: Path,
) -> None:
    cell = (
        "%load_ext tfnb_debug\nimport os\nprint('LEVEL:', os.environ.get('TF_CPP_MIN_LOG_LEVEL'))"
    )
    env = _env(tmp_path, TF_CPP_MIN_LOG_LEVEL=None, TF_ENABLE_ONEDNN_OPTS="1")
    quiet = _ipython(cell, cwd=tmp_path, env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert STATUS in quiet.stdout
    assert [n for n in NOISE if n in quiet.stdout + quiet.stderr] == [], quiet.stderr
    assert "LEVEL: None" in quiet.stdout  # the environment is left as it was
    # a level the user set is theirs: TensorFlow's lines come through as it prints them
    loud = _ipython(cell, cwd=tmp_path, env={**env, "TF_CPP_MIN_LOG_LEVEL": "0"})
    assert loud.returncode == 0, loud.stderr
    assert STATUS in loud.stdout
    assert "oneDNN custom operations are on" in loud.stderr
    assert "LEVEL: 0" in loud.stdout


def test_only_informational_start_up_lines_are_dropped() -> None:
    text = (
        "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
        "I0000 00:00:1796215262.997251    6877 port.cc:153] oneDNN custom operations are on.\n"
        "I0000 00:00:1796215263.026242    6877 cpu_feature_guard.cc:227] This TensorFlow binary\n"
        "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow "
        "with the appropriate compiler flags.\n"
        "W0000 00:00:1796215263.1    6877 gpu_device.cc:2342] Cannot dlopen some GPU libraries.\n"
        "E0000 00:00:1796215263.2    6877 cuda_dnn.cc:8310] Unable to register cuDNN factory\n"
        "something else entirely\n"
    )
    assert drop_startup_noise(text).splitlines() == text.splitlines()[4:]


@pytest.mark.slow
def test_without_tensorflow_every_entry_point_says_one_line() -> None:
    """Loading twice says it twice (not "already loaded"); a public function raises one line."""
    code = HIDE_TENSORFLOW + textwrap.dedent(
        """
        from IPython.core.interactiveshell import InteractiveShell
        sh = InteractiveShell.instance()
        for _ in range(2):
            sh.run_cell("%load_ext tfnb_debug")
            print("LOADED:", "tfnb_debug" in sh.extension_manager.loaded)
        result = sh.run_cell("import tfnb_debug; tfnb_debug.check_environment()")
        error = result.error_in_exec
        print("ERROR:", type(error).__name__, error.name, str(error))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    lines = [line for line in out.stdout.splitlines() if line.startswith(("tfnb_debug", "LOADED"))]
    assert [line.split(" ")[0] for line in lines] == ["tfnb_debug", "LOADED:"] * 2, out.stdout
    assert "already loaded" not in out.stdout
    assert lines[1] == lines[3] == "LOADED: False"
    error = next(line for line in out.stdout.splitlines() if line.startswith("ERROR:"))
    assert error.startswith("ERROR: ModuleNotFoundError tensorflow tfnb_debug.check_environment()")
    assert f"`{sys.executable} -m pip install tensorflow-cpu`" in error


@pytest.mark.slow
def test_without_tensorflow_a_script_gets_a_short_traceback(tmp_path: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(HIDE_TENSORFLOW + "import tfnb_debug\ntfnb_debug.check_environment()\n")
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 1
    frames = [line for line in out.stderr.splitlines() if line.startswith('  File "')]
    assert len(frames) <= 2, out.stderr  # the script's line and the one that raises
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: tfnb_debug.check_environment() needs TensorFlow")
    assert "pip install tensorflow-cpu" in last
    assert "keras" not in out.stderr


@pytest.mark.slow
def test_another_backend_can_be_loaded_again(tmp_path: Path) -> None:
    """E03 registers nothing, so a second %load_ext shows E03 again instead of "already loaded"."""
    code = textwrap.dedent(
        """
        from IPython.core.interactiveshell import InteractiveShell
        sh = InteractiveShell.instance()
        sh.run_cell("%load_ext tfnb_debug")
        sh.run_cell("%load_ext tfnb_debug")
        """
    )
    env = _env(tmp_path, KERAS_BACKEND="jax")
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.count("E03 non-tensorflow-backend (error)") == 2, out.stdout
    assert "already loaded" not in out.stdout


def _supported_pythons() -> list[str]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.findall(r'"Programming Language :: Python :: (3\.\d+)"', text)


def _version_of(python: str) -> str:
    code = 'import sys; print("%d.%d" % sys.version_info[:2])'
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def test_this_python_is_one_the_classifiers_name() -> None:
    assert f"{sys.version_info[0]}.{sys.version_info[1]}" in _supported_pythons()


def test_setup_refuses_a_python_the_pins_do_not_install_on(tmp_path: Path) -> None:
    """Before creating anything, with the interpreters it would take; no pip error 5 minutes later."""
    supported = _supported_pythons()
    candidates = [shutil.which(f"python{v}") for v in ("3.10", "3.9", "3.14", "3.15", "2.7")]
    candidates += sorted(map(str, Path("~/.pyenv/versions").expanduser().glob("*/bin/python")))
    python = next((c for c in candidates if c and _version_of(c) not in ("", *supported)), None)
    if python is None:
        pytest.skip(f"no Python other than {', '.join(supported)} on this machine")
    venv = tmp_path / "venv"
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh")],
        env={**os.environ, "VENV": str(venv), "PYTHON": python},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"is Python {_version_of(python)}, but the pinned versions" in out.stderr
    assert f"install on Python {' '.join(supported)} only" in out.stderr
    assert not venv.exists()
