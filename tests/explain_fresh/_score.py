"""Run one fresh case in a real IPython shell and score the finding it got."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.explain_corpus import PRELUDE, Case

FINDING = re.compile(r"^[A-Z]\d\d [a-z0-9-]+ \((error|warning|info)\)")
VERDICTS = ("right", "generic", "silent", "wrong", "broken")


@dataclass
class Result:
    """What one case's cell did and what the diagnosis showed under it."""

    name: str
    family: str
    expect: str | None
    raised: str | None  # "ExceptionType: first line", None when the cell did not raise
    findings: list[str] = field(default_factory=list)
    verdict: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "family": self.family,
            "expect": self.expect,
            "raised": self.raised,
            "findings": self.findings,
            "verdict": self.verdict,
        }


def finding_lines(outputs: list) -> list[str]:
    """The finding lines of the text/plain forms of the captured display outputs."""
    lines: list[str] = []
    for output in outputs:
        text = output.data.get("text/plain", "") if hasattr(output, "data") else ""
        for line in str(text).splitlines():
            line = line.strip()
            if FINDING.match(line):
                lines.append(line)
    return lines


def wrong_lines(case: Case, findings: list[str]) -> list[str]:
    """Finding lines that contain a word of advice the case's evidence contradicts."""
    bad = [w.lower() for w in case.must_not]
    return [line for line in findings if any(w in line.lower() for w in bad)]


def score(case: Case, raised: bool, findings: list[str]) -> str:
    """broken, wrong, right, generic or silent (in that order of precedence)."""
    if not raised:
        return "broken"
    if wrong_lines(case, findings):
        return "wrong"
    if case.expect is None:
        return "right" if not findings else "generic"
    need = [w.lower() for w in case.must]
    for line in findings:
        if line.startswith(case.expect) and all(w in line.lower() for w in need):
            return "right"
    return "generic" if findings else "silent"


def run_case(shell: InteractiveShell, case: Case) -> Result:
    """Run the case's cell (after PRELUDE has run in ``shell``) and score what it showed."""
    code = textwrap.dedent(case.code).strip("\n")
    with capture_output() as captured:
        result = shell.run_cell(code, store_history=False)
    error = result.error_in_exec or result.error_before_exec
    raised = None
    if error is not None:
        first = str(error).strip().splitlines()
        raised = f"{type(error).__name__}: {first[0] if first else ''}"[:200]
    findings = finding_lines(captured.outputs)
    _reset_policy()
    out = Result(case.name, case.family, case.expect, raised, findings)
    out.verdict = score(case, error is not None, findings)
    return out


def _reset_policy() -> None:
    """A case that sets a mixed precision policy and raises before resetting it must not change
    the cases after it: back to Keras' default policy."""
    import keras

    if keras.mixed_precision.global_policy().name != "float32":
        keras.mixed_precision.set_global_policy("float32")


def assert_right(shell: InteractiveShell, case: Case) -> None:
    """Run ``case`` (after ``PRELUDE`` has run in ``shell``): it must raise, give no advice
    its evidence contradicts, and be scored right (the family tests built on the blind sets)."""
    result = run_case(shell, case)
    assert result.raised, "the case must raise"
    assert not wrong_lines(case, result.findings), result.findings
    assert result.verdict == "right", (result.raised, result.findings)


def run_prelude(shell: InteractiveShell) -> InteractiveShell:
    """``shell`` with ``PRELUDE`` (numpy, tensorflow, keras) run in it."""
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False).raise_error()
    return shell


def runs_cleanly(shell: InteractiveShell, code: str) -> None:
    """The twins of a family: ``code`` must run without raising."""
    with capture_output():
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    assert result.success, result.error_in_exec
