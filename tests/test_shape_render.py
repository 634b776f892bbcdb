"""The shape report's text and HTML from hand-made rows: golden files plus invariants (no TensorFlow).

Refresh after an intended change: ``TFNB_UPDATE_GOLDEN=1 pytest tests/test_shape_render.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests._support import check_golden
from tfnb_debug.features.shapes import ShapeReport, finish_report
from tfnb_debug.records.shapes import LayerCall, MemoryEstimate, TensorInfo, TensorStats


def t(shape: tuple[int | None, ...], producer: str | None = None, **kw: object) -> TensorInfo:
    return TensorInfo(shape=shape, dtype="float32", producer=producer, **kw)  # type: ignore[arg-type]


def stats(mean: float, zeros: float = 0.0) -> TensorStats:
    return TensorStats(
        count=1024, mean=mean, std=1.0, min=-2.0, max=3.0, zero_fraction=zeros, nonfinite=0
    )


def call(
    index: int,
    path: str,
    cls: str,
    ins: tuple[TensorInfo, ...],
    outs: tuple[TensorInfo, ...],
    **kw: object,
) -> LayerCall:
    defaults: dict[str, object] = {
        "depth": path.count("/"),
        "parent": None if "/" not in path else 0,
        "root": 0,
        "call": 0,
        "mode": "eager",
        "trainable_params": 0,
        "non_trainable_params": 0,
        "status": "ok",
        "finished": index + 1,
        "policy": "float32",
        "compute_dtype": "float32",
    }
    defaults.update(kw)
    return LayerCall(
        index=index,
        path=path,
        name=path.rsplit("/", 1)[-1],
        class_name=cls,
        inputs=ins,
        outputs=outs,
        **defaults,
    )  # type: ignore[arg-type]


def failed_report() -> ShapeReport:
    calls = (
        call(
            0,
            "net",
            "Functional",
            (t((2, 16, 16, 3), "input"),),
            (),
            status="aborted",
            finished=4,
            is_model=True,
            has_children=True,
        ),
        call(
            1,
            "net/c1",
            "Conv2D",
            (t((2, 16, 16, 3), "input"),),
            (t((2, 16, 16, 8), stats=stats(0.5, 0.95)),),
            trainable_params=224,
            activation="relu",
        ),
        call(
            2,
            "net/c2",
            "Conv2D",
            (t((2, 16, 16, 8), "net/c1", producer_index=1),),
            (t((2, 8, 8, 8), stats=stats(0.1)),),
            trainable_params=584,
        ),
        call(
            3,
            "net/add",
            "Add",
            (
                t((2, 16, 16, 8), "net/c1", producer_index=1),
                t((2, 8, 8, 8), "net/c2", producer_index=2),
            ),
            (),
            status="failed",
            error="Inputs have incompatible shapes. Received shapes (16, 16, 8) and (8, 8, 8)",
            error_type="ValueError",
            finished=3,
        ),
    )
    memory = MemoryEstimate(
        "net", 808, 808, "Adam", 16, 808 * 16, None, 2, "activations unknown (no eager call)"
    )
    return finish_report(
        ShapeReport(
            title="Shape trace of 'net'",
            calls=calls,
            models=("net",),
            total_params=808,
            trainable_params=808,
            non_trainable_params=0,
            memory=(memory,),
            failed=True,
            error_type="ValueError",
            error=calls[3].error,
        )
    )


def test_text_golden() -> None:
    check_golden("shape_failed.txt", failed_report().to_text(width=160) + "\n")


def test_html_golden() -> None:
    check_golden("shape_failed.html", failed_report().to_html() + "\n")


def test_invariants_of_the_failed_report() -> None:
    report = failed_report()
    assert report.codes() == ["S01", "N02"]
    s01 = report.findings[0]
    assert s01.place == "net/add" and "strides=2" in s01.hint and "'net/c1'" in s01.hint
    shapes = report.tables[0]
    assert shapes.row_marks == ("", "warning", "", "error")
    assert shapes.rows[3][4] == "FAILED: ValueError"
    html = report.to_html()
    assert html.count('class="tfnb-row tfnb-error"') == 1
    assert "<script" not in html and "<link" not in html and "http" not in html
    text = report.to_text(width=160)
    assert "!! 3" in text and "FAILED in 'net/add'" in text
    frame = report.to_dataframe()
    assert list(frame["path"]) == ["net", "net/c1", "net/c2", "net/add"]
    assert frame["trainable_params"].sum() == report.total_params
    assert re.search(r"parameters: 808 total", text)


def test_renderers_do_not_import_tensorflow() -> None:
    code = (
        "import sys; import tests.test_shape_render as m; m.failed_report().to_html(); "
        "print('tensorflow' in sys.modules, 'keras' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert out.stdout.strip() == "False False"
