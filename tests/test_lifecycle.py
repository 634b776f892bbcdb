"""Load, reload and unload in a real shell: each magic and callback exists once, then none."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug
from tests._support import run_magic
from tfnb_debug.features.env import backend_problem


def _registries(shell: InteractiveShell) -> tuple[dict[str, set[str]], dict[str, int]]:
    magics = {kind: set(names) for kind, names in shell.magics_manager.magics.items()}
    callbacks = {event: len(cbs) for event, cbs in shell.events.callbacks.items()}
    return magics, callbacks


def _ours(shell: InteractiveShell) -> set[str]:
    return {
        name
        for names in shell.magics_manager.magics.values()
        for name, fn in names.items()
        if getattr(getattr(fn, "__self__", None), "__module__", "").startswith("tfnb_debug")
    }


def test_load_reload_unload_restores_registries(bare_shell: InteractiveShell) -> None:
    before = _registries(bare_shell)
    with capture_output() as out:
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    assert "tfnb_debug" in out.stdout and "TensorFlow" in out.stdout
    assert "tfenv" in bare_shell.magics_manager.magics["line"]
    loaded = _registries(bare_shell)
    ours = _ours(bare_shell)
    assert "tfenv" in ours

    with capture_output():
        bare_shell.run_line_magic("reload_ext", "tfnb_debug")
    assert _registries(bare_shell) == loaded, "reload must leave exactly one of each"
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")  # loading twice is harmless
    assert _registries(bare_shell) == loaded

    with capture_output():
        bare_shell.run_line_magic("unload_ext", "tfnb_debug")
    assert _registries(bare_shell) == before
    assert _ours(bare_shell) == set()


def test_status_line_names_versions_and_devices(bare_shell: InteractiveShell) -> None:
    import keras
    import tensorflow as tf

    with capture_output() as out:
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    try:
        line = out.stdout.strip().splitlines()[0]
        assert tf.__version__ in line and keras.__version__ in line
        assert "backend: tensorflow" in line
        gpus = tf.config.list_physical_devices("GPU")
        assert ("CPU only" in line) == (not gpus)
    finally:
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")


def test_import_is_light() -> None:
    code = textwrap.dedent(
        """
        import sys, tfnb_debug
        heavy = [m for m in ("tensorflow", "keras", "matplotlib", "ipywidgets", "pandas", "IPython")
                 if m in sys.modules]
        print(",".join(heavy))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_names_resolve() -> None:
    for name in tfnb_debug.__all__:
        assert getattr(tfnb_debug, name) is not None
    with pytest.raises(AttributeError):
        _ = tfnb_debug.no_such_function


def test_backend_decision() -> None:
    assert backend_problem("tensorflow") is None
    jax = backend_problem("jax")
    assert jax is not None and jax.code == "E03" and "jax" in jax.message
    legacy = backend_problem("tensorflow", legacy_keras=True)
    assert legacy is not None and legacy.code == "E03"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_non_tensorflow_backend_registers_nothing(backend: str) -> None:
    """E03 and no magics, whether or not the backend's package is installed."""
    code = textwrap.dedent(
        """
        import os
        from IPython.core.interactiveshell import InteractiveShell
        sh = InteractiveShell.instance()
        before = set(sh.magics_manager.magics["line"])
        sh.run_line_magic("load_ext", "tfnb_debug")
        print("NEW:", sorted(set(sh.magics_manager.magics["line"]) - before))
        """
    )
    env = {**__import__("os").environ, "KERAS_BACKEND": backend}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "E03 non-tensorflow-backend (error)" in out.stdout
    assert f"'{backend}'" in out.stdout
    assert "NEW: []" in out.stdout


def test_unknown_option_is_a_usage_error(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError):
        shell.run_line_magic("tfenv", "--no-such-option")


def test_tfenv_output_conventions(shell: InteractiveShell) -> None:
    shown = run_magic(shell, "%tfenv")
    assert shown.result is None
    assert "tfnb_debug environment check" in shown.text
    assert "<table" in shown.html and "matmul" in shown.html

    quiet = run_magic(shell, "%tfenv -q -o")
    assert quiet.outputs == []
    report = quiet.result
    assert isinstance(report, tfnb_debug.EnvReport)

    run_magic(shell, "%tfenv -q -v env_report")
    assert isinstance(shell.user_ns["env_report"], tfnb_debug.EnvReport)
    with pytest.raises(UsageError, match="variable name"):
        run_magic(shell, "%tfenv -q -v 1abc")


@pytest.mark.parametrize("magic", ["tfgrad", "tfcheck", "tfpipeline", "tfmem", "tfshape"])
def test_bad_output_variable_is_refused_before_the_cell_runs(
    shell: InteractiveShell, magic: str
) -> None:
    shell.user_ns["_ran"] = False
    with pytest.raises(UsageError, match="variable name"):
        shell.run_cell_magic(magic, "-v 1bad", "_ran = True\n")
    assert shell.user_ns["_ran"] is False


@pytest.mark.parametrize("magic", ["tfmem", "tfshape"])
def test_failing_cell_keeps_its_error_and_stores_the_partial_report(
    shell: InteractiveShell, magic: str
) -> None:
    with pytest.raises(ZeroDivisionError):
        shell.run_cell_magic(magic, "-q -v partial", "1 / 0\n")
    assert isinstance(shell.user_ns["partial"], tfnb_debug.Report)


@pytest.mark.slow
def test_loading_without_tensorflow_is_one_line() -> None:
    """A kernel whose Python cannot import tensorflow: one line naming it and the install command."""
    code = textwrap.dedent(
        """
        import sys
        class HideTensorFlow:
            # what an environment without TensorFlow answers: no module of that name
            def find_spec(self, name, path=None, target=None):
                if name == "tensorflow" or name.startswith("tensorflow."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None
        sys.meta_path.insert(0, HideTensorFlow())
        from IPython.core.interactiveshell import InteractiveShell
        sh = InteractiveShell.instance()
        before = set(sh.magics_manager.magics["line"])
        result = sh.run_cell("%load_ext tfnb_debug")
        print("SUCCESS:", result.success)
        print("NEW:", sorted(set(sh.magics_manager.magics["line"]) - before))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    assert lines[0].startswith("tfnb_debug needs TensorFlow"), out.stdout
    assert f"{sys.executable} -m pip install tensorflow-cpu" in lines[0]
    assert lines[1:] == ["SUCCESS: True", "NEW: []"], out.stdout
    assert "Traceback" not in out.stdout + out.stderr
