"""The saved file against the session: which custom objects a failing ``load_model`` cannot rebuild.

Keras' saving guide states the contract: a ``.keras`` file stores each object's
``module``, ``class_name``, ``registered_name`` and ``get_config()``, never its
code.  Loading finds every custom class or function again by its registered
name (``@keras.saving.register_keras_serializable()`` gives ``package>Name``)
or through ``custom_objects`` keyed by that name, and rebuilds a class with
``cls.from_config(config)``, that is ``cls(**config)``: ``get_config`` must
return every ``__init__`` argument without a default.  Functions (a loss, a
regularizer, an activation) are stored by name alone.

:func:`saved_objects` reads the file's ``config.json`` (or the JSON given to
``model_from_json``) and checks each custom object in it against that
contract, with the ``custom_objects`` the call passed and the registry as they
are now: whether Keras can resolve it, and for a class the session defines,
which required ``__init__`` arguments its saved config lacks.  The evidence is
the file itself, so the same check explains the error whatever message Keras
wrapped it in.
"""

from __future__ import annotations

import inspect
import json
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation

_MAX_OBJECTS = 400


@dataclass(frozen=True)
class SavedObject:
    """One custom class or function the saved config refers to."""

    kind: str  # "class" or "function"
    name: str  # the class's or function's own name
    saved_as: str  # the name Keras looks it up by (``registered_name``, or the function's name)
    where: str  # "layer 'gate'", "the loss", "kernel_regularizer of layer 'dense'"
    config_keys: tuple[str, ...]  # a class's saved get_config() keys


def saved_objects(config: Any) -> list[SavedObject]:
    """The custom (not Keras') classes and functions of a saved model config, in file order."""
    found: list[SavedObject] = []
    for obj, key, layer in _objects(config, "", ""):
        if len(found) >= _MAX_OBJECTS:
            break
        module = obj.get("module") or ""
        registered = obj.get("registered_name")
        if obj.get("class_name") == "__lambda__":
            continue  # a Lambda's code, refused or rebuilt by safe_mode, not looked up by name
        if obj.get("class_name") == "function":
            name = obj.get("config")
            if not isinstance(name, str) or module != "builtins" or registered != "function":
                continue
            if "." not in name and _keras_builtin_function(name):
                continue
            found.append(SavedObject("function", name.split(">")[-1], name, _where(key, layer), ()))
            continue
        if module == "keras" or module.startswith("keras."):
            continue
        cls = obj.get("class_name")
        if not isinstance(cls, str):
            continue
        config_keys = obj.get("config")
        keys = tuple(config_keys) if isinstance(config_keys, dict) else ()
        own = config_keys.get("name") if isinstance(config_keys, dict) else None
        if key in ("", "layers") and isinstance(own, str):
            where = f"layer '{own}'"
        else:
            where = _where(key, layer)
        saved_as = registered if isinstance(registered, str) and registered else cls
        found.append(SavedObject("class", cls, saved_as, where, keys))
    return found


def _objects(value: Any, key: str, layer: str) -> Iterator[tuple[dict[str, Any], str, str]]:
    """Every serialized object (a dict with ``class_name`` and ``config``), with the config key
    that holds it and the name of the layer around it."""
    if isinstance(value, dict):
        if "class_name" in value and "config" in value:
            yield value, key, layer
            inner = value.get("config")
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                layer = inner["name"]
            yield from _objects(inner, "", layer)
            yield from _objects(value.get("compile_config"), "", "")
            return
        for k, v in value.items():
            yield from _objects(v, str(k), layer)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item, key, layer)


def _where(key: str, layer: str) -> str:
    if key in ("loss", "metrics", "weighted_metrics", "optimizer"):
        return f"the compiled {key}"
    if key and key != "layers" and layer:
        return f"{key} of layer '{layer}'"
    if layer:
        return f"layer '{layer}'"
    return key or "the model"


