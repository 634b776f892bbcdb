"""Keras 2 arguments that Keras 3 removed, with the Keras 3 way to say the same thing.

Keras 3 refuses these with "unexpected keyword argument 'period'" or
"Unrecognized keyword arguments passed to LSTM: {'batch_input_shape': ...}",
which names the argument but not what replaced it.  Only arguments whose
replacement Keras' message does not give are listed; each entry holds the APIs
it belongs to (class or method names, matched against the failing call's
API), so a word is never translated for an API that never had it.
"""

from __future__ import annotations

import re

# word -> (APIs it belonged to, what Keras 3 takes instead; {value} is the value given)
_REMOVED: dict[str, tuple[tuple[str, ...], str]] = {
    "period": (
        ("ModelCheckpoint",),
        "Keras 3 calls it save_freq: save_freq='epoch' saves after every epoch; to save every "
        "N epochs pass save_freq=N * steps_per_epoch (it counts batches)",
    ),
    "batch_input_shape": (
        ("Layer", "LSTM", "GRU", "SimpleRNN", "RNN", "Dense", "Conv", "Embedding", "Input"),
        "Keras 3 layers take no input shape: start the model with keras.Input(batch_shape={value}) "
        "(a stateful RNN needs that fixed batch size)",
    ),
    "workers": (
        ("fit", "evaluate", "predict"),
        "Keras 3's fit/evaluate/predict take no workers: give them to the data, a "
        "keras.utils.PyDataset subclass whose __init__ calls super().__init__(workers=..., "
        "use_multiprocessing=...), or use a tf.data pipeline",
    ),
    "use_multiprocessing": (
        ("fit", "evaluate", "predict"),
        "Keras 3's fit/evaluate/predict take no use_multiprocessing: give it to a "
        "keras.utils.PyDataset subclass (super().__init__(workers=..., use_multiprocessing=True)), "
        "or use a tf.data pipeline",
    ),
    "max_queue_size": (
        ("fit", "evaluate", "predict"),
        "Keras 3's fit takes no max_queue_size: give it to a keras.utils.PyDataset subclass "
        "(super().__init__(max_queue_size=...))",
    ),
    "nb_epoch": (("fit",), "the Keras 1/2 name: use epochs="),
    # Keras 3.15's optimizers refuse it as "Argument(s) not recognized: {'lr': 0.001}"
    "lr": (
        ("optimizers", "Optimizer"),
        "the Keras 2 name: use learning_rate={value}",
    ),
}

_UNRECOGNIZED = re.compile(r"Unrecognized keyword arguments passed to (\w+): \{'(\w+)': ([^}]*)\}")
_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")
_NOT_RECOGNIZED = re.compile(r"Argument\(s\) not recognized: \{'(\w+)': ([^,}]*)")


# arguments that declared the model's input shape: S04 (how to give the input shape), not S12
SHAPE_ARGUMENTS = frozenset({"batch_input_shape"})


def removed_argument(api: str, message: str) -> tuple[str, str] | None:
    """(word, what Keras 3 takes instead) when ``message`` refuses a removed Keras 2 argument
    of ``api``, else None."""
    found = _UNRECOGNIZED.search(message)
    word, value = (found.group(2), found.group(3).strip()) if found else ("", "")
    optimizer = _NOT_RECOGNIZED.search(message)
    if not found and optimizer:
        word, value = optimizer.group(1), optimizer.group(2).strip()
    elif not found:
        unexpected = _UNEXPECTED.search(message)
        word = unexpected.group(1) if unexpected else ""
    entry = _REMOVED.get(word)
    if entry is None:
        return None
    owners, replacement = entry
    owner = found.group(1) if found else ""
    names = re.split(r"[.\s]", api) + ([owner] if owner else [])
    if not any(o in n for o in owners for n in names if n):
        return None
    return word, replacement.replace("{value}", value or "(...)")
