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
