"""Tapes and tf.function contracts: where the loss is computed, gradients asked twice, variables."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "loss_computed_after_the_tape_closed",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)
        x = tf.zeros((8, 4)); y = tf.zeros((8, 1))
        with tf.GradientTape() as tape:
            pred = model(x)
        loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        "T03",
        must=("with", "tape"),
        must_not=("argmax", "round", "not differentiable"),
        fix="compute the whole loss inside the `with tf.GradientTape()` block",
    ),
]
