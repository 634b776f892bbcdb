"""Family: a dimension is wrong because of where it came from.

The documented arithmetic: an ``LSTM`` without ``return_sequences=True``
returns only its last state ``(B, units)``, so a ``TimeDistributed`` head or
per-time-step labels ``(B, T)`` find no time axis; ``Conv2D`` with
``padding="valid"`` (the default) gives ``n - k + 1``, so inception-style
branches with kernels 1, 3 and 5 come out 32, 30 and 28 wide and cannot be
concatenated (``padding="same"`` keeps 32); ``Embedding`` outputs
``(B, T, D)``, rank 3, which is a ``Conv1D`` input, not a ``Conv2D`` one (that
needs ``(B, H, W, C)``); ``Reshape`` produces exactly its target, so
``Reshape((28, 28))`` of 784 pixels has no channel axis for a ``Conv2D``
(``(28, 28, 1)`` has one); a ``Conv2D`` with ``strides=2`` halves the spatial
size, so a segmentation head with no upsampling predicts at half the mask's
resolution; ``Conv1D(strides=2, padding="same")`` gives ``ceil(n / 2)`` and
``Conv1DTranspose(strides=2)`` doubles it, so an odd length 101 comes back as
102 and cannot be added to the input; ``keras.Input(shape)`` is the shape of
ONE example, so ``X.shape[0]`` (the number of rows) is not the feature count
``X.shape[1]``.

The evidence a diagnosis needs: the layer (or loss) that failed, the shapes it
got, and the layer or expression the wrong dimension came from, with the
arithmetic that produced it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions,
    #   received: (None, 16)
    Case(
        name="time_distributed_dense_after_a_summarizing_lstm",
        family="dimensions",
        code="""
        model = keras.Sequential([
            keras.Input((20, 3)),
            keras.layers.LSTM(16),
            keras.layers.TimeDistributed(keras.layers.Dense(1)),
        ])
        """,
        expect="S01",
        must=("return_sequences",),
        must_not=("flatten", "strides"),
        fix="LSTM(16, return_sequences=True)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis.
    #   Received: input_shape=[(None, 32, 32, 8), (None, 30, 30, 8), (None, 28, 28, 8)]
    Case(
        name="inception_branches_with_valid_padding",
        family="dimensions",
        code="""
        inp = keras.Input((32, 32, 3))
        b1 = keras.layers.Conv2D(8, 1, activation="relu")(inp)
        b3 = keras.layers.Conv2D(8, 3, activation="relu")(inp)
        b5 = keras.layers.Conv2D(8, 5, activation="relu")(inp)
        block = keras.layers.Concatenate()([b1, b3, b5])
        """,
        expect="S01",
        must=("padding",),
        must_not=("strides", "pool"),
        fix="padding='same' in every branch",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None, 12), output.shape=(None, 5)
    Case(
        name="sequence_tagger_from_the_last_lstm_state",
        family="dimensions",
        code="""
        tokens = np.random.rand(16, 12, 8).astype("float32")
        tags = np.random.randint(0, 5, (16, 12))  # one tag per token
        model = keras.Sequential([
            keras.Input((12, 8)),
            keras.layers.LSTM(32),
            keras.layers.Dense(5, activation="softmax"),
        ])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(tokens, tags, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "one-hot"),
        fix="LSTM(32, return_sequences=True) so the Dense tags every step",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer:
    #   expected min_ndim=4, found ndim=3. Full shape received: (None, 50, 32)
    Case(
        name="conv2d_on_embedded_text_without_a_channel_axis",
        family="dimensions",
        code="""
        model = keras.Sequential([
            keras.Input((50,)),
            keras.layers.Embedding(1000, 32),
            keras.layers.Conv2D(16, (3, 32), activation="relu"),
            keras.layers.GlobalMaxPooling2D(),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        """,
        expect="S01",
        must=("embedding",),
        must_not=("flatten", "strides"),
        fix="Conv1D(16, 3) on the (50, 32) sequence, or Reshape((50, 32, 1)) first",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer:
    #   expected min_ndim=4, found ndim=3. Full shape received: (None, 28, 28)
    Case(
        name="reshape_of_flat_pixels_without_a_channel_axis",
        family="dimensions",
        code="""
        model = keras.Sequential([
            keras.Input((784,)),  # flat MNIST rows from a CSV
            keras.layers.Reshape((28, 28)),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(10),
        ])
        """,
        expect="S01",
        must=("reshape",),
        must_not=("x[..., none]", "expand_dims(x", "strides"),
        fix="Reshape((28, 28, 1))",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape up until the last dimension:
    #   target.shape=(None, 32, 32), output.shape=(None, 16, 16, 3)
    Case(
        name="segmentation_output_at_half_resolution",
        family="dimensions",
        code="""
        images = np.random.rand(4, 32, 32, 3).astype("float32")
        masks = np.random.randint(0, 3, (4, 32, 32))
        inp = keras.Input((32, 32, 3))
        h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
        h = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(h)
        out = keras.layers.Conv2D(3, 1, activation="softmax")(h)
        model = keras.Model(inp, out)
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(images, masks, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("stride",),
        must_not=("one-hot", "to_categorical"),
        fix="UpSampling2D(2) / Conv2DTranspose(strides=2) before the head, or strides=1",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (101, 1) and (102, 1)
    Case(
        name="conv1d_denoiser_residual_on_an_odd_length",
        family="dimensions",
        code="""
        inp = keras.Input((101, 1))  # 101-sample windows
        h = keras.layers.Conv1D(16, 5, strides=2, padding="same", activation="relu")(inp)
        h = keras.layers.Conv1DTranspose(1, 5, strides=2, padding="same")(h)
        clean = keras.layers.Add()([inp, h])
        """,
        expect="S01",
        must=("stride",),
        must_not=("batch the dataset", "channels_first"),
        fix="an even window (100 or 102), or Cropping1D((0, 1)) after the transpose",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   (Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input shape
    #   to have value 100, but received input with shape (None, 8))
    Case(
        name="input_sized_by_the_row_count",
        family="dimensions",
        code="""
        X = np.random.rand(100, 8).astype("float32")
        y = np.random.rand(100, 1).astype("float32")
        model = keras.Sequential([
            keras.Input((X.shape[0],)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(1),
        ])
        model.compile("adam", "mse")
        model.fit(X, y, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("100", "8"),
        must_not=("flatten", "add an axis"),
        fix="keras.Input((X.shape[1],))",
    ),
]
