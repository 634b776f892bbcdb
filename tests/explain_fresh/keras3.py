"""Family: Keras 2 / TF2-era notebook code that fails under Keras 3.

The API: what a user copying an older notebook meets first: recurrent
``get_initial_state``, ``keras.Input(shape=...)``, ``Embedding(input_length=)``,
``keras.backend`` functions, a custom ``Layer.build`` written for TF1
``Dimension`` objects, ``fit(steps_per_epoch=...)``, ``Metric.reset_states``,
``ModelCheckpoint``/``Model.save`` paths, ``load_model`` of a SavedModel,
``optimizer.lr``, ``fit_generator``, ``layers.experimental.preprocessing``,
``Layer.add_weight``'s argument order, ``Loss(reduction=...)``.

The contract: Keras 3 changed each of them: ``get_initial_state(batch_size)``
takes a number, not the inputs; a shape is a tuple; ``input_length`` is
ignored, so a ``Sequential`` without ``keras.Input`` stays unbuilt;
``keras.backend`` keeps only a few functions (the math moved to
``keras.ops``); shapes hold plain ``int``/``None``; step counts are ints;
``reset_state``, ``learning_rate``, ``fit``, ``keras.layers.Rescaling``,
``add_weight(shape=..., name=...)``, ``.weights.h5`` and ``.keras`` paths,
``keras.layers.TFSMLayer`` for SavedModels, and reduction names such as
``"sum_over_batch_size"``.

The evidence a diagnosis needs: the old spelling in the user's line and the
Keras 3 replacement; for the cases that fail far from the old call (a Pack
op inside ``get_initial_state``, a ``Lambda`` whose shape inference swallowed
the ``AttributeError``, an unbuilt model) the place the old call sits.
Several cases are left unexplained on purpose: Keras (or Python) already
says what is missing, and no catalog code covers a renamed API.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras3"

CASES: list[Case] = [
    # Raises InvalidArgumentError: {{function_node
    # __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all
    # inputs must match: values[0].shape = [2,5,3] != values[1].shape = [] [Op:Pack] name:
    Case(
        name="rnn_get_initial_state_given_the_inputs",
        family=FAMILY,
        code="""
        encoder = keras.layers.LSTM(8, return_state=True)
        batch = tf.random.normal((2, 5, 3))
        states = encoder.get_initial_state(batch)
        """,
        expect="S12",
        must=("get_initial_state", "batch_size"),
        must_not=("padded_batch", "ragged", "resize"),
        fix="get_initial_state(batch_size=tf.shape(batch)[0])",
    ),
    # Raises ValueError: Cannot convert '10' to a shape.
    Case(
        name="input_shape_given_as_an_int",
        family=FAMILY,
        code="""
        inputs = keras.Input(shape=10)
        """,
        expect="S12",
        must=("(10,)",),
        must_not=("batch size", "the strides", "flatten"),
        fix="a tuple: keras.Input(shape=(10,))",
    ),
    # Raises ValueError: You tried to call `count_params` on layer 'sequential_21', but the layer
    # isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="embedding_input_length_leaves_the_model_unbuilt",
        family=FAMILY,
        code="""
        model = keras.Sequential([
            keras.layers.Embedding(1000, 8, input_length=20),
            keras.layers.Flatten(),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        print(model.count_params())
        """,
        expect="S04",
        must=("input_length", "input"),
        must_not=("the strides", "input_dim", "index"),
        fix="start the model with keras.Input(shape=(20,))",
    ),
    # Raises NotImplementedError: Exception encountered when calling Lambda.call(). ... We could
    # not automatically infer the shape of the Lambda's output. Please specify the `output_shape`
    # argument for this Lambda layer.
    Case(
        name="lambda_with_a_removed_backend_function",
        family=FAMILY,
        code="""
        from keras import backend as K
        inputs = keras.Input((16,))
        unit = keras.layers.Lambda(lambda t: K.l2_normalize(t, axis=1))(inputs)
        """,
        expect="S01",
        must=("l2_normalize", "keras.ops"),
        must_not=("output_shape", "the strides", "flatten"),
        fix="keras.ops.normalize(t, axis=1) (keras.backend lost its math functions)",
    ),
    # Raises AttributeError: 'int' object has no attribute 'value'
    Case(
        name="custom_layer_build_uses_dimension_value",
        family=FAMILY,
        code="""
        class MyDense(keras.layers.Layer):
            def __init__(self, output_dim, **kwargs):
                self.output_dim = output_dim
                super().__init__(**kwargs)

            def build(self, input_shape):
                self.kernel = self.add_weight(
                    name="kernel", shape=(input_shape[1].value, self.output_dim),
                    initializer="uniform")
                super().build(input_shape)

            def call(self, x):
                return tf.matmul(x, self.kernel)

        out = MyDense(4)(keras.Input((3,)))
        """,
        expect="S01",
        must=(".value", "input_shape"),
        must_not=("the strides", "batch the dataset", "flatten"),
        fix="shapes hold plain ints: input_shape[-1] without .value",
    ),
    # Raises TypeError: 'float' object cannot be interpreted as an integer
    Case(
        name="steps_per_epoch_as_a_float",
        family=FAMILY,
        code="""
        x = np.random.rand(100, 4).astype("float32")
        y = np.random.rand(100, 1).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(32).repeat()
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds, steps_per_epoch=len(x) / 32, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("steps_per_epoch", "int"),
        must_not=("astype", "tf.cast", "the strides"),
        fix="an integer: steps_per_epoch=math.ceil(len(x) / 32)",
    ),
    # Raises AttributeError: 'Mean' object has no attribute 'reset_states'
    Case(
        name="metric_reset_states",
        family=FAMILY,
        code="""
        train_loss = keras.metrics.Mean()
        train_loss.update_state(0.3)
        train_loss.reset_states()
        """,
        expect=None,
        must_not=("the strides", "batch size", "the shapes"),
        unexplained="no catalog code covers a renamed method; the AttributeError names reset_states",
        fix="train_loss.reset_state()",
    ),
    # Raises ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath
    # provided must end in `.weights.h5` (Keras weights format). Received: filepath=best_model.h5
    Case(
        name="checkpoint_weights_only_with_an_h5_path",
        family=FAMILY,
        code="""
        checkpoint = keras.callbacks.ModelCheckpoint("best_model.h5", save_weights_only=True)
        """,
        expect=None,
        must_not=("custom_objects", "register_keras_serializable"),
        unexplained="Keras says the path must end in .weights.h5",
        fix='ModelCheckpoint("best.weights.h5", save_weights_only=True)',
    ),
    # Raises ValueError: Invalid filepath extension for saving. Please add either a `.keras`
    # extension for the native Keras format (recommended) or a `.h5` extension. Use
    # `model.export(filepath)` if you want to export a SavedModel for use with
    # TFLite/TFServing/etc. Receive
    Case(
        name="model_save_to_a_directory",
        family=FAMILY,
        code="""
        import tempfile, os
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.save(os.path.join(tempfile.mkdtemp(), "saved_model"))
        """,
        expect=None,
        must_not=("custom_objects", "register_keras_serializable"),
        unexplained="Keras says to add .keras (or .h5), or to use model.export for a SavedModel",
        fix='model.save("model.keras") or model.export("dir")',
    ),
    # Raises ValueError: File format not supported: filepath=/tmp/.../serving. Keras 3 only
    # supports V3 `.keras` files, legacy H5 format files (`.h5` extension). Note that the legacy
    # SavedModel format is not supported by `load_model()` in Keras 3. In order to reload a Tens
    Case(
        name="load_model_of_an_exported_savedmodel",
        family=FAMILY,
        code="""
        import tempfile, os
        folder = os.path.join(tempfile.mkdtemp(), "serving")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.export(folder, verbose=False)
        restored = keras.models.load_model(folder)
        """,
        expect=None,
        must_not=("custom_objects", "register_keras_serializable"),
        unexplained="Keras says SavedModel is not supported by load_model and names keras.layers.TFSMLayer",
        fix="keras.layers.TFSMLayer(folder, call_endpoint='serve')",
    ),
    # Raises AttributeError: 'Adam' object has no attribute 'lr'
    Case(
        name="optimizer_lr_attribute",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(1e-3), "mse")
        print("learning rate:", float(model.optimizer.lr))
        """,
        expect=None,
        must_not=("the strides", "the shapes", "batch size"),
        unexplained="no catalog code covers a renamed attribute; the AttributeError names lr",
        fix="model.optimizer.learning_rate",
    ),
    # Raises AttributeError: 'Sequential' object has no attribute 'fit_generator'
    Case(
        name="fit_generator_removed",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        def batches():
            while True:
                yield np.random.rand(8, 4), np.random.rand(8, 1)
        model.fit_generator(batches(), steps_per_epoch=2, epochs=1)
        """,
        expect=None,
        must_not=("the strides", "output_signature", "repeat"),
        unexplained="no catalog code covers a removed method; the AttributeError names fit_generator",
        fix="model.fit(batches(), steps_per_epoch=2)",
    ),
    # Raises AttributeError: module 'keras.layers' has no attribute 'experimental'
    Case(
        name="experimental_preprocessing_namespace",
        family=FAMILY,
        code="""
        augment = keras.Sequential([
            keras.layers.experimental.preprocessing.RandomFlip("horizontal"),
            keras.layers.experimental.preprocessing.Rescaling(1 / 255.0),
        ])
        """,
        expect=None,
        must_not=("the strides", "the shapes", "cache"),
        unexplained="no catalog code covers a moved namespace; the AttributeError names experimental",
        fix="keras.layers.RandomFlip / keras.layers.Rescaling",
    ),
    # Raises ValueError: `name` must be passed as a keyword argument. Received:
    # add_weight('gamma', ...). Use: add_weight(shape=..., name='gamma').
    Case(
        name="add_weight_with_the_name_first",
        family=FAMILY,
        code="""
        class Scale(keras.layers.Layer):
            def build(self, input_shape):
                self.gamma = self.add_weight("gamma", (input_shape[-1],), initializer="ones")

            def call(self, x):
                return x * self.gamma

        out = Scale()(keras.Input((5,)))
        """,
        expect=None,
        must_not=("the strides", "batch size", "input_shape[0]"),
        unexplained="Keras says name must be a keyword and shows add_weight(shape=..., name=...)",
        fix="self.add_weight(shape=(input_shape[-1],), name='gamma')",
    ),
    # Raises ValueError: Invalid value for argument `reduction`. Expected one of {'none',
    # 'mean_with_sample_weight', 'mean', 'sum', 'sum_over_batch_size', None}. Received:
    # reduction=auto
    Case(
        name="loss_subclass_with_auto_reduction",
        family=FAMILY,
        code="""
        class HalfSquare(keras.losses.Loss):
            def __init__(self):
                super().__init__(reduction="auto", name="half_square")

            def call(self, y_true, y_pred):
                return 0.5 * tf.square(y_true - y_pred)

        HalfSquare()(tf.ones((2, 1)), tf.zeros((2, 1)))
        """,
        expect=None,
        must_not=("the strides", "the shapes", "from_logits"),
        unexplained="Keras lists the reduction values it accepts",
        fix='reduction="sum_over_batch_size"',
    ),
]
