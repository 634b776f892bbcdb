"""Numerics and memory at run time: NaN/Inf checks, out-of-memory allocations."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "check_numerics_on_log_of_zero",
        "runtime",
        """
        x = tf.constant([1.0, 0.0])
        y = tf.math.log(x)
        tf.debugging.check_numerics(y, "log features")
        """,
        "N01",
        must=("log features",),
        fix="guard the op that made the NaN/Inf",
    ),
    Case(
        "assert_all_finite_on_division",
        "runtime",
        """
        x = tf.constant([1.0, 2.0]); d = tf.constant([1.0, 0.0])
        tf.debugging.assert_all_finite(x / d, "ratio")
        """,
        "N01",
        must=("ratio",),
        fix="guard the division",
    ),
    Case(
        "gradient_check_numerics",
        "runtime",
        """
        w = tf.Variable([0.0])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sqrt(w))
        g = tape.gradient(loss, [w])[0]
        tf.debugging.check_numerics(g, "gradient of w")
        """,
        "G03",
        must=("gradient",),
        fix="avoid sqrt/log at 0, clip gradients",
    ),
    Case(
        "huge_tensor_out_of_memory",
        "runtime",
        """
        big = tf.zeros((200000, 200000, 100))
        """,
        "R03",
        must=("smaller",),
        fix="a smaller allocation",
    ),
    Case(
        "huge_dense_kernel_out_of_memory",
        "runtime",
        """
        model = keras.Sequential([keras.Input((1_000_000,)), keras.layers.Dense(10_000_000, name="wide")])
        """,
        "R03",
        must=("wide", "does not help"),
        must_not=("1) a smaller batch size",),
        fix="a smaller layer",
    ),
]
