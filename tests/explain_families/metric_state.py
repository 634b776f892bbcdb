"""Family: the state of a custom ``keras.metrics.Metric`` subclass.

API: ``keras.metrics.Metric`` subclassed with ``__init__`` creating each state variable
once with ``self.add_weight(name=..., shape=(), initializer="zeros", dtype=...)`` (Keras 3:
``shape`` is the first positional argument and defaults to ``()``, ``dtype`` to the
metric's dtype, float32); ``update_state(y_true, y_pred, sample_weight=None)`` that only
``assign``/``assign_add``s into those variables; ``result()`` that computes a scalar
tensor from them; ``reset_state()`` that re-assigns their initial values; the metric
used in ``compile(metrics=[...])`` / ``compile(weighted_metrics=[...])`` (with
``fit(sample_weight=...)``), by ``evaluate`` (which resets every metric first), or
standalone (``m.update_state(...)``, ``m.result()``, ``m.reset_state()``).  Contract
(Keras 3 documentation and source): each state variable has the fixed shape and dtype
given to ``add_weight``; ``assign(value)`` (and ``assign_add``, which assigns
``variable + value``) raises unless ``value`` has exactly the variable's shape
("The shape of the target variable and the shape of the target value in
``variable.assign(value)`` must match"), so per-example values must be reduced over the
batch before they are added to a scalar state, and a per-class vector needs
``shape=(num_classes,)``; a state cannot grow (a ``shape=(0,)`` buffer stays empty);
``reset_state`` must assign zeros of the variable's own shape (``tf.zeros(shape)`` /
``tf.zeros_like``), not a scalar; Keras variables cast an assigned value to their dtype,
but a raw ``tf.Variable`` does not, and plain ``tf.*`` ops (``tf.equal``,
``tf.math.divide_no_nan``) refuse to mix dtypes: an int32 count divided into a float32
total, int64 labels compared with float32 predictions; ``update_state`` and ``result``
run inside the traced ``train_function`` (graph mode: no Python ``if``/``for`` on tensors,
no ``.numpy()``); ``compile(weighted_metrics=...)`` passes ``sample_weight`` to
``update_state``, which must accept it and broadcast it against per-example values of
shape ``(B,)`` (a ``(B, C)`` per-class value needs ``sample_weight[:, None]``); the
metric gets ``y_true`` in the labels' dtype (int64 from NumPy integers; float64 arrays
are cast to float32) and ``y_pred`` in float32.  Evidence a diagnosis could read at the
failure: the exception and the user's frame in the traceback (the metric class and the
line in ``update_state``/``result``/``reset_state``), the metric's variables (name,
shape, dtype, from ``metric.variables``), the value passed to ``assign``/``assign_add``
(shape, dtype; named in Keras's message with the variable's path ``<metric>/<variable>``),
the metric's constructor arguments (``num_classes``), the signature of
``update_state``, the compiled ``metrics``/``weighted_metrics``, the model's output layer
(units, activation), and the data given to ``fit``/``evaluate`` (labels' dtype and
shape, ``sample_weight``'s shape, the batch size).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "metric_state"

CASES = [
    # ValueError: The shape of the target variable and the shape of the target value in
    # `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(8, 1).
    # Target variable: <Variable path=meanabserror/abs_total, shape=(), dtype=float32>
    # (the per-example absolute errors are added to a scalar total without reduce_sum)
    Case(
        "ms_abs_errors_added_unreduced_to_scalar_total",
        FAMILY,
        """
class MeanAbsError(keras.metrics.Metric):
    def __init__(self, name="meanabserror", **kwargs):
        super().__init__(name=name, **kwargs)
        self.abs_total = self.add_weight(name="abs_total", initializer="zeros")
        self.seen = self.add_weight(name="seen", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.abs_total.assign_add(tf.abs(y_true - y_pred))
        self.seen.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))
    def result(self):
        return self.abs_total / self.seen
