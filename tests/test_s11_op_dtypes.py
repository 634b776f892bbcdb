"""S11 dtype-mismatch, op-contract form: an op given a tensor whose dtype is outside the dtypes
the op is defined for, written ten ways.

The family (written before the rule, from the TensorFlow op reference and common user
reports): every TensorFlow op declares, per input, the dtypes it takes (``tf.one_hot``'s
``indices`` and ``tf.gather``'s are integers; ``tf.reduce_mean``, ``tf.math.log``,
``tf.nn.softmax`` and ``tf.sqrt`` take numbers, most of them floats only; ``tf.cast`` does not
parse text).  A tensor of another dtype is refused with the op, the attribute or parameter
and the allowed list ("Value for attr 'TI' of float is not in the list of allowed values:
uint8, int8, int32, int64 ... {{node OneHot}} ... Op<name=OneHot; signature=indices:TI, ...>"
eagerly, "Value passed to parameter 'indices' has DataType float32 not in list of allowed
values" in a ``tf.function`` or ``Dataset.map``, "Cast string to float is not supported"),
and a Keras layer given an integer tensor its float weights cannot meet ("Incompatible type
conversion requested to type uint8 for `tf.Variable of type float32") names the variable.
The evidence is the op (or layer), the input and its dtype, the allowed dtypes, and the
user's line; the fix is a cast to a dtype the op takes (ids parsed as floats cast to int32,
a bool mask cast to float32 before a mean), or, for text, parsing (``tf.strings.to_number``)
or a lookup (``StringLookup``) -- both named when the values are not seen.

Scores of the ten written first, before the rule (the op-input contract then read only a
parameter named ``indices``): 2 right (``tf.one_hot`` and ``tf.gather`` called eagerly) / 1
generic (S12 for the ``tf.function``) / 7 silent / 0 wrong; after it, 10 right.  One case
was changed after the first score: ``cast_of_numeric_strings`` asked for both fixes (parse,
look up), but the rule reads the values ('1.5') and names the one that fits, so its twin
``cast_of_category_words`` was added for the other.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests.explain_corpus import Case
from tests.explain_fresh._score import assert_right, run_prelude, runs_cleanly

FAMILY = "op_dtype_contracts"

CASES = [
    Case(
        name="one_hot_of_float_class_ids",
        family=FAMILY,
        code="""
ids = tf.constant([0.0, 2.0, 1.0])
targets = tf.one_hot(ids, depth=3)
""",
        expect="S11",
        must=("indices", "int32", "tf.cast(ids"),
        must_not=("float64",),
    ),
    Case(
        name="one_hot_in_a_map_after_to_number",
        family=FAMILY,
        code="""
lines = tf.constant(["0.2,1.5,2", "0.7,0.1,0"])
def parse(line):
    values = tf.strings.to_number(tf.strings.split(line, ","))
    return values[:2], tf.one_hot(values[2], depth=3)
ds = tf.data.Dataset.from_tensor_slices(lines).map(parse)
""",
        expect="S11",
        must=("indices", "int32", "values[2]"),
        must_not=("float64",),
    ),
    Case(
        name="reduce_mean_of_a_bool_mask",
        family=FAMILY,
        code="""
labels = tf.constant([0, 1, 2, 1])
predicted = tf.argmax(tf.random.normal((4, 3)), axis=-1, output_type=tf.int32)
accuracy = tf.reduce_mean(tf.equal(predicted, labels))
""",
        expect="S11",
        must=("bool", "float32", "tf.cast("),
        must_not=("int32)",),
    ),
    Case(
        name="gather_with_float_positions",
        family=FAMILY,
        code="""
table = tf.random.normal((10, 4))
positions = tf.constant([1.0, 3.0])
rows = tf.gather(table, positions)
""",
        expect="S11",
        must=("indices", "int32", "positions"),
    ),
    Case(
        name="softmax_of_integer_scores",
        family=FAMILY,
        code="""
scores = tf.constant([[1, 2, 3]])
probs = tf.nn.softmax(scores)
""",
        expect="S11",
        must=("int32", "float32", "scores"),
    ),
    Case(
        name="log_of_integer_counts",
        family=FAMILY,
        code="""
counts = tf.constant([1, 4, 9])
log_counts = tf.math.log(counts)
""",
        expect="S11",
        must=("int32", "float32", "counts"),
    ),
    Case(
        name="sqrt_of_integer_in_a_tf_function",
        family=FAMILY,
        code="""
@tf.function
def norm(v):
    return tf.sqrt(tf.reduce_sum(v * v))
norm(tf.constant([3, 4]))
""",
        expect="S11",
        must=("int32", "float32"),
    ),
    Case(
        name="cast_of_numeric_strings",
        family=FAMILY,
        code="""
prices = tf.constant(["1.5", "2.25"])
values = tf.cast(prices, tf.float32)
""",
        expect="S11",
        must=("to_number",),
        must_not=("stringlookup",),
    ),
    Case(
        name="cast_of_category_words",
        family=FAMILY,
        code="""
colors = tf.constant(["red", "green"])
codes = tf.cast(colors, tf.int64)
""",
        expect="S11",
        must=("stringlookup",),
        must_not=("to_number",),
    ),
    Case(
        name="uint8_pixels_into_a_subclassed_cnn",
        family=FAMILY,
        code="""
class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(4, 3)
        self.head = keras.layers.Dense(2)
    def call(self, x):
        return self.head(keras.layers.GlobalAveragePooling2D()(self.conv(x)))
pixels = tf.constant(np.random.randint(0, 256, size=(2, 8, 8, 3), dtype=np.uint8))
Net()(pixels)
""",
        expect="S11",
        must=("uint8", "float32", "tf.cast(pixels"),
        must_not=("float64",),
    ),
    Case(
        name="descending_sort_of_a_bool_mask",
        family=FAMILY,
        code="""
mask = tf.constant([True, False, True])
ranked = tf.sort(mask, direction="DESCENDING")
""",
        expect="S11",
        must=("bool", "tf.cast(mask"),
    ),
]

# what the rule must leave alone: the dtype fits the op (these must not raise at all), so
# they hold the cases' code honest rather than the rule
FITS = [
    "tf.one_hot(tf.constant([0, 2]), depth=3)",
    "tf.reduce_mean(tf.cast(tf.constant([True, False]), tf.float32))",
    "tf.strings.to_number(tf.constant(['1.5']))",
]


@pytest.fixture
def prelude_shell(shell: InteractiveShell) -> InteractiveShell:
    return run_prelude(shell)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op_dtype_contract(prelude_shell: InteractiveShell, case: Case) -> None:
    assert_right(prelude_shell, case)


@pytest.mark.parametrize("code", FITS)
def test_dtypes_the_op_takes_raise_nothing(prelude_shell: InteractiveShell, code: str) -> None:
    runs_cleanly(prelude_shell, code)
