"""``Model.fit`` / ``evaluate`` arguments of the wrong kind, written ten ways.

The family (written before the rules, from the ``Model.fit`` reference and common user
reports): ``validation_data`` is ``(x_val, y_val)`` or ``(x_val, y_val, val_sample_weight)``
(a third element is one weight per validation sample, not a batch size: that is
``validation_batch_size``); ``sample_weight`` is one weight per sample (an array), while a
``{class: weight}`` dict is ``class_weight``; a Python generator (or a ``keras.utils.PyDataset``)
yields *batches*, so one example per ``yield`` reaches Keras as a batch of scalars ("the
arrays must be at least rank 1. Received: 0 of rank 0", or a batch axis missing).  Keras
reports all of these as "Unrecognized data type" or a rank complaint naming none of the
arguments.  The evidence is the argument itself as given in the failing call (its type,
the type of a tuple's third element, a dict's keys against the number of classes, a
generator object), and the fix is the argument the value was meant for.

Scores of the ten before the rules: 0 right / 0 generic / 10 silent / 0 wrong; after them,
10 right.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.explain_corpus import Case
from tests.explain_fresh._score import assert_right, run_prelude, runs_cleanly

FAMILY = "fit_argument_kinds"

SETUP = """
x = np.random.rand(12, 4).astype("float32")
y = np.random.randint(0, 3, 12)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
"""

CASES = [
    Case(
        name="validation_data_third_element_is_a_batch_size",
        family=FAMILY,
        code=SETUP + "model.fit(x, y, validation_data=(x[:4], y[:4], 16), verbose=0)\n",
        expect="S12",
        must=("validation_batch_size=16", "sample"),
    ),
    Case(
        name="validation_data_third_element_is_a_float",
        family=FAMILY,
        code=SETUP + "model.fit(x, y, validation_data=(x[:4], y[:4], 0.2), verbose=0)\n",
        expect="S12",
        must=("validation_split=0.2",),
    ),
    Case(
        name="evaluate_given_class_weights_as_sample_weight",
        family=FAMILY,
        code=SETUP + "model.evaluate(x, y, sample_weight={0: 1.0, 1: 3.0, 2: 1.0}, verbose=0)\n",
        expect="S12",
        must=("sample_weight", "one weight per sample"),
    ),
    Case(
        name="fit_given_class_weights_as_sample_weight",
        family=FAMILY,
        code=SETUP + "model.fit(x, y, sample_weight={0: 1.0, 1: 3.0, 2: 1.0}, verbose=0)\n",
        expect="S12",
        must=("class_weight={0: 1.0, 1: 3.0, 2: 1.0}",),
    ),
    Case(
        name="fit_given_a_list_of_class_weights_as_sample_weight",
        family=FAMILY,
        code=SETUP + "model.fit(x, y, sample_weight=[1.0, 3.0, 1.0], verbose=0)\n",
        expect="S12",
        must=("class_weight", "12"),
    ),
    Case(
        name="generator_yielding_one_example",
        family=FAMILY,
        code=SETUP
        + """
def examples():
    while True:
        for i in range(len(x)):
            yield x[i], y[i]
model.fit(examples(), steps_per_epoch=3, verbose=0)
""",
        expect="S12",
        must=("batch", "examples()"),
    ),
    Case(
        name="generator_yielding_one_example_to_evaluate",
        family=FAMILY,
        code=SETUP
        + """
def one_by_one():
    for i in range(len(x)):
        yield x[i], y[i]
model.evaluate(one_by_one(), verbose=0)
""",
        expect="S12",
        must=("batch",),
    ),
    Case(
        name="py_dataset_returning_one_example",
        family=FAMILY,
        code=SETUP
        + """
class Rows(keras.utils.PyDataset):
    def __len__(self):
        return len(x)
    def __getitem__(self, i):
        return x[i], y[i]
model.fit(Rows(), verbose=0)
""",
        expect="S12",
        must=("batch", "__getitem__"),
    ),
    Case(
        name="validation_data_as_a_list_of_three_arrays",
        family=FAMILY,
        code=SETUP + "model.fit(x, y, validation_data=[x[:4], y[:4], 8], verbose=0)\n",
        expect="S12",
        must=("validation_batch_size=8",),
    ),
    Case(
        name="fit_with_class_weight_dict_passed_positionally_as_sample_weight",
        family=FAMILY,
        code=SETUP
        + "weights = {0: 2.0, 1: 1.0, 2: 1.0}\n"
        + "model.fit(x, y, 4, 1, 0, None, 0.0, None, True, None, weights)\n",
        expect="S12",
        must=("class_weight=weights",),
    ),
]


@pytest.fixture
def prelude_shell(shell: InteractiveShell) -> InteractiveShell:
    return run_prelude(shell)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fit_argument_kind(prelude_shell: InteractiveShell, case: Case) -> None:
    assert_right(prelude_shell, case)


def test_the_arguments_of_the_right_kind_train(prelude_shell: InteractiveShell) -> None:
    """The twins: a sample-weight array, a class-weight dict, a batching generator."""
    code = (
        SETUP
        + """
model.fit(x, y, validation_data=(x[:4], y[:4], np.ones(4)), validation_batch_size=16, verbose=0)
model.fit(x, y, sample_weight=np.ones(12), verbose=0)
model.fit(x, y, class_weight={0: 1.0, 1: 3.0, 2: 1.0}, verbose=0)
def batches():
    while True:
        for i in range(0, len(x), 4):
            yield x[i:i + 4], y[i:i + 4]
model.fit(batches(), steps_per_epoch=3, verbose=0)
"""
    )
    runs_cleanly(prelude_shell, code)
