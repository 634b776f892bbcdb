"""Family: the contracts of compile, fit, callbacks, save and load.

The documented contracts: ``fit(class_weight=...)`` is a dict mapping class id
to weight (``sklearn``'s ``compute_class_weight`` returns an array, which needs
``dict(enumerate(...))``); an optimizer built on a ``LearningRateSchedule``
has a learning rate that callbacks cannot set (``ReduceLROnPlateau``,
``LearningRateScheduler`` need a float ``learning_rate``); a model with two
outputs needs one target per output (a list in output order, or a dict keyed
by output name); ``validation_data`` given as a ``tf.data.Dataset`` must be
batched like the training data; a sparse loss wants class ids in the
validation labels as much as in the training labels; ``load_model`` must find
every custom function the model was compiled with (``custom_objects`` or
``register_keras_serializable``), and a custom ``Loss`` class with constructor
arguments needs a ``get_config`` that returns them; ``compile(metrics=...)``
is a list, tuple or dict.

The evidence a diagnosis needs: the argument of compile/fit/save/load that
breaks the contract, what it holds against what the contract wants (type,
structure, names, shapes), and the value that fits.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # AttributeError: 'numpy.ndarray' object has no attribute 'get'
    Case(
        name="class_weight_from_compute_class_weight_array",
        family="compile_saving",
        code="""
        x = np.random.rand(30, 4).astype("float32")
        y = np.arange(30) % 3
        counts = np.bincount(y)
        weights = len(y) / (len(counts) * counts)  # what compute_class_weight("balanced") returns
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(x, y, class_weight=weights, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("dict",),
        must_not=("one-hot", "to_categorical"),
        fix="class_weight=dict(enumerate(weights))",
    ),
    # TypeError: This optimizer was created with a `LearningRateSchedule` object as its `learning_rate`
    #   constructor argument, hence its learning rate is not settable. If you need the learning rate to be
    #   settable, you should instantiate the optimizer with a float `learning_rate` argument.
    Case(
        name="reduce_lr_on_plateau_with_a_decay_schedule",
        family="compile_saving",
        code="""
        x = np.random.rand(16, 4).astype("float32")
        y = np.random.rand(16, 1).astype("float32")
        schedule = keras.optimizers.schedules.ExponentialDecay(1e-3, decay_steps=100, decay_rate=0.9)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(schedule), "mse")
        plateau = keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, min_delta=10.0)
        model.fit(x, y, epochs=3, verbose=0, callbacks=[plateau])
        """,
        expect=None,
        must_not=("lower the learning rate", "clipnorm"),
        unexplained="Keras says the schedule's learning rate is not settable and to pass a float learning_rate",
        fix="Adam(1e-3) with ReduceLROnPlateau, or the schedule without the callback",
    ),
    # ValueError: y_true and y_pred have different structures.
    Case(
        name="two_output_model_fit_with_one_target_array",
        family="compile_saving",
        code="""
        x = np.random.rand(16, 4).astype("float32")
        price = np.random.rand(16, 1).astype("float32")
        inp = keras.Input((4,))
        price_out = keras.layers.Dense(1, name="price")(inp)
        kind_out = keras.layers.Dense(3, activation="softmax", name="kind")(inp)
        model = keras.Model(inp, [price_out, kind_out])
        model.compile("adam", ["mse", "sparse_categorical_crossentropy"])
        model.fit(x, price, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("output",),
        must_not=("reshape", "from_logits"),
        fix="model.fit(x, [price, kind_labels]) (one target per output)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   (Invalid input shape for input Tensor("data:0", shape=(4,), dtype=float32) ... Expected shape (None, 4),
    #   but input has incompatible shape (4,))
    Case(
        name="validation_dataset_not_batched",
        family="compile_saving",
        code="""
        x = np.random.rand(32, 4).astype("float32")
        y = np.random.rand(32, 1).astype("float32")
        train = tf.data.Dataset.from_tensor_slices((x[:24], y[:24])).shuffle(24).batch(8)
        val = tf.data.Dataset.from_tensor_slices((x[24:], y[24:]))
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(train, validation_data=val, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("batch",),
        must_not=("expand_dims", "input_shape"),
        fix="validation_data=val.batch(8)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None, 3), output.shape=(None, 3)
    Case(
        name="validation_labels_one_hot_for_a_sparse_loss",
        family="compile_saving",
        code="""
        x = np.random.rand(30, 4).astype("float32")
        y = np.arange(30) % 3
        x_val = np.random.rand(9, 4).astype("float32")
        y_val = keras.utils.to_categorical(np.arange(9) % 3, 3)  # encoded in another notebook cell
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit(x, y, validation_data=(x_val, y_val), epochs=1, verbose=0)
        """,
        expect="M05",
        must=("validation",),
        must_not=("use categorical_crossentropy", "to_categorical(y)"),
        fix="validation_data=(x_val, y_val.argmax(axis=1))",
    ),
    # TypeError: Could not locate function 'rmse'. Make sure custom classes and functions are decorated with
    #   `@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all
    #   imported so that the decorator is run before trying to load them. Full object config: {...}
    Case(
        name="load_model_without_the_custom_metric_function",
        family="compile_saving",
        code="""
        import os, tempfile

        def rmse(y_true, y_pred):
            return tf.sqrt(tf.reduce_mean(tf.square(y_true - y_pred)))

        path = os.path.join(tempfile.mkdtemp(), "regressor.keras")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse", metrics=[rmse])
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        model.save(path)
        del rmse  # a fresh kernel that loads the file does not define it
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("rmse",),
        must_not=("safe_mode",),
        fix="load_model(path, custom_objects={'rmse': rmse}) or @register_keras_serializable",
    ),
    # TypeError: <class 'Huberish'> could not be deserialized properly. Please ensure that components that are
    #   Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in
    #   the model's `from_config()` method.
    Case(
        name="custom_loss_class_without_get_config",
        family="compile_saving",
        code="""
        import os, tempfile

        class Huberish(keras.losses.Loss):
            def __init__(self, delta, **kwargs):
                super().__init__(**kwargs)
                self.delta = delta

            def call(self, y_true, y_pred):
                return self.delta * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

        path = os.path.join(tempfile.mkdtemp(), "huber.keras")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", Huberish(2.0))
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        model.save(path)
        keras.models.load_model(path, custom_objects={"Huberish": Huberish})
        """,
        expect="C05",
        must=("delta",),
        must_not=("safe_mode",),
        fix="def get_config(self): return {**super().get_config(), 'delta': self.delta}",
    ),
    # ValueError: Expected `metrics` argument to be a list, tuple, or dict. Received instead: metrics=mae of type <class 'str'>
    Case(
        name="metrics_given_as_a_bare_string",
        family="compile_saving",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse", metrics="mae")
        """,
        expect=None,
        must_not=("custom_objects",),
        unexplained="Keras says metrics must be a list, tuple or dict and shows the string it got",
        fix="metrics=['mae']",
    ),
]