def _keras_builtin_function(name: str) -> bool:
    """``relu``, ``mse``, ``accuracy``: names Keras resolves by itself."""
    try:
        from keras.src.saving import serialization_lib

        for module in serialization_lib.BUILTIN_MODULES:
            if serialization_lib.api_export.get_symbol_from_name(f"keras.{module}.{name}"):
                return True
    except Exception:
        return False
    return False


def read_saved_config(call: LiveCall) -> Any:
    """The model config a load call reads: a ``.keras`` file's ``config.json``, or the JSON text
    given to ``model_from_json``; None when neither can be read."""
    for name in ("filepath", "json_string", "config", "arg0"):
        value = call.values.get(name, UNREAD)
        if isinstance(value, str):
            break
        if hasattr(value, "__fspath__"):
            value = str(value)
            break
    else:
        return None
    text = value.lstrip()
    if text.startswith("{"):
        return json.loads(text)
    if not zipfile.is_zipfile(value):
        return None  # a legacy .h5 file or a SavedModel folder: another contract's evidence
    with zipfile.ZipFile(value) as archive:
        return json.loads(archive.read("config.json"))


def _resolved(obj: SavedObject, custom_objects: Mapping[str, Any]) -> Any:
    """What Keras would resolve the object to now (the registry, then ``custom_objects``)."""
    try:
        from keras.saving import get_registered_object

        return get_registered_object(obj.saved_as, custom_objects=dict(custom_objects))
    except Exception:
        return None


def _missing_arguments(cls: Any, keys: tuple[str, ...]) -> list[str]:
    """``__init__`` parameters without a default that the saved config does not hold."""
    try:
        parameters = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in parameters
        if p.name != "self"
        and p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in keys
    ]


def _refused_keys(cls: Any, keys: tuple[str, ...]) -> list[str]:
    """Saved config keys that ``cls.__init__`` takes neither by name nor through ``**kwargs``."""
    try:
        parameters = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return []
    return [k for k in keys if k not in parameters]


def _own_from_config(cls: type) -> bool:
    """True when ``from_config`` is Keras' own (``cls(**config)``), not one the user wrote."""
    for klass in cls.__mro__:
        if "from_config" in vars(klass):
            return (klass.__module__ or "").startswith("keras")
    return True


def _in_session(name: str, call: LiveCall) -> Any:
    for space in call.namespaces:
        value = space.get(name)
        if value is not None and (isinstance(value, type) or callable(value)):
            return value
    return None


def load_custom_objects(call: LiveCall, exc: BaseException) -> Violation | None:
    """C05: the custom objects of the file Keras cannot resolve, or whose saved config lacks an
    ``__init__`` argument, named with the fix each needs (never the fix already in place)."""
    if not isinstance(exc, (TypeError, ValueError)):
        return None
    config = read_saved_config(call)
    if config is None:
        return None
    given = call.values.get("custom_objects", UNREAD)
    custom = dict(given) if isinstance(given, Mapping) else {}
    unresolved, incomplete, extra = [], [], []
    for obj in saved_objects(config):
        resolved = _resolved(obj, custom)
        if resolved is None:
            unresolved.append(obj)
        elif obj.kind == "class" and isinstance(resolved, type) and _own_from_config(resolved):
            missing = _missing_arguments(resolved, obj.config_keys)
            if missing:
                incomplete.append((obj, missing))
            refused = _refused_keys(resolved, obj.config_keys)
            if refused:
                extra.append((obj, refused))
    if unresolved:
        return _unresolved(call, unresolved, custom)
    if incomplete:
        return _incomplete(call, incomplete)
    if extra:
        return _extra(call, *extra[0])
    return None