x = np.random.rand(40, 5).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=[MeanAbsError()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        "S07",
        must=("abs_total",),
        must_not=("drop_remainder", "squeeze"),
        fix="assign_add(tf.reduce_sum(...))",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in
    # `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(4,).
    # Target variable: <Variable path=macrorecall/true_pos, shape=(), dtype=float32>
    # (per-class counts, summed over the batch, go into states created with the default
    # shape=(); the metric is used standalone on a validation batch)
    Case(
        "ms_per_class_counts_into_default_scalar_state",
        FAMILY,
        """
class MacroRecall(keras.metrics.Metric):
    def __init__(self, num_classes=4, name="macrorecall", **kwargs):
        super().__init__(name=name, **kwargs)
        self.num_classes = num_classes
        self.true_pos = self.add_weight(name="true_pos", initializer="zeros")
        self.support = self.add_weight(name="support", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        t = tf.one_hot(tf.cast(tf.reshape(y_true, [-1]), tf.int32), self.num_classes)
        p = tf.one_hot(tf.argmax(y_pred, axis=-1), self.num_classes)
        self.true_pos.assign_add(tf.reduce_sum(t * p, axis=0))
        self.support.assign_add(tf.reduce_sum(t, axis=0))
    def result(self):
        return tf.reduce_mean(tf.math.divide_no_nan(self.true_pos, self.support))
labels = np.random.randint(0, 4, 20)
probs = np.random.dirichlet(np.ones(4), 20).astype("float32")
recall = MacroRecall()
recall.update_state(labels, probs)
print(float(recall.result()))
""",
        "S07",
        must=("true_pos",),
        must_not=("drop_remainder", "batch_size"),
        fix="add_weight(shape=(num_classes,))",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in
    # `variable.assign(value)` must match. variable.shape=(3,), Received: value.shape=().
    # Target variable: <Variable path=classtotals/class_totals, shape=(3,), dtype=float32,
    # value=[...]>
    # (reset_state assigns the scalar 0.0 to a per-class state; fit does not reset the
    # unbuilt metrics, evaluate does)
    Case(
        "ms_reset_state_assigns_scalar_to_vector_state",
        FAMILY,
        """
class ClassTotals(keras.metrics.Metric):
    def __init__(self, name="classtotals", **kwargs):
        super().__init__(name=name, **kwargs)
        self.class_totals = self.add_weight(name="class_totals", shape=(3,), initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.class_totals.assign_add(tf.reduce_sum(y_pred, axis=0))
    def result(self):
        return tf.reduce_max(self.class_totals) / tf.reduce_sum(self.class_totals)
    def reset_state(self):
        self.class_totals.assign(0.0)
x = np.random.rand(40, 5).astype("float32")
y = np.random.randint(0, 3, 40)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=[ClassTotals()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
model.evaluate(x, y, verbose=0)
""",
        "S07",
        must=("class_totals", "reset_state"),
        must_not=("num_classes", "drop_remainder"),
        fix="assign(tf.zeros_like(self.class_totals))",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in
    # `variable.assign(value)` must match. variable.shape=(0,), Received: value.shape=(8,).
    # Target variable: <Variable path=allscores/scores, shape=(0,), dtype=float32>
    # (the metric tries to collect every prediction by concatenating onto an empty state)
    Case(
        "ms_growing_prediction_buffer_in_fixed_state",
        FAMILY,
        """
class AllScores(keras.metrics.Metric):
    def __init__(self, name="allscores", **kwargs):
        super().__init__(name=name, **kwargs)
        self.scores = self.add_weight(name="scores", shape=(0,), initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.scores.assign(tf.concat([self.scores, y_pred[:, 0]], axis=0))
    def result(self):
        return tf.reduce_mean(self.scores)
x = np.random.rand(40, 6).astype("float32")
y = np.random.randint(0, 2, 40)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[AllScores()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        "S07",
        must=("scores",),
        must_not=("drop_remainder",),
        fix="fixed-size state (histogram), or score after predict",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 8 for '{{node mul_1}} =
    # Mul[T=DT_FLOAT](Abs, data_2)' with input shapes: [8,3], [8].
    # (weighted per-class error: a (8, 3) value times the (8,) sample_weight)
    Case(
        "ms_sample_weight_times_per_class_errors",
        FAMILY,
        """
class ClassErrors(keras.metrics.Metric):
    def __init__(self, name="classerrors", **kwargs):
        super().__init__(name=name, **kwargs)
        self.err_sum = self.add_weight(name="err_sum", shape=(3,), initializer="zeros")
        self.weight_sum = self.add_weight(name="weight_sum", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        err = tf.abs(y_true - y_pred)
        if sample_weight is None:
            sample_weight = tf.ones(tf.shape(err)[0])
        self.err_sum.assign_add(tf.reduce_sum(err * sample_weight, axis=0))
        self.weight_sum.assign_add(tf.reduce_sum(sample_weight))
    def result(self):
        return tf.reduce_max(self.err_sum / self.weight_sum)
x = np.random.rand(40, 5).astype("float32")
y = np.random.rand(40, 3).astype("float32")
w = np.where(np.arange(40) % 4 == 0, 3.0, 1.0).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
model.compile("adam", "mse", weighted_metrics=[ClassErrors()])
model.fit(x, y, sample_weight=w, batch_size=8, epochs=1, verbose=0)
""",
        "S07",
        must=("sample_weight",),
        must_not=("drop_remainder", "squeeze"),
        fix="err * sample_weight[:, None]",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is
    # not allowed. You can attempt the following resolutions to the problem: ...
    # (update_state skips batches without positives with a Python `if` on a tensor)
    Case(
        "ms_python_if_skips_batches_in_update_state",
        FAMILY,
        """
class Coverage(keras.metrics.Metric):
    def __init__(self, name="coverage", **kwargs):
        super().__init__(name=name, **kwargs)
        self.covered = self.add_weight(name="covered", initializer="zeros")
        self.batches = self.add_weight(name="batches", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        if tf.reduce_sum(y_true) == 0:
            return
        self.covered.assign_add(tf.reduce_mean(tf.cast(y_pred > 0.5, tf.float32)))
        self.batches.assign_add(1.0)
    def result(self):
        return self.covered / self.batches
x = np.random.rand(40, 5).astype("float32")
y = np.random.randint(0, 2, (40, 1)).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[Coverage()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        "T02",
        must=("coverage",),
        must_not=("numpy()", "add_weight"),
        fix="tf.where / tf.cond on the batch's positives",
    ),
    # ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32:
    # <tf.Tensor 'Cast_2:0' shape=() dtype=float32>
    # (the counter is a raw tf.Variable(0), so int32, and gets a float32 row count)
    Case(
        "ms_int_tf_variable_counter_gets_float_count",
        FAMILY,
        """
class RootMSE(keras.metrics.Metric):
    def __init__(self, name="rootmse", **kwargs):
        super().__init__(name=name, **kwargs)
        self.sq_total = self.add_weight(name="sq_total", initializer="zeros")
        self.n_seen = tf.Variable(0, trainable=False)
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.sq_total.assign_add(tf.reduce_sum(tf.square(y_true - y_pred)))
        self.n_seen.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))
    def result(self):
        return tf.sqrt(self.sq_total / tf.cast(self.n_seen, tf.float32))
x = np.random.rand(40, 5).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=[RootMSE()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        "S11",
        must=("n_seen",),
        must_not=("float64", "astype"),
        fix='add_weight(name="n_seen") (float32), or add an int32 count',
    ),
    # TypeError: `x` and `y` must have the same dtype, got tf.float32 != tf.int32.
    # (result() divides the float32 total by a count created with dtype="int32")
    Case(
        "ms_result_divides_float_total_by_int_count",
        FAMILY,
        """
class MeanSqErr(keras.metrics.Metric):
    def __init__(self, name="meansqerr", **kwargs):
        super().__init__(name=name, **kwargs)
        self.sq_sum = self.add_weight(name="sq_sum", initializer="zeros")
        self.n_rows = self.add_weight(name="n_rows", initializer="zeros", dtype="int32")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.sq_sum.assign_add(tf.reduce_sum(tf.square(y_true - y_pred)))
        self.n_rows.assign_add(tf.shape(y_true)[0])
    def result(self):
        return tf.math.divide_no_nan(self.sq_sum, self.n_rows)
x = np.random.rand(40, 5).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=[MeanSqErr()])
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        "S11",
        must=("n_rows",),
        must_not=("float64", "astype"),
        fix="tf.cast(self.n_rows, tf.float32) in result()",
    ),
    # TypeError: Input 'y' of 'Equal' Op has type float32 that does not match type int64
    # of argument 'x'.
    # (multi-label exact match: the int64 labels compared with the rounded float32
    # sigmoid outputs)
    Case(
        "ms_int64_labels_equal_rounded_predictions",
        FAMILY,
        """
class ExactMatch(keras.metrics.Metric):
    def __init__(self, name="exactmatch", **kwargs):
        super().__init__(name=name, **kwargs)
        self.matches = self.add_weight(name="matches", initializer="zeros")
        self.rows = self.add_weight(name="rows", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        same = tf.reduce_all(tf.equal(y_true, tf.round(y_pred)), axis=-1)
        self.matches.assign_add(tf.reduce_sum(tf.cast(same, tf.float32)))
        self.rows.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))
    def result(self):
        return self.matches / self.rows
x = np.random.rand(40, 6).astype("float32")
tags = np.random.randint(0, 2, (40, 4))
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[ExactMatch()])
model.fit(x, tags, batch_size=8, epochs=1, verbose=0)
""",
        "S11",
        must=("exactmatch", "int64"),
        must_not=("float64", "sparse"),
        fix="tf.cast(y_true, y_pred.dtype) before tf.equal",
    ),
    # TypeError: PrecisionAt50.update_state() got an unexpected keyword argument
    # 'sample_weight'
    # (update_state written without sample_weight, used in weighted_metrics with
    # fit(sample_weight=...))
    Case(
        "ms_update_state_without_sample_weight_argument",
        FAMILY,
        """
class PrecisionAt50(keras.metrics.Metric):
    def __init__(self, name="precision_at_50", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hits = self.add_weight(name="hits", initializer="zeros")
        self.flagged = self.add_weight(name="flagged", initializer="zeros")
    def update_state(self, y_true, y_pred):
        flagged = tf.cast(y_pred >= 0.5, tf.float32)
        self.hits.assign_add(tf.reduce_sum(flagged * tf.cast(y_true, tf.float32)))
        self.flagged.assign_add(tf.reduce_sum(flagged))
    def result(self):
        return tf.math.divide_no_nan(self.hits, self.flagged)
x = np.random.rand(40, 5).astype("float32")
y = np.random.randint(0, 2, (40, 1))
w = np.where(y[:, 0] == 1, 4.0, 1.0).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", weighted_metrics=[PrecisionAt50()])
model.fit(x, y, sample_weight=w, batch_size=8, epochs=1, verbose=0)
""",
        None,
        unexplained=(
            "Python's TypeError names update_state and the sample_weight keyword it does "
            "not accept: add sample_weight=None to the signature"
        ),
        fix="update_state(self, y_true, y_pred, sample_weight=None)",
    ),
]
