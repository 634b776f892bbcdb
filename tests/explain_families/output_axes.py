"""Family: the labels' per-position axes against the model output's.

API: ``Model.fit``/``evaluate`` with a classification or regression loss.
Contract: the labels hold one value (or row) per example, or one per position
(a tagger's, a mask's), exactly as the output does; a sparse loss takes the
output's shape less its class axis.  Evidence a diagnosis needs: the output's
path back to where an axis entered (an Embedding, a Reshape, the Input) or was
removed (an RNN without return_sequences, a Flatten, a global pooling), and the
strides or 'valid' paddings that changed a spatial size.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_CASES_AXES = [
    Case(
        "lstm_seq_sparse",
        "output_axes",
        """
x = np.random.rand(32, 12, 4).astype("float32"); y = np.random.randint(0, 5, 32)
m = keras.Sequential([keras.Input((12, 4)), keras.layers.LSTM(8, return_sequences=True), keras.layers.Dense(5, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("return_sequences=false",),
        must_not=("to_categorical", "units"),
    ),
    Case(
        "conv_no_flatten_onehot",
        "output_axes",
        """
x = np.random.rand(16, 16, 16, 3).astype("float32"); y = keras.utils.to_categorical(np.random.randint(0, 3, 16), 3)
m = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Dense(3, activation="softmax")])
m.compile("adam", "categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("max_pooling2d", "flatten"),
        must_not=("sparse_categorical", "return_sequences"),
    ),
    Case(
        "bidirectional_seq",
        "output_axes",
        """
x = np.random.randint(0, 50, (32, 10)); y = np.random.randint(0, 2, 32)
m = keras.Sequential([keras.Input((10,)), keras.layers.Embedding(50, 8), keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True), name="bi"), keras.layers.Dense(2, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("return_sequences=false", "bi"),
        must_not=("to_categorical",),
    ),
    Case(
        "dataset_conv1d",
        "output_axes",
        """
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(32, 50, 3).astype("float32"), np.random.randint(0, 4, 32))).batch(8)
m = keras.Sequential([keras.Input((50, 3)), keras.layers.Conv1D(8, 5, activation="relu", name="conv"), keras.layers.Dense(4, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("conv", "globalaveragepooling1d"),
        must_not=("to_categorical", "return_sequences"),
    ),
    Case(
        "dense_on_sequence_bce_column",
        "output_axes",
        """
x = np.random.rand(32, 10, 8).astype("float32"); y = np.random.randint(0, 2, (32, 1)).astype("float32")
m = keras.Sequential([keras.Input((10, 8)), keras.layers.Dense(16, activation="relu"), keras.layers.Dropout(0.2), keras.layers.Dense(1, activation="sigmoid")])
m.compile("adam", "binary_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("flatten",),
        must_not=("units", "return_sequences"),
    ),
    Case(
        "stacked_gru",
        "output_axes",
        """
x = np.random.randint(0, 30, (32, 7)); y = np.random.randint(0, 3, 32)
m = keras.Sequential([keras.Input((7,)), keras.layers.Embedding(30, 8), keras.layers.GRU(8, return_sequences=True), keras.layers.GRU(8, return_sequences=True, name="gru_top"), keras.layers.Dense(3, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("gru_top", "return_sequences=false"),
        must_not=("to_categorical",),
    ),
    Case(
        "functional_embedding_dense",
        "output_axes",
        """
inp = keras.Input((20,), dtype="int32"); h = keras.layers.Embedding(100, 16, name="emb")(inp); h = keras.layers.Dense(8, activation="relu")(h)
out = keras.layers.Dense(1, activation="sigmoid")(h); m = keras.Model(inp, out)
m.compile("adam", "binary_crossentropy"); m.fit(np.random.randint(0, 100, (32, 20)), np.random.randint(0, 2, 32), epochs=1, verbose=0)
""",
        "S07",
        must=("emb", "pooling"),
        must_not=("units",),
    ),
    Case(
        "evaluate_images",
        "output_axes",
        """
m = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, padding="same", name="c1"), keras.layers.Dense(10, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy")
m.evaluate(np.random.rand(16, 8, 8, 1).astype("float32"), np.random.randint(0, 10, 16), verbose=0)
""",
        "S07",
        must=("c1", "flatten"),
        must_not=("to_categorical", "stride"),
    ),
    Case(
        "upsampled_decoder_onehot",
        "output_axes",
        """
x = np.random.rand(16, 4, 4, 2).astype("float32"); y = keras.utils.to_categorical(np.random.randint(0, 5, 16), 5)
m = keras.Sequential([keras.Input((4, 4, 2)), keras.layers.UpSampling2D(), keras.layers.Conv2D(5, 1, activation="softmax", name="head")])
m.compile("adam", "categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("head", "globalaveragepooling2d"),
        must_not=("sparse_categorical", "flatten() or"),
    ),
    Case(
        "lambda_expand",
        "output_axes",
        """
x = np.random.rand(32, 6).astype("float32"); y = np.random.randint(0, 3, 32)
m = keras.Sequential([keras.Input((6,)), keras.layers.Reshape((6, 1), name="to_seq"), keras.layers.Dense(3, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("to_seq",),
        must_not=("to_categorical", "return_sequences"),
    ),
]

_CASES_PERAXIS = [
    Case(
        "tagger_last_state",
        "output_axes",
        """
x = np.random.rand(16, 12, 4).astype("float32"); y = np.random.randint(0, 5, (16, 12))
m = keras.Sequential([keras.Input((12, 4)), keras.layers.LSTM(8, name="tagger_rnn"), keras.layers.Dense(5, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("tagger_rnn", "return_sequences=true"),
        must_not=("to_categorical", "flatten()"),
    ),
    Case(
        "segmentation_pooled",
        "output_axes",
        """
x = np.random.rand(8, 32, 32, 3).astype("float32"); y = np.random.randint(0, 3, (8, 32, 32))
m = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Conv2D(8, 3, padding="same", activation="relu"), keras.layers.MaxPooling2D(name="pool"), keras.layers.Conv2D(3, 1, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("pool", "upsampling"),
        must_not=("to_categorical", "flatten", "padding='same'"),
    ),
    Case(
        "tagger_flatten",
        "output_axes",
        """
x = np.random.randint(0, 40, (16, 10)); y = np.random.randint(0, 4, (16, 10))
m = keras.Sequential([keras.Input((10,)), keras.layers.Embedding(40, 8), keras.layers.Flatten(name="flat"), keras.layers.Dense(4, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("flat",),
        must_not=("to_categorical", "return_sequences"),
    ),
    Case(
        "tagger_pooled",
        "output_axes",
        """
x = np.random.rand(16, 10, 3).astype("float32"); y = np.random.randint(0, 3, (16, 10, 1))
m = keras.Sequential([keras.Input((10, 3)), keras.layers.Conv1D(8, 3, padding="same"), keras.layers.GlobalAveragePooling1D(name="gap"), keras.layers.Dense(3, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("gap",),
        must_not=("to_categorical", "return_sequences"),
    ),
    Case(
        "onehot_segmentation_two_pools",
        "output_axes",
        """
x = np.random.rand(8, 32, 32, 1).astype("float32"); y = keras.utils.to_categorical(np.random.randint(0, 3, (8, 32, 32)), 3)
m = keras.Sequential([keras.Input((32, 32, 1)), keras.layers.Conv2D(4, 3, padding="same"), keras.layers.MaxPooling2D(name="p1"), keras.layers.Conv2D(4, 3, padding="same"), keras.layers.MaxPooling2D(name="p2"), keras.layers.Conv2D(3, 1, activation="softmax")])
m.compile("adam", "categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("p1", "p2"),
        must_not=("sparse_categorical", "flatten", "padding='same'"),
    ),
    Case(
        "mask_strided_conv",
        "output_axes",
        """
x = np.random.rand(8, 28, 28, 1).astype("float32"); y = np.random.randint(0, 2, (8, 28, 28, 1)).astype("float32")
m = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(8, 3, strides=2, padding="same", name="down"), keras.layers.Conv2D(1, 1, activation="sigmoid")])
m.compile("adam", "binary_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("down", "stride"),
        must_not=("flatten", "units"),
    ),
    Case(
        "seq_strided_conv1d",
        "output_axes",
        """
x = np.random.rand(16, 20, 2).astype("float32"); y = np.random.randint(0, 6, (16, 20))
m = keras.Sequential([keras.Input((20, 2)), keras.layers.Conv1D(8, 3, strides=2, padding="same", name="c1d"), keras.layers.Dense(6, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("c1d", "stride"),
        must_not=("to_categorical", "flatten"),
    ),
    Case(
        "bidirectional_tagger",
        "output_axes",
        """
x = np.random.randint(0, 30, (16, 8)); y = np.random.randint(0, 2, (16, 8))
m = keras.Sequential([keras.Input((8,)), keras.layers.Embedding(30, 8), keras.layers.Bidirectional(keras.layers.LSTM(4), name="bi"), keras.layers.Dense(2, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
""",
        "S07",
        must=("bi", "return_sequences=true"),
        must_not=("to_categorical",),
    ),
    Case(
        "valid_conv_segmentation_dataset",
        "output_axes",
        """
ds = tf.data.Dataset.from_tensor_slices((np.random.rand(8, 32, 32, 3).astype("float32"), np.random.randint(0, 2, (8, 32, 32)))).batch(4)
m = keras.Sequential([keras.Input((32, 32, 3)), keras.layers.Conv2D(8, 3, activation="relu", name="cv"), keras.layers.Conv2D(2, 1, activation="softmax")])
m.compile("adam", "sparse_categorical_crossentropy"); m.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("cv", "padding"),
        must_not=("to_categorical", "flatten"),
    ),
    Case(
        "autoencoder_off",
        "output_axes",
        """
x = np.random.rand(8, 28, 28, 1).astype("float32")
m = keras.Sequential([keras.Input((28, 28, 1)), keras.layers.Conv2D(4, 3, padding="same"), keras.layers.MaxPooling2D(), keras.layers.MaxPooling2D(), keras.layers.MaxPooling2D(name="p3"), keras.layers.UpSampling2D(), keras.layers.UpSampling2D(), keras.layers.UpSampling2D(), keras.layers.Conv2D(1, 3, padding="same")])
m.compile("adam", "mse"); m.fit(x, x, epochs=1, verbose=0)
""",
        "S07",
        must=("p3",),
        must_not=("flatten", "labels shaped"),
    ),
    Case(
        "label_rows_shorter_than_the_sequence_are_not_positions",
        "output_axes",
        """
        x = np.random.rand(16, 12, 4).astype("float32"); y = np.random.randint(0, 3, (16, 5))
        m = keras.Sequential([keras.Input((12, 4)), keras.layers.LSTM(8), keras.layers.Dense(3, activation="softmax")])
        m.compile("adam", "sparse_categorical_crossentropy"); m.fit(x, y, epochs=1, verbose=0)
        """,
        "S07",
        must=(),
        # 5 labels per example are not the 12 time steps: no return_sequences advice
        must_not=("return_sequences=true",),
    ),
]

CASES = _CASES_AXES + _CASES_PERAXIS
