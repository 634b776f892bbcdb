"""The live view in a real Jupyter kernel (ipykernel through nbclient): on by default, one
display updated in place while the cell runs, then the report in the same display."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.notebook_runner import error_outputs, execute_notebook

SETUP = """
import time
import numpy as np, keras
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("sgd", "mse")
x = np.random.rand(256, 8).astype("float32"); y = np.random.rand(256, 1).astype("float32")
class Slow(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(0.03)
"""
FIT = "model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[Slow()])"


@pytest.mark.slow
def test_live_view_updates_in_place_in_a_kernel(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext tfnb_debug"),
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell(f"%%tfgrad --live-interval 0.2\n{FIT}"),
        nbformat.v4.new_code_cell(f"%%tfgrad --no-live\n{FIT}"),
        nbformat.v4.new_code_cell(f"%%tfmem --live-interval 0.2\n{FIT}"),
    ]
    path = tmp_path / "live.ipynb"
    nbformat.write(nb, path)
    seen: dict[int, list[dict[str, Any]]] = {}

    def observe(index: int, msg: dict[str, Any]) -> None:
        if msg["msg_type"] in ("display_data", "update_display_data"):
            seen.setdefault(index, []).append(msg)

    done = execute_notebook(path, timeout=300, observe=observe)
    assert error_outputs(done) == []

    def ids(index: int) -> list[tuple[str, str | None]]:
        return [
            (m["msg_type"], (m["content"].get("transient") or {}).get("display_id"))
            for m in seen.get(index, [])
        ]

    live = ids(2)
    assert live[0][0] == "display_data" and live[0][1] is not None
    updates = [m for m in seen[2] if m["msg_type"] == "update_display_data"]
    assert len(updates) >= 3  # 32 steps of at least 30 ms, an update every 0.2 s
    assert {display_id for _, display_id in live} == {live[0][1]}  # one display, updated
    texts = [m["content"]["data"]["text/plain"] for m in updates]
    assert all(t.startswith("%%tfgrad live:") for t in texts[:-1])
    assert texts[-1].startswith("Gradients of model")  # the report replaced the live view
    # the saved notebook holds the report only, where the live view was
    outputs = [o for o in done.cells[2].outputs if o.get("output_type") == "display_data"]
    assert len(outputs) == 1 and "tfnb-live" not in outputs[0]["data"].get("text/html", "")
    # --no-live: only the report, no display id, no update
    assert ids(3) == [("display_data", None)]
    # %%tfmem has it too
    assert [m for m, _ in ids(4)].count("update_display_data") >= 2
