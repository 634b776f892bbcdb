"""A finding whose catalog code a reader chose at run time, made with the code written as a
literal (the catalog test reads ``finding(...)``'s first argument): the one dispatch the
contracts, the table and NumPy readers, training results and fit's arguments share."""

from __future__ import annotations

from tfnb_debug.ground.reports import Finding, finding


def coded_finding(code: str, problem: str, place: str, evidence: str, hint: str) -> Finding:
    """``finding(code, ...)`` for the codes the readers return; S12 for any other."""
    if code == "S01":
        return finding("S01", problem, place=place, evidence=evidence, hint=hint)
    if code == "S07":
        return finding("S07", problem, place=place, evidence=evidence, hint=hint)
    if code == "S08":
        return finding("S08", problem, place=place, evidence=evidence, hint=hint)
    if code == "S11":
        return finding("S11", problem, place=place, evidence=evidence, hint=hint)
    if code == "S13":
        return finding("S13", problem, place=place, evidence=evidence, hint=hint)
    if code == "P12":
        return finding("P12", problem, place=place, evidence=evidence, hint=hint)
    if code == "N05":
        return finding("N05", problem, place=place, evidence=evidence, hint=hint)
    if code == "G04":
        return finding("G04", problem, place=place, evidence=evidence, hint=hint)
    if code == "G05":
        return finding("G05", problem, place=place, evidence=evidence, hint=hint)
    if code == "T02":
        return finding("T02", problem, place=place, evidence=evidence, hint=hint)
    if code == "T03":
        return finding("T03", problem, place=place, evidence=evidence, hint=hint)
    if code == "C04":
        return finding("C04", problem, place=place, evidence=evidence, hint=hint)
    if code == "C05":
        return finding("C05", problem, place=place, evidence=evidence, hint=hint)
    if code == "M05":
        return finding("M05", problem, place=place, evidence=evidence, hint=hint)
    if code == "S04":
        return finding("S04", problem, place=place, evidence=evidence, hint=hint)
    if code == "D01":
        return finding("D01", problem, place=place, evidence=evidence, hint=hint)
    if code == "S09":
        return finding("S09", problem, place=place, evidence=evidence, hint=hint)
    if code == "C01":
        return finding("C01", problem, place=place, evidence=evidence, hint=hint)
    return finding("S12", problem, place=place, evidence=evidence, hint=hint)
