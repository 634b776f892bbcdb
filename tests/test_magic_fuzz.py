"""Issue 31: bad input never escapes as an exception raised inside tfnb_debug.

Every magic the extension registers (read off ``magic_classes()`` and each
magic's own ``@argument`` parser, so a new magic or option is covered without
editing this file) is called as a line and as a cell magic with odd objects in
every positional slot and odd values for every option, unknown options, and
empty, real and failing cell bodies, each call run as a notebook cell.  A
one-line ``UsageError`` is the expected answer to bad input, and the user's or
Keras' own exception may pass through.  A crash is an exception whose innermost
frame is in tfnb_debug's code, or that a library raised when tfnb_debug's own
code (not a hook the user's code runs under) called it, or any printed
traceback that shows a tfnb_debug frame.  ``pytest -s`` prints the number of calls.
"""

from __future__ import annotations

import argparse
import re
import sysconfig
import time
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.magics import magic_classes

PACKAGE = str(Path(tfnb_debug.__file__).parent)

SETUP = """
import numpy as np, keras, tensorflow as tf
keras.utils.set_random_seed(0)
x = np.random.RandomState(0).rand(8, 4).astype("float32")
y = np.random.RandomState(1).randint(0, 3, size=(8,))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="fuzz_dense")])
model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
xy = (x, y)
ds = tf.data.Dataset.from_tensor_slices(xy).batch(4)
s = "a string"
nothing = None
fn = lambda v: v
empty_ds = ds.take(0)
inf_ds = ds.repeat()
nan_x = np.full((8, 4), np.nan, "float32")
unbuilt = keras.Sequential([keras.layers.Dense(3)])
layer = keras.layers.Dense(3)
uncompiled = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
wrong_x = np.zeros((8, 5), "float32")  # one feature too many for `model`
wrong_xy = (wrong_x, y)
from tests._support import tiny_run_folder
run_dir = tiny_run_folder()  # a run folder for %tfrun
"""

#: odd objects (names defined by SETUP, plus expressions that fail in their own ways)
ODD_OBJECTS = (
    "s",
    "nothing",
    "fn",
    "empty_ds",
    "inf_ds",
    "nan_x",
    "unbuilt",
    "layer",
    "uncompiled",
    "wrong_x",
    "wrong_xy",
    "does_not_exist",
    "x[",
    "1/0",
    "'unclosed",
)

#: a fitting value for a positional, by its name (anything else gets ``x``)
GOOD_POSITIONALS = {
    "model": "model",
    "x": "x",
    "data": "xy",
    "dataset": "ds",
    "names": "model x y",
    "run_dir": "$run_dir",
}

#: odd values for options that take one: numbers for typed options, names for the others
ODD_NUMBERS = ("0", "-1", "abc", "nan", "inf")
ODD_TEXTS = (*ODD_OBJECTS[: ODD_OBJECTS.index("x[")], "2,x", "-1,4", "0")

#: options that keep a call fast (applied whenever the magic has them and the call does
#: not vary them); a flag is written alone, an option with its value
FAST = {
    "--steps": "2",
    "--samples": "4",
    "--batches": "1",
    "--no-timing": None,
    "--no-live": None,
}

UNKNOWN_OPTIONS = ("--bogus", "-z", "--bogus=1", "--")

#: a cell body that does next to nothing (IPython itself refuses an empty one)
TRIVIAL = "z = 1"

CELL_BODIES = {
    "empty": "",
    "blank": "\n\n",
    "comment": "# nothing to do",
    "real": (
        "d = tf.data.Dataset.from_tensor_slices(xy).batch(4)\n"
        "model.fit(d, epochs=1, verbose=0)\nmodel(x[:2])"
    ),
    "user error": "raise ValueError('user boom')",
    "syntax error": "def (",
    "await": "import asyncio\nawait asyncio.sleep(0)",
    "infinite fit": "model.fit(inf_ds, epochs=1, steps_per_epoch=2, verbose=0)",
    "nan fit": "model.fit(nan_x, y, epochs=1, verbose=0)",
    "keras error": "model.fit(wrong_x, y, epochs=1, verbose=0)",
}


#: crashes found and not fixed yet, with why; the test fails when one of them is fixed
KNOWN: dict[str, str] = {}


@dataclass(frozen=True)
class Magic:
    name: str
    kind: str  # "line" or "cell"
    parser: argparse.ArgumentParser

    @property
    def prefix(self) -> str:
        return "%" if self.kind == "line" else "%%"


def registered_magics() -> list[Magic]:
    """Every magic of every class the extension registers, with its argument parser."""
    found = []
    for cls in magic_classes():
        for kind in ("line", "cell"):
            for name, method in sorted(cls.magics[kind].items()):
                parser = getattr(getattr(cls, method), "parser", None)
                found.append(Magic(name, kind, parser or argparse.ArgumentParser(prog=name)))
    return found


