"""Family: errors raised by fit, train_step and custom training loops.

The documented contracts: an optimizer's ``apply_gradients`` needs at least
one gradient, and a gradient exists only along differentiable ops recorded by
the tape: thresholding (``y_pred > 0.5`` cast to float), ``model.predict``
(which returns NumPy) inside the tape, and the like cut every path, so Keras
says "No gradients provided for any variable"; a Keras loss is called
``loss(y_true, y_pred)``, labels first; ``SparseCategoricalCrossentropy``
wants integer labels with one axis fewer than the output (a segmentation mask
is ``(H, W)`` or ``(H, W, 1)`` class ids, not a 3-channel colour image);
``categorical_crossentropy`` wants one-hot labels of the output's shape (integer
ids need the sparse loss); ``TopKCategoricalAccuracy`` reads one-hot labels
(``SparseTopKCategoricalAccuracy`` reads ids); under ``tf.distribute`` every
variable, the model's (a pretrained base too) and the optimizer's, must be
created inside ``strategy.scope()``.

The evidence a diagnosis needs: the loss, metric or step that failed, the
shapes and dtypes of what it received (labels against predictions, which
argument held which), which op stopped the gradient, or which object lives
outside the strategy's scope, and the change that fits.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="thresholded_predictions_in_a_soft_f1_loss",
        family="training",
        code="""
        def f1_loss(y_true, y_pred):
            y_hat = tf.cast(y_pred > 0.5, tf.float32)
            tp = tf.reduce_sum(y_true * y_hat)
            fp = tf.reduce_sum((1 - y_true) * y_hat)
            fn = tf.reduce_sum(y_true * (1 - y_hat))
            return 1 - 2 * tp / (2 * tp + fp + fn + 1e-7)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", loss=f1_loss)
        model.fit(np.random.rand(16, 4), np.random.randint(0, 2, (16, 1)).astype("float32"), epochs=1, verbose=0)
        """,
        expect="G04",
        must=("differentiable",),
        must_not=("persistent",),
        fix="use y_pred itself (a soft F1: tp = tf.reduce_sum(y_true * y_pred)) instead of the thresholded 0/1 values",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="model_predict_inside_the_tape",
        family="training",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam(1e-3)
        x = np.random.rand(8, 4).astype("float32")
        y = np.random.rand(8, 1).astype("float32")
        with tf.GradientTape() as tape:
            pred = model.predict(x, verbose=0)
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        """,
        expect="G04",
        must=("predict",),
        must_not=("trainable=true",),
        fix="pred = model(x, training=True) (predict returns NumPy, which the tape cannot follow)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(8, 5), output.shape=(8,)
    Case(
        name="keras_loss_called_with_predictions_first",
        family="training",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5)])
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        x = np.random.rand(8, 4).astype("float32")
        y = np.random.randint(0, 5, 8)
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(logits, y)
        """,
        expect="S07",
        must=("y_true",),
        must_not=("to_categorical",),
        fix="loss_fn(y, logits): labels first, predictions second",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None, 16, 16, 3), output.shape=(None, 16, 16, 4)
    Case(
        name="rgb_segmentation_masks_with_sparse_loss",
        family="training",
        code="""
        inp = keras.Input((16, 16, 3))
        h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
        out = keras.layers.Conv2D(4, 1, activation="softmax")(h)      # 4 classes per pixel
        model = keras.Model(inp, out)
        model.compile("adam", "sparse_categorical_crossentropy")

        images = np.random.rand(4, 16, 16, 3).astype("float32")
        masks = np.random.randint(0, 4, (4, 16, 16, 3))                # masks read as RGB images
        model.fit(images, masks, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("channel",),
        must_not=("to_categorical",),
        fix="masks[..., :1] (or decode the masks with channels=1 / map colours to class ids)",
    ),
    # ValueError: Shape must be rank 1 but is rank 0 for '{{node in_top_k/InTopKV2}} = InTopKV2[T=DT_INT32](...)'
    #   with input shapes: [?,10], [], [].
    Case(
        name="top_k_categorical_accuracy_on_sparse_labels",
        family="training",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(10, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy",
                      metrics=[keras.metrics.TopKCategoricalAccuracy(k=3)])
        model.fit(np.random.rand(8, 4), np.random.randint(0, 10, 8), epochs=1, verbose=0)
        """,
        expect="M07",
        must=("sparsetopkcategoricalaccuracy",),
        must_not=("to_categorical",),
        fix="keras.metrics.SparseTopKCategoricalAccuracy(k=3)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    #   Received: target.shape=(None,), output.shape=(None, 3)
    Case(
        name="categorical_loss_on_int_labels_in_train_step",
        family="training",
        code="""
        class Classifier(keras.Model):
            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    loss = keras.losses.categorical_crossentropy(y, y_pred)
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": tf.reduce_mean(loss)}

        inp = keras.Input((4,))
        model = Classifier(inp, keras.layers.Dense(3, activation="softmax")(inp))
        model.compile("adam")
        model.fit(np.random.rand(8, 4), np.random.randint(0, 3, 8), epochs=1, verbose=0)
        """,
        expect="M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("expand_dims",),
        fix="keras.losses.sparse_categorical_crossentropy(y, y_pred)",
    ),
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy object at 0x..> is not
    #   <..._DefaultDistributionStrategy object at 0x..>
    Case(
        name="optimizer_created_outside_strategy_scope",
        family="training",
        code="""
        strategy = tf.distribute.MirroredStrategy()
        optimizer = keras.optimizers.Adam(1e-3)
        with strategy.scope():
            model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
            model.compile(optimizer, "mse")
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        """,
        expect="D05",
        must=("optimizer",),
        fix="create the optimizer inside strategy.scope() (or pass compile('adam'))",
    ),
    # ValueError: `colocate_vars_with` must only be passed a variable created in this tf.distribute.Strategy.scope(),
    #   not: <tf.Variable 'sequential/dense/kernel:0' shape=(4, 8) ...
    Case(
        name="pretrained_base_built_outside_strategy_scope",
        family="training",
        code="""
        base = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu")])   # the feature extractor
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = keras.Sequential([base, keras.layers.Dense(1)])
            model.compile("adam", "mse")
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        """,
        expect="D05",
        must=("scope",),
        must_not=("compute_average_loss",),
        fix="build (or load) the base inside strategy.scope() too",
    ),
]
