"""Every code the code base can emit is documented in docs/diagnostics.md, and vice versa."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tfnb_debug.ground.catalog import CATALOG

ROOT = Path(__file__).resolve().parents[1]
DOC_HEADING = re.compile(r"^## ([A-Z]\d\d) ([a-z0-9-]+) \((error|warning|info)\)$", re.M)
PLANNED_HEADING = re.compile(
    r"^### ([A-Z]\d\d) ([a-z0-9-]+) \((error|warning|info), planned\)$", re.M
)


def emitted_codes() -> set[str]:
    """Codes passed as a literal first argument to ``finding(...)`` anywhere in tfnb_debug/."""
    codes: set[str] = set()
    for path in (ROOT / "tfnb_debug").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name | ast.Attribute)
                and (getattr(node.func, "id", None) or getattr(node.func, "attr", None))
                == "finding"
                and node.args
            ):
                first = node.args[0]
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                    f"{path}:{node.lineno}: finding() must take its code as a string literal"
                )
                codes.add(first.value)
    return codes


def documented() -> dict[str, tuple[str, str]]:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    return {code: (slug, sev) for code, slug, sev in DOC_HEADING.findall(text)}


def planned() -> dict[str, tuple[str, str]]:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    return {code: (slug, sev) for code, slug, sev in PLANNED_HEADING.findall(text)}


def test_emitted_codes_are_documented_and_documented_codes_are_emitted() -> None:
    emitted = emitted_codes()
    docs = documented()
    assert emitted, "no finding() calls found: the scan is broken"
    assert emitted - set(docs) == set(), "emitted but not documented in docs/diagnostics.md"
    assert set(docs) - emitted == set(), "documented but no code emits it"


def test_every_catalog_code_is_documented_as_built_or_as_planned() -> None:
    docs, plans = documented(), planned()
    assert set(docs) & set(plans) == set(), "documented both as built and as planned"
    assert set(docs) | set(plans) == set(CATALOG)
    assert set(plans) & emitted_codes() == set(), "emitted but still documented as planned"


def test_documented_slugs_and_severities_match_the_catalog() -> None:
    for code, (slug, severity) in (documented() | planned()).items():
        entry = CATALOG[code]
        assert (entry.slug, entry.severity) == (slug, severity), code


def test_catalog_matches_shared_catalog_when_present() -> None:
    shared = ROOT.parent / "shared" / "DIAGNOSTICS.md"
    if not shared.exists():
        pytest.skip(f"no shared catalog file at {shared}")
    rows = re.findall(r"^\| ([A-Z]\d\d) \| ([a-z0-9-]+) \| (\w+) \|", shared.read_text(), re.M)
    assert rows
    for code, slug, severity in rows:
        assert code in CATALOG, code
        assert (CATALOG[code].slug, CATALOG[code].severity) == (slug, severity), code


def test_index_lists_every_documented_code_once() -> None:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[([A-Z]\d\d)\]\(#[^)]+\) \| ([a-z0-9-]+) \| (\w+) \|$", text, re.M)
    assert sorted(rows) == sorted((c, s, v) for c, (s, v) in documented().items())
