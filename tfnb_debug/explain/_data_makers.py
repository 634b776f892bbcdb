"""The keras.utils builders that made the data of the user's failing line, as written.

A dataset or array made by a builder (``pad_sequences``, ``image_dataset_from_directory``,
``text_dataset_from_directory``, ``timeseries_dataset_from_array``, ``to_categorical``) has
the shape, length and label encoding its arguments chose, and an argument left out chooses
the builder's default: ``pad_sequences`` without ``maxlen`` pads to the longest sequence of
that call's data, ``image_dataset_from_directory`` gives integer labels unless
``label_mode`` says otherwise.  This reader finds, in the cell above the failing line, each
assignment of a builder's result to a name, with the keywords as written and the shape the
value has now; the ones the failing line uses are marked.  Nothing runs.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._nonfinite_source import failing_statement
from tfnb_debug.explain._operands import call_name
from tfnb_debug.explain._violation import shape_of

BUILDERS = (
    "pad_sequences",
    "image_dataset_from_directory",
    "text_dataset_from_directory",
    "audio_dataset_from_directory",
    "timeseries_dataset_from_array",
    "to_categorical",
)


@dataclass(frozen=True)
class DataMaker:
    """One ``name = builder(...)`` of the cell."""

    name: str
    api: str  # the builder's function name
    call: str  # the call as written
    keywords: tuple[tuple[str, str], ...]  # (keyword, its source), as written
    shape: tuple[int | None, ...] | None  # the value's shape now (arrays), None otherwise
    used: bool  # the failing line reads this name

    def keyword(self, name: str) -> str | None:
        return dict(self.keywords).get(name)


def read_data_makers(exc: BaseException) -> tuple[DataMaker, ...]:
    """Each builder assignment above the failing line, in order (at most 8)."""
    failing = failing_statement(exc)
    if failing is None:
        return ()
    spaces, before, statement = failing
    source = "".join(before)
    if not any(b in source for b in BUILDERS):
        return ()
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return ()
    used = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
    found: list[DataMaker] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
        ):
            continue
        api = call_name(node.value.func)
        if api not in BUILDERS:
            continue
        name = node.targets[0].id
        shape = shape_of(evaluate(ast.Name(id=name), spaces))
        found.append(
            DataMaker(
                name=name,
                api=api,
                call=ast.unparse(node.value),
                keywords=tuple((k.arg, ast.unparse(k.value)) for k in node.value.keywords if k.arg),
                shape=shape,
                used=name in used,
            )
        )
    return tuple(found[-8:])
