"""A data dict whose keys are not the model's Input names (S12): keys that differ from the
names only in case or separators, Keras 2's automatic names, or Inputs made without a name
(Keras 3 calls them ``input_layer``, ``input_layer_1``...).  Read from Keras' message, which
lists both the keys given and the names expected."""

from __future__ import annotations

import re

from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_NAMES = re.compile(r"'([^']*)'")


def missing_key(match: re.Match[str]) -> Explained | None:
    """S12 when the dict's keys are near the input names (a rename), or Keras 2's automatic
    names; None when they are simply other names: Keras' message lists both already."""
    missing = match.group(1)
    given = _NAMES.findall(match.group(2))
    expected = _NAMES.findall(match.group(3))
    extra = [k for k in given if k not in expected]
    absent = [k for k in expected if k not in given]
    renames = []
    for name in absent:
        near = [k for k in extra if _plain(k) == _plain(name)]
        if near:
            renames.append((near[0], name))
    automatic = extra and all(re.fullmatch(r"input_\d+", k) for k in extra)
    if automatic:
        hint = (
            f"{extra} are Keras 2's automatic input names; Keras 3 names unnamed Inputs "
            f"{absent}: name the Inputs (`keras.Input(..., name='{extra[0]}')`) or pass a list in "
            "the order of model.inputs"
        )
    elif absent and all(re.fullmatch(r"input_layer(_\d+)?", k) for k in absent):
        hint = (
            f"the model's Inputs were made without `name=`, so Keras named them {absent}: name "
            "them after the dict's keys, "
            + ", ".join(f"`keras.Input(..., name='{k}')`" for k in extra[: len(absent)])
            + ", or pass a list in the order of model.inputs"
        )
    elif len(extra) == 1 and len(absent) == 1 and not renames:
        hint = (
            f"'{extra[0]}' is the one key no Input takes and '{absent[0]}' the one Input "
            f"without a key: if they are the same feature, rename one of them (the data's "
            f"column, e.g. `df.rename(columns={{'{extra[0]}': '{absent[0]}'}})`, or the Input's "
            "name=)"
        )
    elif renames:
        hint = (
            "rename "
            + ", ".join(f"the dict key '{a}' to '{b}'" for a, b in renames)
            + (" (the keys must be the names of the model's Input layers, case included)")
        )
    else:
        return None
    return (
        finding(
            "S12",
            f"the data dict has no key for input '{missing}'",
            place=f"input '{missing}'",
            evidence=f"keys given {given}, inputs {expected}",
            hint=hint,
        ),
        (),
    )


def _plain(name: str) -> str:
    """A name without case and separators: 'BMI', 'bmi' and 'b_m_i' are one name."""
    return re.sub(r"[\s_\-.]", "", name.lower())
