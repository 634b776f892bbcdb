"""One real InteractiveShell per tutorial module, with the extension loaded: the tutorial's
cells run in it in order, as in a notebook, and each test runs magics on what they left."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.tutorials._notebook import Notebook


@pytest.fixture(scope="module")
def notebook(bare_shell: InteractiveShell) -> Iterator[Notebook]:
    import os

    import keras

    # random data, random initial weights: the same each run, whatever ran before
    keras.utils.set_random_seed(int(os.environ.get("TFNB_TUTORIAL_SEED", "0")))
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    user_keys = set(bare_shell.user_ns)
    try:
        yield Notebook(bare_shell)
    finally:
        for key in set(bare_shell.user_ns) - user_keys:
            bare_shell.user_ns.pop(key, None)
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")