MAGICS = registered_magics()


def _positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings]


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def _good_value(action: argparse.Action) -> str:
    if action.choices:
        return str(next(iter(action.choices)))
    return GOOD_POSITIONALS.get(action.dest, "x")


def _fast(parser: argparse.ArgumentParser, varied: str = "") -> list[str]:
    known = parser._option_string_actions
    words = []
    for option, value in FAST.items():
        if option in known and option != varied:
            words += [option] if value is None else [option, value]
    return words


Call = tuple[str, str | None]  # (the magic's line, its cell body: None for a line magic)


def call_lines(magic: Magic) -> Iterator[Call]:
    """Every call of one magic: good input, odd arguments, odd options, odd cell bodies."""
    yield from _good_calls(magic)
    yield from _odd_argument_calls(magic)
    yield from _odd_option_calls(magic)
    yield from _unknown_option_calls(magic)
    yield from _odd_body_calls(magic)


def _words(*words: str) -> str:
    return " ".join(w for w in words if w)


def _good(magic: Magic) -> list[str]:
    if magic.kind == "cell":
        return []
    return [_good_value(a) for a in _positionals(magic.parser)]


def _body(magic: Magic, body: str) -> str | None:
    return body if magic.kind == "cell" else None


def _good_calls(magic: Magic) -> Iterator[Call]:
    """Good input first (the test checks it works), then each flag once."""
    parser, good = magic.parser, _good(magic)
    real = _body(magic, CELL_BODIES["real"])
    yield _words(*_fast(parser), *good), real
    for action in _options(parser):
        if action.nargs == 0:
            flag = action.option_strings[-1]
            yield _words(*_fast(parser, flag), flag, *good), real


def _odd_argument_calls(magic: Magic) -> Iterator[Call]:
    """An odd object (or choice) in each positional slot, then one missing, one extra."""
    if magic.kind == "cell":
        return
    parser, good = magic.parser, _good(magic)
    fast = _fast(parser)
    for index, action in enumerate(_positionals(parser)):
        for value in ODD_OBJECTS + (("bogus",) if action.choices else ()):
            yield _words(*fast, *good[:index], value, *good[index + 1 :]), None
        yield _words(*fast, *good[:index]), None
    yield _words(*fast, *good, "extra"), None
    yield _words(*fast), None


def _odd_option_calls(magic: Magic) -> Iterator[Call]:
    """Odd values for every option that takes one, and the option without its value."""
    parser, good = magic.parser, _good(magic)
    for action in _options(parser):
        if action.nargs == 0:
            continue
        option = action.option_strings[-1]
        fast = _fast(parser, option)
        typed = action.type in (int, float) or bool(action.choices)
        if action.dest == "var":  # a variable name, not an expression: a valid one is plain
            values: tuple[str, ...] = ("2,x", "s")
        else:
            values = (ODD_NUMBERS if typed else ODD_TEXTS) + (("never",) if action.choices else ())
        # a number changes how the cell runs: run a real one; a bad name fails before it runs
        body = _body(magic, CELL_BODIES["real"] if typed else TRIVIAL)
        for value in values:
            yield _words(*fast, option, value, *good), body
        yield _words(*fast, *good, option), body


def _unknown_option_calls(magic: Magic) -> Iterator[Call]:
    """Unknown options, before and after the arguments."""
    parser, good = magic.parser, _good(magic)
    fast = _fast(parser)
    for unknown in UNKNOWN_OPTIONS:
        yield _words(*fast, unknown, *good), _body(magic, TRIVIAL)
        yield _words(*fast, *good, unknown), _body(magic, TRIVIAL)


def _odd_body_calls(magic: Magic) -> Iterator[Call]:
    """Empty, failing and odd cell bodies, and a cell magic given a name on its line."""
    if magic.kind == "line":
        return
    fast = _fast(magic.parser)
    for name, body in CELL_BODIES.items():
        if name != "real":
            yield _words(*fast), body
    yield _words(*fast, "model"), TRIVIAL


@dataclass(frozen=True)
class Outcome:
    call: str
    kind: str  # "ok", "usage" (a one-line UsageError), "passed" (the user's or Keras' own), "crash"
    detail: str
    seconds: float


