"""Run the benchmark's versions under tfnb_debug's magics and score them (IB/FL/FS/LF).

See the package docstring for the scoring rules.  Nothing here knows a rule of
tfnb_debug: it reads the findings of the reports the magics return.
"""

from __future__ import annotations

import re
import time
import traceback
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.fault_bench._case import Case

__all__ = [
    "CaseScore",
    "close_shell",
    "FoundFinding",
    "VersionRun",
    "make_shell",
    "run_version",
    "score",
    "totals_table",
]

MAGICS = ("tfgrad", "tflint")
GRAD_LINE = "-q -o --control"


@dataclass
class FoundFinding:
    """One finding as plain data, with the magic that reported it."""

    magic: str
    code: str
    severity: str
    message: str
    place: str
    evidence: str
    hint: str
    target: str

    def text(self) -> str:
        return f"{self.code} ({self.severity}) [{self.magic}] at {self.place}: {self.message}"

    def where(self) -> str:
        """What may localize it: its place, message and target, lower-cased."""
        return " | ".join((self.place, self.message, self.target)).lower()


@dataclass
class VersionRun:
    """What one version (buggy or correct) gave: findings, or the error that stopped it."""

    findings: list[FoundFinding] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}


@dataclass
class CaseScore:
    name: str
    family: str
    buggy: VersionRun
    correct: VersionRun
    ib: bool = False
    fl: bool = False
    fs: bool = False
    lf: bool = False
    identifying: list[FoundFinding] = field(default_factory=list)
    false_alarms: list[FoundFinding] = field(default_factory=list)
    checklist_hints: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.buggy.error or self.correct.error)

    @property
    def correct_silent(self) -> bool:
        return not self.failed and not self.false_alarms

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["failed"] = self.failed
        data["correct_silent"] = self.correct_silent
        return data


