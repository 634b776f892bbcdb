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

CASES += [
    Case(
        "regularization_term_added_after_the_tape",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)
        x = tf.zeros((8, 4)); y = tf.zeros((8, 1))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        loss += 1e-3 * tf.add_n([tf.reduce_sum(w ** 2) for w in model.trainable_variables])
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        "T03",
        must=("term", "inside"),
        must_not=("argmax", "not differentiable"),
        fix="add every term inside the `with` block",
    ),
    Case(
        "loss_after_tape_in_train_step_function",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam()
        def train_step(x, y):
            with tf.GradientTape() as tape:
                pred = model(x, training=True)
            loss = keras.losses.MeanSquaredError()(y, pred)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        train_step(tf.zeros((8, 4)), tf.zeros((8, 1)))
        """,
        "T03",
        must=("with", "MeanSquaredError"),
        must_not=("argmax", "not differentiable"),
        fix="compute the loss inside the `with` block",
    ),
    Case(
        "gradient_expression_outside_the_tape",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)
        x = tf.zeros((8, 4)); y = tf.zeros((8, 1))
        with tf.GradientTape() as tape:
            pred = model(x)
        grads = tape.gradient(tf.reduce_mean((pred - y) ** 2), model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        "T03",
        must=("with",),
        must_not=("argmax",),
        fix="compute the loss inside the `with` block",
    ),
    Case(
        "gradient_called_twice",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        x = tf.zeros((8, 4))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x))
        g1 = tape.gradient(loss, model.trainable_variables[:1])
        g2 = tape.gradient(loss, model.trainable_variables[1:])
        """,
        "T03",
        must=("persistent=True",),
        fix="persistent=True, or one call",
    ),
    Case(
        "variable_created_in_tf_function",
        "tape",
        """
        @tf.function
        def scale(x):
            w = tf.Variable(2.0)
            return w * x
        scale(tf.constant(1.0))
        """,
        "T03",
        must=("once",),
        fix="create the variable once, outside",
    ),
    Case(
        "argmax_in_custom_loss",
        "tape",
        """
        def acc_loss(y_true, y_pred):
            return 1.0 - tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y_pred, -1), tf.cast(y_true, tf.int64)), tf.float32))
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", acc_loss)
        model.fit(np.zeros((12, 8), "float32"), np.arange(12) % 3, epochs=1, verbose=0)
        """,
        "G04",
        must=("argmax",),
        must_not=("after the `with` block",),
        fix="a differentiable loss (cross-entropy)",
    ),
    Case(
        "numpy_in_tape_loss",
        "tape",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)
        x = tf.zeros((8, 4)); y = np.zeros((8, 1), "float32")
        with tf.GradientTape() as tape:
            pred = model(x).numpy()
            loss = tf.reduce_mean(tf.constant((pred - y) ** 2))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        "G04",
        must=("numpy",),
        must_not=("after the `with` block",),
        fix="TensorFlow ops instead of NumPy in the loss",
    ),
    Case(
        "numpy_call_inside_tf_function",
        "tape",
        """
        @tf.function
        def f(x):
            return x.numpy() * 2
        f(tf.constant([1.0]))
        """,
        "T02",
        must=("TensorFlow ops",),
        fix="TF ops, or run eagerly",
    ),
    Case(
        "numpy_function_of_a_keras_tensor_in_a_functional_model",
        "tape",
        """
        inp = keras.Input((4,))
        out = keras.layers.Dense(2)(inp).numpy()
        """,
        "T02",
        must=("symbolic",),
        fix="keras.ops on symbolic tensors",
    ),
]
