"""Training results read with a key, a position or an unpacking they do not have.

- ``history.history``, a callback's ``logs`` and ``evaluate(..., return_dict=True)`` are
  dicts keyed by the names Keras logged: ``loss``, each metric's name (``accuracy``, not
  ``acc``; ``auc_1`` for a second ``AUC()`` made in the session), ``val_*`` only for epochs
  that ran validation (none without ``validation_data``/``validation_split``; every
  ``validation_freq``-th epoch with it).  ``model.metrics_names`` in Keras 3 is ``['loss',
  'compile_metrics']`` after compile, so a dict zipped from it lacks the metric names.
- ``evaluate`` returns one float when compile has no metrics, ``[loss, *metrics]``
  otherwise: unpacking it into another count of names fails.
- A per-epoch list shorter than the epochs asked for: fit stopped early (a non-finite loss
  under ``TerminateOnNaN``, an ``EarlyStopping``).

Read from the failing line (parsed), the live dict, list or History, and the cell's source
(the call that made the value, ``validation_freq=``).  Nothing is called.
"""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

# (expression, kind, problem, hint[, code]) as _library_results' classifiers return
Found = tuple[str, str, str, str] | tuple[str, str, str, str, str]

_EVALUATE = re.compile(r"^\s*([\w\s,()]+?)\s*=\s*(\w+)\.evaluate\(")


def missing_key(
    exc: KeyError, subscripts: list[tuple[str, Any, str]], lines: list[str]
) -> Found | None:
    """A key that a Keras result dict (history, logs, evaluate's dict) does not hold."""
    key = exc.args[0] if exc.args else None
    for name, value, _ in subscripts:
        if not isinstance(value, dict) or key in value or not _logged(value):
            continue
        keys = [str(k) for k in value]
        shown = ", ".join(f"'{k}'" for k in keys[:8])
        what = _what(name)
        problem = f"{what} has no key {key!r}: it holds {shown}"
        source = "".join(lines)
        if isinstance(key, int):
            order = ["loss", *(k for k in keys if k != "loss")] if "loss" in keys else keys
            meant = f"`{name}['{order[key]}']`" if 0 <= key < len(order) else "its keys"
            hint = (
                f"it is a dict keyed by metric name, not a list: read {meant} (position {key} "
                "of the list [loss, *metrics] that evaluate returns without return_dict=True)"
            )
        elif "compile_metrics" in keys:
            hint = (
                "in Keras 3 `model.metrics_names` is ['loss', 'compile_metrics'] after compile, "
                "so a dict zipped from it has no metric names: use "
                "`model.evaluate(x, y, return_dict=True)`, keyed by each metric's name"
            )
        elif str(key).startswith("val_") and not any(k.startswith("val_") for k in keys):
            freq = re.search(r"validation_freq\s*=\s*(\w+)", source)
            if freq is not None and freq.group(1) != "1":
                hint = (
                    f"validation runs every {freq.group(1)} epochs (validation_freq="
                    f"{freq.group(1)}), so the other epochs log no val_ values: read it with "
                    f"`{name}.get({key!r})` and skip None, or set validation_freq=1"
                )
            else:
                hint = (
                    "fit logs val_ values only when it validates: pass validation_data=(x_val, "
                    f"y_val) or validation_split=0.2 to fit, or read {shown.split(', ')[0]}"
                )
        else:
            close = _closest(str(key), keys)
            if close is None:
                hint = f"use one of the keys it holds: {shown}"
            elif re.fullmatch(re.escape(str(key)) + r"_\d+", close):
                hint = (
                    f"the key is '{close}': Keras numbers a metric's name when another metric of "
                    "that name was made earlier in the session (a cell run twice); read "
                    f"`{name}['{close}']`, or give the metric a name: `{_metric_class(close)}"
                    f"(name='{str(key).removeprefix('val_')}')`"
                )
            else:
                hint = (
                    f"the key is '{close}' (Keras logs a metric under the name it was given in "
                    f"compile): `{name}['{close}']`"
                )
        return name, what, problem, hint
    return None


