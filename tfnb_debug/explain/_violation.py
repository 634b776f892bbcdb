"""A broken call contract, as plain values: the ground the contract modules share."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """One argument that breaks the called API's contract."""

    code: str  # catalog code: S12 structure, S01 layer input, S07 op shape, S11 dtype, P12 range
    argument: str  # the argument as the user wrote it
    problem: str  # what it is, against what the API takes
    hint: str  # the fix, derived from both
    evidence: str = ""
