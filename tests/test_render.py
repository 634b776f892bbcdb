"""Renderers on hand-made reports: golden files plus invariants (no TensorFlow needed).

Refresh the golden files after an intended change with ``TFNB_UPDATE_GOLDEN=1 pytest tests/test_render.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests._support import check_golden
from tfnb_debug.ground.reports import Finding, Report, Section, Table, finding, sort_findings


def sample_report() -> Report:
    table = Table(
        "layers",
        ("#", "layer", "output", "params"),
        ((0, "conv", (None, 26, 26, 8), 80), (1, "fuse", (None, 8, 8, 16), 0)),
        row_marks=("", "error"),
    )
    return Report(
        title="Sample report",
        summary=("2 layers traced",),
        findings=sort_findings(
            [
                finding("E02", "CPU only", place="host", evidence="0 GPUs", hint="install CUDA"),
                finding("E01", "growth off", place="GPU:0", hint="load first"),
            ]
        ),
        tables=(table,),
        sections=(Section("notes", "<p>a &amp; b</p>", "a & b"),),
    )


def test_text_golden() -> None:
    check_golden("sample_report.txt", sample_report().to_text(width=100) + "\n")


def test_html_golden() -> None:
    check_golden("sample_report.html", sample_report().to_html() + "\n")


def test_finding_line_starts_with_code_and_is_one_line() -> None:
    f = finding("E01", "a\nb", place="GPU:0", evidence="x", hint="y")
    assert f.to_text().startswith("E01 memory-growth-not-set (warning) at GPU:0: a b")
    assert "\n" not in f.to_text()


def test_text_form_lists_every_finding_on_a_line_of_its_own() -> None:
    report = sample_report()
    lines = report.to_text().splitlines()
    for f in report.findings:
        assert sum(line.startswith(f.code + " ") for line in lines) == 1
    assert report.codes() == ["E01", "E02"], "errors/warnings before info"


def test_html_is_self_contained_and_marks_the_failing_row() -> None:
    html = sample_report().to_html()
    assert "<link" not in html and "<script" not in html and 'class="tfnb-report"' in html
    failing = re.search(r'<tr class="tfnb-row tfnb-error"[^>]*>(.*?)</tr>', html)
    assert failing and "fuse" in failing.group(1)
    assert "a &amp; b" in html


def test_dataframe_and_save_html(tmp_path: Path) -> None:
    report = sample_report()
    frame = report.to_dataframe("layers")
    assert list(frame.columns) == ["#", "layer", "output", "params"]
    assert frame["params"].sum() == 80
    saved = report.save_html(tmp_path / "r.html")
    page = saved.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Sample report" in page
    with pytest.raises(KeyError, match="no table 'nope'"):
        report.table("nope")


def test_unknown_code_is_refused() -> None:
    with pytest.raises(KeyError, match="Z99"):
        finding("Z99", "nope")
    built = finding("E01", "m", place="GPU:0")
    assert built == Finding("E01", "memory-growth-not-set", "warning", "m", place="GPU:0")


def test_mimebundle_has_text_and_html() -> None:
    bundle = sample_report()._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
