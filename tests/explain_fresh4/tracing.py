"""Family: tf.function / graph-mode and GradientTape contracts.

The documented contracts: ``fit`` runs ``train_step`` (the model, the loss and
every metric's ``update_state``) inside a ``tf.function``, and ``Dataset.map``
traces its function, so there tensors are symbolic: ``.numpy()`` does not
exist, Python ``bool()`` of a tensor (``max(0.0, t)``, which compares) and
Python iteration over a tensor are refused unless AutoGraph rewrites them,
and AutoGraph does not rewrite comprehensions or builtins such as ``max``
(use ``tf.maximum``, ``tf.boolean_mask``, ``tf.where``, or ``run_eagerly``);
every output of a ``tf.function`` must be a return value (a tensor appended to
an outer Python list is out of scope after the trace); a ``tf.function`` may
create ``tf.Variable``s only on its first call, so an optimizer (whose
constructor creates its ``iterations`` variable) must be created outside it;
a non-persistent ``GradientTape`` gives one ``gradient`` call
(``persistent=True`` or one tape per loss); a tape records only what runs
inside its ``with`` block, so a forward pass made before the block leaves
every gradient ``None``; ``tf.py_function`` returns tensors of unknown shape,
which ops that need a rank (``tf.image.resize``) refuse until
``set_shape``/``tf.ensure_shape`` restores it.

The evidence a diagnosis needs: the user's line that asked the symbolic
tensor for a value (or created the variable, or called the tape), in which
traced function it ran (a metric, a loss, a map, a ``tf.function``), and the
graph-compatible construction that replaces it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="custom_metric_calls_numpy_on_y_true",
        family="tracing",
        code="""
        class MacroF1(keras.metrics.Metric):
            def __init__(self, name="macro_f1", **kwargs):
                super().__init__(name=name, **kwargs)
                self.total = self.add_weight(name="total", initializer="zeros")
                self.count = self.add_weight(name="count", initializer="zeros")

            def update_state(self, y_true, y_pred, sample_weight=None):
                t = y_true.numpy().ravel()
                p = y_pred.numpy().ravel() > 0.5
                tp = np.sum(t * p)
                self.total.assign_add(2 * tp / (np.sum(t) + np.sum(p) + 1e-7))
                self.count.assign_add(1.0)

            def result(self):
                return self.total / self.count

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy", metrics=[MacroF1()])
        model.fit(np.random.rand(8, 4), np.random.randint(0, 2, (8, 1)), epochs=1, verbose=0)
        """,
        expect="T02",
        must=("update_state", "eager"),
        fix="compute with tf ops (tf.reduce_sum, tf.cast) in update_state, or compile(run_eagerly=True)",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.
    Case(
        name="python_max_in_a_hinge_loss",
        family="tracing",
        code="""
        def hinge(y_true, y_pred):
            return tf.reduce_mean(max(0.0, 1.0 - y_true * y_pred))

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("sgd", loss=hinge)
        model.fit(np.random.rand(8, 4), np.sign(np.random.randn(8, 1)), epochs=1, verbose=0)
        """,
        expect="T02",
        must=("tf.maximum",),
        must_not=("tf.cond",),
        fix="tf.maximum(0.0, 1.0 - y_true * y_pred)",
    ),
    # OperatorNotAllowedInGraphError: in user code: ... return tf.stack([w for w in words if w != ""])
    #   Iterating over a symbolic `tf.Tensor` is not allowed.
    Case(
        name="list_comprehension_over_tokens_in_dataset_map",
        family="tracing",
        code="""
        lines = tf.data.Dataset.from_tensor_slices(["a  b c", "d e  f g"])

        def tokenize(line):
            words = tf.strings.split(line, " ")
            return tf.stack([w for w in words if w != ""])

        tokens = lines.map(tokenize)
        """,
        expect="T02",
        must=("iterat",),
        fix="words[words != ''] (tf.boolean_mask), or tf.strings.split(line) without a separator",
    ),
    # TypeError: <tf.Tensor 'Mean:0' shape=() dtype=float32> is out of scope and cannot be used here.
    #   Use return values, explicit Python locals or TensorFlow collections to access it.
    Case(
        name="loss_tensors_appended_to_a_python_list_in_tf_function",
        family="tracing",
        code="""
        loss_history = []
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            loss_history.append(loss)

        for _ in range(3):
            train_step(tf.random.normal((8, 4)), tf.random.normal((8, 1)))
        print("mean loss", tf.reduce_mean(loss_history))
        """,
        expect="T02",
        must=("return",),
        fix="return loss from train_step and append the returned value outside the tf.function",
    ),
    # ValueError: in user code: ... optimizer = keras.optimizers.Adam(1e-3) ...
    #   tf.function only supports singleton tf.Variables created on the first call.
    Case(
        name="optimizer_created_inside_the_tf_function_step",
        family="tracing",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])

        @tf.function
        def train_step(x, y):
            optimizer = keras.optimizers.Adam(1e-3)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        for _ in range(3):
            train_step(tf.random.normal((8, 4)), tf.random.normal((8, 1)))
        """,
        expect="T03",
        must=("optimizer", "outside"),
        fix="create the optimizer once, before (outside) the tf.function",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
    Case(
        name="gan_step_with_one_tape_for_both_losses",
        family="tracing",
        code="""
        generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8)])
        discriminator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
        bce = keras.losses.BinaryCrossentropy(from_logits=True)
        real = tf.random.normal((8, 8))
        noise = tf.random.normal((8, 4))

        with tf.GradientTape() as tape:
            fake = generator(noise, training=True)
            real_out = discriminator(real, training=True)
            fake_out = discriminator(fake, training=True)
            g_loss = bce(tf.ones_like(fake_out), fake_out)
            d_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
        g_grads = tape.gradient(g_loss, generator.trainable_variables)
        d_grads = tape.gradient(d_loss, discriminator.trainable_variables)
        """,
        expect="T03",
        must=("persistent",),
        fix="two tapes (with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape) or persistent=True",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="forward_pass_before_the_tape_opens",
        family="tracing",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.SGD(0.01)
        x = tf.random.normal((8, 4))
        y = tf.random.normal((8, 1))

        pred = model(x, training=True)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        expect="T03",
        must=("inside",),
        must_not=("differentiable",),
        fix="move pred = model(x, training=True) inside the with tf.GradientTape() block",
    ),
    # ValueError: in user code: ... lambda img: tf.image.resize(img, (32, 32))  ValueError: 'images' contains no shape.
    Case(
        name="resize_after_py_function_without_set_shape",
        family="tracing",
        code="""
        def load_image(path):
            return np.random.rand(40, 30, 3).astype("float32")   # stands in for PIL.Image.open(path)

        paths = tf.data.Dataset.from_tensor_slices(["a.png", "b.png"])
        images = paths.map(lambda p: tf.py_function(load_image, [p], tf.float32))
        images = images.map(lambda img: tf.image.resize(img, (32, 32)))
        """,
        expect="S10",
        must=("py_function", "set_shape"),
        fix="img.set_shape([None, None, 3]) (or tf.ensure_shape) after the py_function",
    ),
]
