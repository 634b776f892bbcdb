"""Family: the forward pass computed before ``with tf.GradientTape()`` opens.

API: ``tf.GradientTape``.  Contract: a tape records only the operations run inside its
``with`` block; a loss computed inside from a prediction made before the block has no
recorded path to any variable ("No gradients provided for any variable").  Evidence:
the user's source (the ``with`` blocks, the ``tape.gradient`` target, the assignment of
each name the target's expression reads and whether it calls the user's model).
Written 2026-12-03 after explain_fresh4's ``forward_pass_before_the_tape_opens`` was
scored (a case of this family, then "wrong": G04 "not differentiable").
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "encoder_features_before_the_tape",
        "tape_order",
        """
encoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4)])
head = keras.layers.Dense(1)
x = tf.random.normal((8, 6)); y = tf.random.normal((8, 1))
feats = head(encoder(x))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(feats - y))
grads = tape.gradient(loss, encoder.trainable_variables + head.trainable_variables)
keras.optimizers.Adam().apply_gradients(zip(grads, encoder.trainable_variables + head.trainable_variables))
""",
        "T03",
        must=("feats = head(encoder(x))", "inside"),
        must_not=("differentiable",),
    ),
    Case(
        "step_function_predicts_before_its_tape",
        "tape_order",
        """
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
opt = keras.optimizers.SGD(0.1)
loss_fn = keras.losses.MeanSquaredError()
def step(xb, yb):
    out = model(xb, training=True)
    with tf.GradientTape() as g:
        value = loss_fn(yb, out)
    opt.apply_gradients(zip(g.gradient(value, model.trainable_variables), model.trainable_variables))
step(tf.ones((4, 3)), tf.zeros((4, 2)))
""",
        "T03",
        must=("out = model(xb, training=true)",),
        must_not=("differentiable",),
    ),
]
CASES.append(
    Case(
        "prediction_before_the_tape_and_again_inside_is_not_this",
        "tape_order",
        """
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
x = tf.ones((4, 3))
pred = model(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.cast(tf.argmax(model(x) + pred, axis=1), tf.float32))
grads = tape.gradient(loss, model.trainable_variables)
keras.optimizers.SGD().apply_gradients(zip(grads, model.trainable_variables))
""",
        "G04",
        must=("argmax",),
        must_not=("before the block",),
    )
)
CASES.append(
    Case(
        "predict_on_batch_inside_the_tape",
        "tape_order",
        """
net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
xb = np.ones((4, 3), "float32"); yb = np.zeros((4, 1), "float32")
with tf.GradientTape() as tape:
    out = net.predict_on_batch(xb)
    loss = tf.reduce_mean((out - yb) ** 2)
grads = tape.gradient(loss, net.trainable_variables)
keras.optimizers.SGD().apply_gradients(zip(grads, net.trainable_variables))
""",
        "G04",
        must=("net(x, training=true)",),
        must_not=("cross-entropy",),
    )
)