def lookup_hint(
    kind: str, name: str, saved_as: str, given: tuple[str, ...] | None, defined: bool
) -> str:
    """The fix for a custom class or function ``load_model`` cannot find by its saved name:
    the key ``custom_objects`` needs, the registration to run first, or the code to define."""
    mapping = f"custom_objects={{'{saved_as}': {name}}}"
    if given is not None and saved_as not in given:
        return (
            f"custom_objects has no key '{saved_as}': the key must be the saved name, e.g. "
            f"{mapping}"
        )
    if ">" in saved_as:
        return (
            f"'{name}' was registered as '{saved_as}' when it was saved: run the cell that "
            f"defines it with @keras.saving.register_keras_serializable() before load_model, "
            f"or pass {mapping}"
        )
    if defined:
        return (
            f"the file was saved while '{name}' was not registered: load it with {mapping}; "
            f"decorate the {kind} with @keras.saving.register_keras_serializable() so models "
            "saved from then on load without it"
        )
    return (
        f"the file stores the {kind}'s name, not its code: define or import '{name}' before "
        f"loading and pass {mapping}, and decorate it with "
        "@keras.saving.register_keras_serializable()"
    )


def _unresolved(call: LiveCall, objects: list[SavedObject], custom: Mapping[str, Any]) -> Violation:
    first = objects[0]
    others = ", ".join(f"{o.kind} '{o.name}'" for o in objects[1:4])
    more = f"; the file also refers to {others}, which it cannot find either" if others else ""
    what = "class" if first.kind == "class" else "function (a loss, metric or activation)"
    defined = _in_session(first.name, call) is not None
    evidence = f"the file names {first.kind} '{first.name}', saved as '{first.saved_as}'"
    evidence += f"; custom_objects keys {sorted(custom)}" if custom else "; no custom_objects given"
    if defined:
        evidence += f"; {first.name} is defined in this session"
    given = tuple(custom) if isinstance(call.values.get("custom_objects"), Mapping) else None
    return Violation(
        "C05",
        call.text("filepath"),
        f"`{call.api.split('.')[-1]}` cannot find the custom {what} '{first.name}' "
        f"({first.where}){more}",
        lookup_hint(first.kind, first.name, first.saved_as, given, defined),
        evidence,
        quote_call=False,  # the keys given are in the evidence; the call adds nothing
    )


def _incomplete(call: LiveCall, items: list[tuple[SavedObject, list[str]]]) -> Violation:
    obj, missing = items[0]
    shown = ", ".join(f"'{m}'" for m in missing)
    update = ", ".join(f"{m}=self.{m}" for m in missing)
    plural = "s" if len(missing) > 1 else ""
    return Violation(
        "C05",
        call.text("filepath"),
        f"{obj.name}.get_config() ({obj.where}) did not save the __init__ argument{plural} "
        f"{shown}, so `{call.api}` cannot rebuild it ({obj.name}(**config) lacks {shown})",
        f"return every __init__ argument from get_config: config = super().get_config(); "
        f"config.update({update}); return config, then save the model again (the saved file "
        "lacks the value)",
        f"saved config keys {list(obj.config_keys)}; {obj.name}.__init__ requires {shown}",
        quote_call=False,
    )


def _extra(call: LiveCall, obj: SavedObject, refused: list[str]) -> Violation:
    shown = ", ".join(f"'{k}'" for k in refused)
    if set(refused) <= {"name", "trainable", "dtype"}:
        hint = (
            f"let {obj.name}.__init__ take **kwargs and pass them on: def __init__(self, ..., "
            "**kwargs): super().__init__(**kwargs) (Keras' own get_config adds name, trainable "
            "and dtype); the saved file then loads as it is"
        )
    else:
        hint = (
            f"make get_config and __init__ agree: accept {shown} in {obj.name}.__init__, or leave "
            "them out of get_config (then save the model again)"
        )
    return Violation(
        "C05",
        call.text("filepath"),
        f"{obj.name}.__init__ ({obj.where}) does not take {shown} from the saved get_config(), "
        f"so `{call.api}` cannot rebuild it ({obj.name}(**config) is refused)",
        hint,
        f"saved config keys {list(obj.config_keys)}; {obj.name}.__init__ takes no **kwargs",
        quote_call=False,
    )
