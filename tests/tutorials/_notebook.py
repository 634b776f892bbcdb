"""Run a tutorial's cells and the magics in a real shell; read what each magic found."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

#: the severities a correct tutorial must not get
SEVERE = ("warning", "error")


@dataclass
class Failed:
    """A cell that raised: its exception, the automatic diagnosis shown under it (text, or
    ""), and everything it displayed (text)."""

    error: BaseException
    diagnosis: str
    shown: str


class Notebook:
    """The tutorial's notebook: cells run in order in one shell, as a user runs them."""

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell

    @property
    def ns(self) -> dict[str, Any]:
        return self.shell.user_ns

    def cell(self, code: str) -> Any:
        """Run a cell that must succeed (no diagnosis box under it); return its result."""
        with capture_output() as out:
            result = self.shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
        assert result.success, f"{result.error_in_exec!r}\n{out.stdout[-3000:]}"
        assert not _boxes(out), "a diagnosis under a cell that did not fail"
        return result.result

    def failing(self, code: str) -> Failed:
        """Run a cell that must raise; return the error and the automatic diagnosis."""
        with capture_output() as out:
            result = self.shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
        assert not result.success and result.error_in_exec is not None
        boxes = "\n".join(b.get("text/plain", "") for b in _boxes(out))
        shown = "\n".join(o.data.get("text/plain", "") for o in out.outputs)
        return Failed(result.error_in_exec, boxes, shown)

    def magic(self, line: str, cell: str | None = None) -> Any:
        """Run a magic with ``-q -o`` and return its report (raising what the magic raises)."""
        name, _, args = line.lstrip("%").partition(" ")
        with capture_output():
            if cell is None:
                return self.shell.run_line_magic(name, f"-q -o {args}")
            # through run_cell, as a notebook runs it: the cell's own line numbers and names
            result = self.shell.run_cell(
                f"%%{name} -q -o {args}\n" + textwrap.dedent(cell).strip("\n"),
                store_history=False,
            )
        if result.error_in_exec is not None:
            raise result.error_in_exec
        return result.result


def severe(report: Any) -> set[str]:
    """The codes of the findings a report gives at warning or error severity."""
    return {f.code for f in report.findings if f.severity in SEVERE}


def _boxes(out: Any) -> list[dict[str, Any]]:
    return [o.data for o in out.outputs if "tfnb-explain" in o.data.get("text/html", "")]