def make_shell() -> Any:
    """The process's real InteractiveShell with tfnb_debug loaded."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    with capture_output():
        shell.run_line_magic("load_ext", "tfnb_debug")
    shell.user_ns["__fault_bench_baseline__"] = None  # in the baseline itself
    shell.user_ns["__fault_bench_baseline__"] = frozenset(shell.user_ns)
    return shell


def close_shell(shell: Any) -> None:
    """Clear what the benchmark left in the namespace and unload tfnb_debug again."""
    from IPython.utils.capture import capture_output

    baseline = shell.user_ns.pop("__fault_bench_baseline__", None)
    if baseline is not None:
        for key in set(shell.user_ns) - baseline:
            shell.user_ns.pop(key, None)
    with capture_output():
        shell.run_line_magic("unload_ext", "tfnb_debug")


def _reset(shell: Any) -> None:
    import keras

    baseline = shell.user_ns["__fault_bench_baseline__"]
    for key in set(shell.user_ns) - baseline:
        shell.user_ns.pop(key, None)
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)


def _findings(report: Any, magic: str) -> list[FoundFinding]:
    if report is None or not hasattr(report, "findings"):
        return []
    found = []
    for group in report.findings:
        for f in group.members:
            target = getattr(f, "target", None)
            found.append(
                FoundFinding(
                    magic=magic,
                    code=f.code,
                    severity=str(f.severity),
                    message=f.message,
                    place=f.place or "",
                    evidence=f.evidence or "",
                    hint=f.hint or "",
                    target=getattr(target, "path", "") if target is not None else "",
                )
            )
    return found


def run_version(shell: Any, case: Case, buggy: bool, magics: Iterable[str] = MAGICS) -> VersionRun:
    """Run one version: setup plainly, training under ``%%tfgrad``, then ``%tflint``."""
    from IPython.utils.capture import capture_output

    from tests._support import run_magic

    magics = tuple(magics)
    setup, train = case.version(buggy)
    run = VersionRun()
    start = time.perf_counter()
    try:
        _reset(shell)
        with capture_output() as captured:
            result = shell.run_cell(setup, store_history=False)
        if not result.success:
            err = result.error_in_exec or result.error_before_exec
            raise RuntimeError(f"setup cell failed: {err!r}\n{captured.stdout[-2000:]}")
        if "tfgrad" in magics:
            shown = run_magic(shell, f"%%tfgrad {GRAD_LINE}", train)
            run.findings += _findings(shown.result, "tfgrad")
        else:
            with capture_output() as captured:
                result = shell.run_cell(train, store_history=False)
            if not result.success:
                raise RuntimeError(f"training cell failed: {result.error_in_exec!r}")
        if "tflint" in magics:
            shell.user_ns["_fault_bench_data"] = eval(case.lint_data, shell.user_ns)
            shown = run_magic(shell, "%tflint -q -o model --data _fault_bench_data")
            run.findings += _findings(shown.result, "tflint")
    except BaseException as err:  # a failing version fails its case, not the scorer
        if isinstance(err, KeyboardInterrupt):
            raise
        run.error = "".join(traceback.format_exception(err)[-6:])
    run.seconds = time.perf_counter() - start
    return run


def _names(where: str, places: Iterable[str]) -> bool:
    """Whether ``where`` names one of ``places`` as a whole word (a plural counts: "labels"
    names "label"), so that "x" or "dense1" do not match inside other words."""
    for place in places:
        pattern = r"(?<![a-z0-9_])" + re.escape(place.lower()) + r"(?:e?s)?(?![a-z0-9_])"
        if re.search(pattern, where):
            return True
    return False


def score(cases: list[Case], runs: dict[str, tuple[VersionRun, VersionRun]]) -> list[CaseScore]:
    """Score every case from its two runs (IB, FL, FS, LF, false alarms)."""
    by_name = {c.name: c for c in cases}
    # hint text -> the cases whose buggy version showed it (for the checklist rule)
    hint_cases: dict[str, set[str]] = {}
    for name, (buggy, _) in runs.items():
        for f in buggy.findings:
            if f.hint.strip():
                hint_cases.setdefault(f.hint.strip(), set()).add(name)

    def checklist(hint: str) -> bool:
        names = sorted(hint_cases.get(hint.strip(), ()))
        fixes = [set(by_name[n].fixes) for n in names]
        return any(
            not (fixes[i] & fixes[j]) for i in range(len(names)) for j in range(i + 1, len(names))
        )

    scores = []
    for case in cases:
        buggy, correct = runs[case.name]
        s = CaseScore(case.name, case.family, buggy, correct)
        s.false_alarms = [f for f in correct.findings if f.severity in ("warning", "error")]
        if not s.failed:
            fixed_codes = correct.codes()
            s.identifying = [
                f for f in buggy.findings if f.code in case.codes and f.code not in fixed_codes
            ]
            s.ib = bool(s.identifying)
            s.fl = any(_names(f.where(), case.places) for f in s.identifying)
            s.fs = any(
                f.code in case.symptom_codes and f.code not in fixed_codes for f in buggy.findings
            )
            for f in s.identifying:
                hint = f.hint.lower()
                if not any(fix.lower() in hint for fix in case.fixes):
                    continue
                if checklist(f.hint):
                    s.checklist_hints.append(f.hint)
                    continue
                s.lf = True
        scores.append(s)
    return scores


def case_line(s: CaseScore, width: int) -> str:
    def mark(flag: bool) -> str:
        return " Y" if flag else " -"

    alarms = ", ".join(sorted({f.code for f in s.false_alarms})) or "none"
    head = f"{s.name:{width}} {mark(s.ib)} {mark(s.fl)} {mark(s.fs)} {mark(s.lf)}  "
    if s.failed:
        return head + "FAILED (a version raised)"
    buggy_codes = ",".join(sorted(s.buggy.codes())) or "-"
    return head + f"false-alarms: {alarms}   [buggy codes: {buggy_codes}]"


def totals_table(scores: list[CaseScore]) -> str:
    """The totals per family and overall, as a Markdown table."""
    families = list(dict.fromkeys(s.family for s in scores))
    rows = [
        "| family | cases | identified | localized | symptom | fix | correct-silent | failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for family in [*families, "total"]:
        part = [s for s in scores if family in ("total", s.family)]
        n = len(part)

        def count(attr: str, part: list[CaseScore] = part) -> int:
            return sum(bool(getattr(s, attr)) for s in part)

        cells = [
            str(n),
            *(f"{count(a)}/{n}" for a in ("ib", "fl", "fs", "lf", "correct_silent")),
            str(count("failed")),
        ]
        name = f"**{family}**" if family == "total" else family
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
