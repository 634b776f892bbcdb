"""Shapes: a layer rejecting its input, the batch axis, merges, and ops on incompatible shapes."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "stacked_lstm_without_return_sequences",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((20, 8)),
            keras.layers.LSTM(16, name="lstm"),
            keras.layers.LSTM(8, name="lstm_2"),
            keras.layers.Dense(1),
        ])
        """,
        "S01",
        must=("return_sequences=True", "lstm"),
        must_not=("channel axis",),
        fix="return_sequences=True on the earlier RNN",
    ),
    Case(
        "channels_first_images_into_channels_last_model",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((32, 32, 3)),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(10),
        ])
        x = np.zeros((4, 3, 32, 32), "float32")
        model.predict(x, verbose=0)
        """,
        "S01",
        must=("channels", "transpose"),
        must_not=("rebuild the model",),
        fix="np.transpose(x, (0, 2, 3, 1))",
    ),
    Case(
        "custom_layer_hard_codes_batch_size",
        "shapes",
        """
        class Split(keras.layers.Layer):
            def call(self, x):
                return tf.reshape(x, (32, 4, 4))

        model = keras.Sequential([keras.Input((16,)), Split(), keras.layers.Flatten(), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        x = np.zeros((40, 16), "float32"); y = np.zeros((40, 1), "float32")
        model.fit(x, y, batch_size=32, epochs=1, verbose=0)
        """,
        "S07",
        must=("batch size",),
        must_not=("y.shape", "output units", "one-hot"),
        fix="use the dynamic batch size (tf.shape(x)[0] or -1)",
    ),
]

CASES += [
    Case(
        "dense_on_unflattened_images",
        "shapes",
        """
        model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10)])
        model(np.zeros((2, 28, 28), "float32"))
        """,
        "S01",
        must=("Flatten",),
        fix="keras.layers.Flatten() before the Dense",
    ),
    Case(
        "conv2d_on_grayscale_without_channel_axis",
        "shapes",
        """
        model = keras.Sequential([keras.Input((28, 28)), keras.layers.Conv2D(4, 3)])
        """,
        "S01",
        must=("channel axis",),
        must_not=("return_sequences",),
        fix="add the channel axis: Input((28, 28, 1)) and x[..., None]",
    ),
    Case(
        "conv2d_fed_by_dense",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((16,)),
            keras.layers.Dense(64, name="dense_feat"),
            keras.layers.Conv2D(4, 3, name="conv"),
        ])
        """,
        "S01",
        must=("dense_feat", "Reshape"),
        must_not=("x[..., None]", "channel axis"),
        fix="a Reshape between the Dense and the Conv2D",
    ),
    Case(
        "lstm_after_flatten",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((10, 4)),
            keras.layers.Flatten(name="flat"),
            keras.layers.LSTM(8),
        ])
        """,
        "S01",
        must=("flat",),
        must_not=("x[..., None]", "channel axis"),
        fix="move the Flatten after the RNN",
    ),
    Case(
        "gru_stack_functional",
        "shapes",
        """
        inp = keras.Input((12, 3))
        h = keras.layers.GRU(8, name="gru_a")(inp)
        out = keras.layers.GRU(4, name="gru_b")(h)
        """,
        "S01",
        must=("return_sequences=True", "gru_a"),
        must_not=("channel axis",),
        fix="return_sequences=True on the earlier RNN",
    ),
    Case(
        "bidirectional_then_lstm",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((12, 3)),
            keras.layers.Bidirectional(keras.layers.LSTM(8), name="bi"),
            keras.layers.LSTM(4),
        ])
        """,
        "S01",
        must=("return_sequences=True", "bi"),
        must_not=("channel axis",),
        fix="return_sequences=True on the earlier RNN",
    ),
    Case(
        "feature_width_changed",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(np.zeros((16, 9), "float32"), np.zeros((16, 1)), verbose=0)
        """,
        "S01",
        must=("column",),
        must_not=("Flatten", "transpose"),
        fix="the data's columns, or the model's Input width",
    ),
    Case(
        "channels_first_single_channel",
        "shapes",
        """
        model = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(4, 3)])
        model.predict(np.zeros((2, 1, 28, 28), "float32"), verbose=0)
        """,
        "S01",
        must=("transpose",),
        must_not=("rebuild the model",),
        fix="np.transpose(x, (0, 2, 3, 1))",
    ),
    Case(
        "skip_branch_not_downsampled",
        "shapes",
        """
        inp = keras.Input((32, 32, 3))
        a = keras.layers.Conv2D(8, 3, padding="same")(inp)
        b = keras.layers.Conv2D(8, 3, strides=2, padding="same")(a)
        out = keras.layers.Concatenate(name="merge")([a, b])
        """,
        "S01",
        must=("strides=2",),
        fix="downsample the skip branch",
    ),
    Case(
        "add_with_different_channels",
        "shapes",
        """
        inp = keras.Input((16, 16, 3))
        a = keras.layers.Conv2D(8, 3, padding="same")(inp)
        b = keras.layers.Conv2D(16, 3, padding="same")(a)
        out = keras.layers.Add()([a, b])
        """,
        "S01",
        must=("1x1",),
        fix="project the skip branch with a 1x1 Conv2D",
    ),
    Case(
        "unbatched_dataset_into_fit",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        ds = tf.data.Dataset.from_tensor_slices((np.zeros((16, 8), "float32"), np.zeros((16, 1), "float32")))
        model.fit(ds, epochs=1, verbose=0)
        """,
        "S12",  # the catalog's S12: examples passed without their batch axis
        must=("batch",),
        must_not=("Flatten",),
        fix="ds.batch(32)",
    ),
    Case(
        "single_image_without_batch_axis",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(2)])
        x = np.zeros((10, 8, 8, 3), "float32")
        model(x[0])
        """,
        "S12",  # the catalog's S12: a single example passed without its batch axis
        must=("batch axis", "x[None]"),
        must_not=("channel axis",),
        fix="x[None] or x[:1]",
    ),
    Case(
        "mse_labels_with_wrong_width",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3)])
        model.compile("adam", "mse")
        model.fit(np.zeros((16, 8), "float32"), np.zeros((16, 2), "float32"), verbose=0)
        """,
        "S07",
        must=("3 units", "2 columns"),
        must_not=("batch size",),
        fix="as many output units as label columns",
    ),
    Case(
        "matmul_wrong_inner_dimension",
        "shapes",
        """
        a = tf.ones((4, 3)); b = tf.ones((4, 5))
        tf.matmul(a, b)
        """,
        "S07",
        must=("MatMul",),
        fix="transpose one operand or fix its shape",
    ),
    Case(
        "custom_loss_batch_mismatch_in_loop",
        "shapes",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        x = tf.zeros((8, 4)); y = tf.zeros((6, 1))
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        """,
        "S07",
        must=("batch axis",),
        must_not=("one-hot",),
        fix="x and y batches that line up",
    ),
]

CASES += [
    Case(
        "predict_single_image_keras_pads_the_axis",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((28, 28, 1)), keras.layers.Conv2D(4, 3), keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(4, 3), keras.layers.Flatten(), keras.layers.Dense(2),
        ])
        x = np.zeros((5, 28, 28, 1), "float32")
        model.predict(x[0], verbose=0)
        """,
        "S12",
        must=("x[0:1]", "batch axis"),
        must_not=("padding='same'",),
        fix="x[None] or x[:1]",
    ),
    Case(
        "too_much_pooling_for_small_images",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((8, 8, 3)), keras.layers.MaxPooling2D(), keras.layers.MaxPooling2D(),
            keras.layers.MaxPooling2D(), keras.layers.Conv2D(4, 3, name="late_conv"),
        ])
        """,
        "S01",
        must=("padding='same'", "late_conv"),
        must_not=("x[None]",),
        fix="fewer poolings, padding='same' or a larger input",
    ),
    Case(
        "valid_convolutions_shrink_below_kernel",
        "shapes",
        """
        model = keras.Sequential([keras.Input((6, 6, 1))] + [keras.layers.Conv2D(4, 3) for _ in range(3)])
        """,
        "S01",
        must=("padding='same'",),
        fix="padding='same'",
    ),
    Case(
        "reshape_layer_wrong_size",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Reshape((3, 3), name="to_grid")])
        """,
        "S01",
        must=("to_grid", "multiply to 8"),
        fix="a target_shape with the same number of values, or -1",
    ),
    Case(
        "tf_reshape_wrong_size",
        "shapes",
        """
        flat = tf.zeros((8,))
        grid = tf.reshape(flat, (3, 3))
        """,
        "S07",
        must=("-1", "8 values"),
        fix="a shape with the same number of values, or -1",
    ),
    Case(
        "conv1d_on_tabular_rows",
        "shapes",
        """
        model = keras.Sequential([keras.Input((8,)), keras.layers.Conv1D(4, 3)])
        """,
        "S01",
        must=("channel axis",),
        must_not=("return_sequences",),
        fix="x[..., None] and Input((8, 1))",
    ),
    Case(
        "lstm_on_flat_sequences",
        "shapes",
        """
        model = keras.Sequential([keras.Input((20,)), keras.layers.LSTM(8)])
        """,
        "S01",
        must=("x[..., None]",),
        must_not=("return_sequences",),
        fix="a feature axis: x[..., None] and Input((20, 1))",
    ),
    Case(
        "dense_output_three_axes_against_class_labels",
        "shapes",
        """
        model = keras.Sequential([keras.Input((5, 8)), keras.layers.Dense(3, activation="softmax")])
        model.compile("adam", "categorical_crossentropy")
        y = keras.utils.to_categorical(np.arange(12) % 3, 3)
        model.fit(np.zeros((12, 5, 8), "float32"), y, epochs=1, verbose=0)
        """,
        "S07",
        must=("Flatten",),
        must_not=("sparse",),
        fix="Flatten or GlobalAveragePooling before the output layer",
    ),
]

CASES += [
    Case(
        "longer_window_through_flatten",
        "shapes",
        """
        model = keras.Sequential([
            keras.Input((3, 19)), keras.layers.Flatten(name="flat"), keras.layers.Dense(1, name="head"),
        ])
        model.compile("adam", "mse")
        model.fit(np.zeros((8, 3, 19), "float32"), np.zeros((8, 1)), verbose=0)
        model.predict(np.zeros((4, 24, 19), "float32"), verbose=0)
        """,
        "S01",
        must=("flat", "axis before it changed"),
        must_not=("column", "transpose"),
        fix="the window length the model was built for, or global pooling",
    ),
]
