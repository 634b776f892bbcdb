"""Family: the contracts of compile / fit / evaluate / predict / save / load.

The documented contracts (Keras "Save, serialize, and export models",
``Model.fit``/``evaluate``/``predict`` reference): ``load_model`` of a
``.keras`` file rebuilds every custom class and function from its registered
name (``@keras.saving.register_keras_serializable()`` or ``custom_objects=``),
calls ``cls.from_config(get_config())``, so ``get_config`` must return every
constructor argument and ``__init__`` must accept (and pass on) ``**kwargs``
such as ``name``/``trainable``/``dtype``; ``y`` given as a dict is keyed by the
model's output names; ``x`` and ``y`` have the same number of samples;
``validation_data`` is ``(x_val, y_val)`` or ``(x_val, y_val, sample_weight)``;
``sample_weight`` has one weight per sample (per-class weights are
``class_weight``) and is not accepted with a ``tf.data.Dataset``;
``predict(x, batch_size, ...)`` takes no targets.

The evidence a diagnosis needs: the custom class/function and the argument
its config lacks, the output names against the keys given, the sample counts
or structure passed against the ones expected.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: <class Functional> could not be deserialized properly ... (Unknown layer 'Swish2')
    Case(
        name="load_model_with_an_unregistered_activation_layer",
        family="compile_saving",
        code="""
        import os
        import tempfile

        class Swish2(keras.layers.Layer):
            def call(self, x):
                return x * tf.sigmoid(x)

        inputs = keras.Input((4,))
        model = keras.Model(inputs, Swish2(name="swish")(keras.layers.Dense(4)(inputs)))
        path = os.path.join(tempfile.mkdtemp(), "swish.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("swish2",),
        must_not=("safe_mode", "save_format", "get_config"),
        fix="@keras.saving.register_keras_serializable() on Swish2, or custom_objects={'Swish2': Swish2}",
    ),
    # TypeError: Could not locate function 'focal_mse'.
    Case(
        name="load_model_compiled_with_a_plain_loss_function",
        family="compile_saving",
        code="""
        import os
        import tempfile

        def focal_mse(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred) * 2.0)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", loss=focal_mse)
        model.fit(np.zeros((8, 4), "float32"), np.zeros((8, 1), "float32"), epochs=1, verbose=0)
        path = os.path.join(tempfile.mkdtemp(), "focal.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("focal_mse",),
        must_not=("safe_mode", "get_config"),
        fix="custom_objects={'focal_mse': focal_mse} (or register it, or compile=False)",
    ),
    # TypeError: ... could not be deserialized properly (Clip.__init__() missing 'high')
    Case(
        name="get_config_forgets_one_constructor_argument",
        family="compile_saving",
        code="""
        import os
        import tempfile

        @keras.saving.register_keras_serializable(package="fresh2_cs")
        class ClipRange(keras.layers.Layer):
            def __init__(self, low, high, **kwargs):
                super().__init__(**kwargs)
                self.low, self.high = low, high

            def call(self, x):
                return tf.clip_by_value(x, self.low, self.high)

            def get_config(self):
                return {**super().get_config(), "low": self.low}

        inputs = keras.Input((4,))
        model = keras.Model(inputs, ClipRange(-1.0, 1.0, name="clip")(inputs))
        path = os.path.join(tempfile.mkdtemp(), "clip.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("cliprange", "high"),
        must_not=("register_keras_serializable", "safe_mode"),
        fix="get_config returns 'high' too",
    ),
    # TypeError: ... could not be deserialized properly (Shift.__init__() got an unexpected
    # keyword argument 'name')
    Case(
        name="custom_layer_init_without_kwargs_cannot_be_loaded",
        family="compile_saving",
        code="""
        import os
        import tempfile

        @keras.saving.register_keras_serializable(package="fresh2_cs")
        class ShiftBy(keras.layers.Layer):
            def __init__(self, offset=1.0):
                super().__init__()
                self.offset = offset

            def call(self, x):
                return x + self.offset

            def get_config(self):
                return {**super().get_config(), "offset": self.offset}

        inputs = keras.Input((4,))
        model = keras.Model(inputs, ShiftBy(0.5)(inputs))
        path = os.path.join(tempfile.mkdtemp(), "shift.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("shiftby", "kwargs"),
        must_not=("register_keras_serializable", "safe_mode"),
        fix="def __init__(self, offset=1.0, **kwargs): super().__init__(**kwargs)",
    ),
    # TypeError: Expected float32, but got price_out of type 'str'.
    Case(
        name="fit_targets_dict_keyed_by_invented_names",
        family="compile_saving",
        code="""
        inputs = keras.Input((4,))
        h = keras.layers.Dense(8)(inputs)
        price = keras.layers.Dense(1, name="price")(h)
        category = keras.layers.Dense(3, activation="softmax", name="category")(h)
        model = keras.Model(inputs, [price, category])
        model.compile("adam", ["mse", "sparse_categorical_crossentropy"])
        x = np.random.rand(32, 4).astype("float32")
        y = {"price_out": np.zeros((32, 1)), "category_out": np.zeros((32,))}
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("price", "category"),
        must_not=("tf.cast", "astype"),
        fix="key y by the output names: {'price': ..., 'category': ...} (or pass a list)",
    ),
    # ValueError: Data cardinality is ambiguous. 'x' sizes: 100 'y' sizes: 99
    Case(
        name="evaluate_with_one_test_label_missing",
        family="compile_saving",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        x_test = np.random.rand(100, 4).astype("float32")
        y_test = np.random.rand(99, 1).astype("float32")
        model.evaluate(x_test, y_test, verbose=0)
        """,
        expect="S12",
        must=("100", "99"),
        must_not=("drop_remainder", "smaller batch"),
        fix="x_test and y_test with the same number of samples",
    ),
    # ValueError: None values not supported.
    Case(
        name="validation_data_tuple_without_labels",
        family="compile_saving",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        x = np.random.rand(64, 4).astype("float32")
        y = np.random.rand(64, 1).astype("float32")
        model.fit(x, y, validation_data=(x[:16],), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("validation_data",),
        must_not=("nan", "astype"),
        fix="validation_data=(x_val, y_val)",
    ),
    # ValueError: Dimensions must be equal, but are 32 and 3 for compile_loss/.../mul
    Case(
        name="sample_weight_given_per_class_columns",
        family="compile_saving",
        code="""
        x = np.random.rand(64, 4).astype("float32")
        y = np.random.randint(0, 3, 64)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(x, y, sample_weight=np.ones((64, 3)), epochs=1, verbose=0)
        """,
        expect="S07",
        must=("sample_weight",),
        must_not=("to_categorical", "one-hot labels"),
        fix="sample_weight of shape (64,), or class_weight={class: weight}",
    ),
    # ValueError: When providing `x` as a tf.data.Dataset, `sample_weights` should not be passed.
    Case(
        name="sample_weight_argument_with_a_dataset",
        family="compile_saving",
        code="""
        x = np.random.rand(64, 4).astype("float32")
        y = np.random.rand(64, 1).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds, sample_weight=np.ones(64), epochs=1, verbose=0)
        """,
        expect=None,
        unexplained="Keras says the weights belong in the dataset's elements (x, y, sample_weight)",
        fix="Dataset.from_tensor_slices((x, y, w))",
    ),
    # ValueError: The truth value of an array with more than one element is ambiguous.
    Case(
        name="predict_given_the_labels_as_second_argument",
        family="compile_saving",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        x = np.zeros((8, 4), "float32")
        y = np.zeros((8, 1))
        model.predict(x, y)
        """,
        expect="S12",
        must=("batch_size",),
        must_not=("a.any()", "a.all()"),
        fix="model.predict(x) (the second argument is batch_size; evaluate(x, y) scores labels)",
    ),
]
