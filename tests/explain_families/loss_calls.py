"""Family: a Keras loss called with its arguments in the wrong order.

API: ``keras.losses.<Loss>()(y_true, y_pred)`` and the loss functions
(``keras.losses.sparse_categorical_crossentropy(y_true, y_pred)``).  Contract: labels
first, predictions second; a sparse loss takes predictions with one axis (the classes)
more than the labels.  Evidence: the two arguments' shapes and dtypes in the failing
call.  Written 2026-12-03 after explain_fresh4's ``keras_loss_called_with_predictions_first``
was scored (generic then).  Same-rank arguments (masks with 3 channels against 4
classes) are not an order mistake.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "sparse_loss_function_called_predictions_first",
        "loss_calls",
        """
probs = tf.nn.softmax(tf.random.normal((6, 3)))
labels = tf.constant([0, 1, 2, 0, 1, 2])
loss = keras.losses.sparse_categorical_crossentropy(probs, labels)
""",
        "S07",
        must=("(labels, probs)",),
        must_not=("to_categorical",),
    ),
    Case(
        "sparse_loss_object_swapped_in_a_custom_step",
        "loss_calls",
        """
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(4)])
scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
def step(xb, yb):
    with tf.GradientTape() as tape:
        out = model(xb)
        value = scce(out, yb)
    return tape.gradient(value, model.trainable_variables)
step(np.ones((3, 5), "float32"), np.array([0, 1, 3]))
""",
        "S07",
        must=("scce(yb, out)",),
    ),
    Case(
        "rgb_masks_same_rank_are_not_swapped",
        "loss_calls",
        """
scce = keras.losses.SparseCategoricalCrossentropy()
masks = np.random.randint(0, 4, (2, 8, 8, 3))
probs = tf.nn.softmax(tf.random.normal((2, 8, 8, 4)))
scce(masks, probs)
""",
        "S07",
        must_not=("swap",),
    ),
]