LIBRARIES = tuple(sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib"))


def blame(err: BaseException) -> tuple[bool, str]:
    """Whether tfnb_debug raised ``err`` (or fed a library something that raised it), and where.

    The innermost frame outside the libraries is the code that made the call that failed: a
    crash when it is tfnb_debug's, unless it is one of the hook frames the user's own code
    runs under (``__tracebackhide__``), or the user's cell.
    """
    entries = list(traceback.walk_tb(err.__traceback__))
    if not entries:
        return False, "?"
    innermost = entries[-1][0].f_code.co_filename
    for frame, line in reversed(entries):
        filename = frame.f_code.co_filename
        if filename.startswith(LIBRARIES) and not filename.startswith(PACKAGE):
            continue
        ours = filename.startswith(PACKAGE) and not frame.f_locals.get("__tracebackhide__")
        return ours or innermost.startswith(PACKAGE), f"{filename}:{line}"
    return innermost.startswith(PACKAGE), innermost


def run_call(shell: InteractiveShell, magic: Magic, line: str, cell: str | None) -> Outcome:
    """Run one call as a notebook cell in the real shell and say what came out of it."""
    source = f"{magic.prefix}{magic.name} {line}" + ("" if cell is None else f"\n{cell}")
    for name in set(shell.user_ns) - set(NAMESPACE) - BEFORE:  # -v NAME of an earlier call
        del shell.user_ns[name]
    shell.user_ns.update(NAMESPACE)  # a call may have rebound a name (-v s)
    start = time.perf_counter()
    with capture_output() as captured, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = shell.run_cell(source)
    kind, detail = judge(result.error_before_exec or result.error_in_exec)
    shown = ANSI.sub("", captured.stdout + captured.stderr)
    if PACKAGE in shown:  # a frame of ours in a printed traceback (the user's, or a display's)
        kind, detail = "crash", f"{detail} | printed: {shown[-600:]}"
    return Outcome(source, kind, detail, time.perf_counter() - start)


def judge(err: BaseException | None) -> tuple[str, str]:
    """``(kind, detail)`` of what a call raised."""
    if err is None:
        return "ok", ""
    if isinstance(err, UsageError | TfnbDebugError):
        message = str(err).strip()
        # bad input deserves one clear line
        return ("usage" if message and "\n" not in message else "crash"), message
    ours, where = blame(err)
    return ("crash" if ours else "passed"), f"{type(err).__name__}: {str(err)[:200]} at {where}"


ANSI = re.compile(r"\x1b\[[0-9;]*m")


NAMESPACE: dict[str, object] = {}
BEFORE: set[str] = set()
CALLS: dict[str, list[Outcome]] = {}


@pytest.fixture(scope="module")
def fuzz_shell(bare_shell: InteractiveShell) -> Iterator[InteractiveShell]:
    """The real shell with tfnb_debug loaded and the odd objects defined, for the whole module."""
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    before = set(bare_shell.user_ns)
    BEFORE.update(before)
    try:
        yield bare_shell
    finally:
        calls = [o for outcomes in CALLS.values() for o in outcomes]
        print(f"\nmagic fuzz: {len(calls)} calls of {len(CALLS)} magic forms")
        for key in set(bare_shell.user_ns) - before:
            bare_shell.user_ns.pop(key, None)
        with capture_output():
            bare_shell.run_line_magic("tfnb", "auto on")
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")


def define_objects(shell: InteractiveShell) -> None:
    """(Re)define the odd objects and the good ones in the notebook namespace."""
    for name in set(shell.user_ns) - BEFORE:
        del shell.user_ns[name]
    result = shell.run_cell(SETUP)
    assert result.success, result.error_in_exec
    NAMESPACE.clear()
    NAMESPACE.update({k: shell.user_ns[k] for k in set(shell.user_ns) - BEFORE})


def test_every_registered_magic_is_fuzzed(fuzz_shell: InteractiveShell) -> None:
    registered = {
        (kind, name)
        for kind, table in fuzz_shell.magics_manager.magics.items()
        for name, method in table.items()
        if type(getattr(method, "__self__", None)) in magic_classes()
    }
    assert registered == {(m.kind, m.name) for m in MAGICS}
    assert {"tfshape", "tfgrad", "tfmem", "tfcheck", "tfnb"} <= {m.name for m in MAGICS}


@pytest.mark.parametrize("magic", MAGICS, ids=lambda m: m.prefix + m.name)
def test_bad_input_never_crashes_inside_tfnb_debug(
    fuzz_shell: InteractiveShell, magic: Magic
) -> None:
    define_objects(fuzz_shell)  # fresh odd objects: an earlier magic may have built `unbuilt`
    outcomes = [run_call(fuzz_shell, magic, line, cell) for line, cell in call_lines(magic)]
    CALLS[magic.prefix + magic.name] = outcomes
    crashes = {o.call: o.detail for o in outcomes if o.kind == "crash"}
    new = [f"{call!r}: {detail}" for call, detail in crashes.items() if call not in KNOWN]
    assert not new, f"{len(new)} of {len(outcomes)} calls crashed:\n" + "\n".join(new)
    fixed = [call for call in KNOWN if call.startswith(magic.prefix + magic.name + " ")]
    assert all(call in crashes for call in fixed), "fixed: take it out of KNOWN"
    assert any(o.kind == "usage" for o in outcomes)  # the table does reach the bad-input checks
    assert outcomes[0].kind == "ok", outcomes[0]  # and good input still works
