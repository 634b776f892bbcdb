"""Family: Python builtins called on graph tensors (in a loss, a layer's call, a map, a step).

API: ``tf.function`` / Keras graph tracing.  Contract: a symbolic tensor has no value, so
a Python builtin that compares (``max``, ``min``) or iterates (``sum``, ``sorted``,
``any``, ``all``) over it raises ``OperatorNotAllowedInGraphError``; the fix is the
TensorFlow op that does the same (``tf.maximum``, ``tf.reduce_sum``, ``tf.sort`` ...),
not ``tf.cond``.  Evidence: the failing user line and the builtin it calls.
Written 2026-12-03 from explain_fresh4's ``python_max_in_a_hinge_loss`` (the one case
seen) and the TensorFlow AutoGraph limitations page, before the rule was changed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "python_min_clip_in_a_layer_call",
        "python_builtins",
        """
class Clip(keras.layers.Layer):
    def call(self, x):
        return min(x, 1.0)
m = keras.Sequential([keras.Input((3,)), Clip()])
m.predict(np.ones((2, 3)), verbose=0)
""",
        "T02",
        must=("tf.minimum",),
        must_not=("tf.cond",),
    ),
    Case(
        "python_sum_over_a_tensor_in_a_tf_function",
        "python_builtins",
        """
@tf.function
def total(x):
    return sum(x)
total(tf.ones((4,)))
""",
        "T02",
        must=("tf.reduce_sum",),
        must_not=("tf.cond",),
    ),
    Case(
        "python_any_over_a_tensor_in_a_tf_function",
        "python_builtins",
        """
@tf.function
def has_negative(x):
    return any(x < 0)
has_negative(tf.constant([1.0, -2.0]))
""",
        "T02",
        must=("tf.reduce_any",),
        must_not=("tf.cond",),
    ),
    Case(
        "python_max_relu_in_a_custom_loss",
        "python_builtins",
        """
def margin_loss(y_true, y_pred):
    return tf.reduce_mean(max(0.0, 0.5 - y_true * y_pred))
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
m.compile("sgd", margin_loss)
m.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)
""",
        "T02",
        must=("tf.maximum",),
        must_not=("tf.cond",),
    ),
]