def evaluate_unpacked(exc: BaseException, line: str, spaces: tuple[Any, ...]) -> Found | None:
    """``a, b = model.evaluate(...)`` where evaluate returns another count of values."""
    found = _EVALUATE.match(line)
    if found is None or "," not in found.group(1):
        return None
    names = [t.strip(" ()") for t in found.group(1).split(",") if t.strip(" ()")]
    model = next((sp[found.group(2)] for sp in spaces if found.group(2) in sp), None)
    metrics = getattr(model, "metrics_names", None)
    compiled = getattr(getattr(model, "compiled_metrics", None), "_user_metrics", None)
    if model is None or metrics is None:
        return None
    given = list(compiled or []) if not isinstance(compiled, dict) else list(compiled.values())
    if "non-iterable float" in str(exc) or not given:
        returned = "one float, the loss, because compile was given no metrics"
        hint = (
            f"give compile the metric(s) the line expects (`{found.group(2)}.compile(..., "
            f"metrics=[...])`) to get [loss, *metrics]; or take the one value: "
            f"`{names[0]} = {found.group(2)}.evaluate(...)`"
        )
    else:
        returned = f"[loss, *metrics]: {1 + len(given)} values for the metrics {given}"
        hint = f"unpack {1 + len(given)} names, or pass return_dict=True and read by name"
    return (
        ", ".join(names),
        "what evaluate returned",
        f"`{found.group(2)}.evaluate` returns {returned}, and the line unpacks it into "
        f"{len(names)} names ({', '.join(names)})",
        hint,
    )


def short_history(subscripts: list[tuple[str, Any, str]], spaces: tuple[Any, ...]) -> Found | None:
    """A per-epoch list of ``history.history`` indexed past the epochs fit ran."""
    for name, value, _ in subscripts:
        if not isinstance(value, list) or not name.endswith("]") or ".history[" not in name:
            continue
        owner = name.split(".history[")[0]
        history = next((sp[owner] for sp in spaces if owner in sp), None)
        params = getattr(history, "params", None) or {}
        asked, ran = params.get("epochs"), len(getattr(history, "epoch", []) or [])
        if not asked or ran >= asked:
            continue
        losses = (getattr(history, "history", None) or {}).get("loss", [])
        bad = [i for i, v in enumerate(losses) if isinstance(v, float) and not math.isfinite(v)]
        if bad:
            return (
                name,
                "a per-epoch list",
                f"fit ran {ran} of {asked} epochs: the loss was {losses[bad[0]]} at epoch "
                f"{bad[0] + 1} and training stopped there (a callback such as TerminateOnNaN), "
                f"so `{name}` has "
                f"{len(value)} values",
                "find why the loss became non-finite (a learning rate too high for unscaled "
                "inputs and targets is the usual cause: scale x and y, lower the learning "
                f"rate); index the last epoch with `{name}[-1]`",
                "G05",
            )
        return (
            name,
            "a per-epoch list",
            f"fit ran {ran} of {asked} epochs (a callback stopped it early), so `{name}` has "
            f"{len(value)} values",
            f"index the last epoch with `{name}[-1]` (or len({name}) - 1)",
        )
    return None


def _logged(value: dict[Any, Any]) -> bool:
    """A dict of what Keras logs: a loss key, numbers or per-epoch lists as values."""
    keys = [str(k) for k in value]
    return any(k == "loss" or k.endswith("_loss") for k in keys) and all(
        isinstance(v, int | float | list) or type(v).__module__.startswith(("numpy", "tensorflow"))
        for v in value.values()
    )


def _what(name: str) -> str:
    if name.endswith(".history"):
        return f"`{name}` (the History's per-epoch values)"
    return f"`{name}`"


def _closest(key: str, keys: list[str]) -> str | None:
    numbered = [k for k in keys if re.fullmatch(re.escape(key) + r"_\d+", k)]
    if len(numbered) == 1:
        return numbered[0]
    longer = [k for k in keys if k.startswith(key) or k.startswith(key.replace("acc", "accuracy"))]
    if len(longer) == 1:
        return longer[0]
    close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
    return close[0] if close else None


def _metric_class(logged: str) -> str:
    base = re.sub(r"_\d+$", "", logged.removeprefix("val_"))
    known = {"auc": "AUC", "precision": "Precision", "recall": "Recall"}
    return f"keras.metrics.{known.get(base, base.title().replace('_', ''))}"


_WEIGHTS = re.compile(r"^\s*([\w\s,()]+?)\s*=\s*(.+?)\.get_weights\(\)\s*$")


def weights_unpacked(line: str, spaces: tuple[Any, ...]) -> Found | None:
    """``w, b = layer.get_weights()`` on a layer that has no weights yet (never built)."""
    from tfnb_debug.explain._api import UNREAD, evaluate

    found = _WEIGHTS.match(line)
    if found is None:
        return None
    try:
        import ast

        owner = evaluate(ast.parse(found.group(2), mode="eval").body, spaces)
    except SyntaxError:
        return None
    if owner is UNREAD or getattr(owner, "built", True) or not hasattr(owner, "get_weights"):
        return None
    name = str(getattr(owner, "name", found.group(2)))
    return (
        found.group(2),
        "an unbuilt layer",
        f"`{found.group(2)}` (layer '{name}') has no weights yet: its model was never built "
        "(compile does not build it, and it has no Input), so get_weights() returns []",
        "build the model first: start the Sequential with `keras.Input(shape=...)`, or call "
        "`model.build((None, n_features))` or fit it once, then read the weights",
        "S04",
    )
