"""Family: a dimension is wrong because of where it came from.

The documented arithmetic: ``MaxPooling2D(2)`` with ``padding="valid"`` gives
``floor(n / 2)`` (five of them take 28 to 0); a ``Conv2D`` declared on
channels-last input (the default ``data_format``) reads the LAST axis as
channels, so channels-first arrays ``(N, 3, H, W)`` are misread; ``Flatten``
needs every non-batch dimension known, so a sequence axis of length ``None``
cannot reach a ``Dense`` through it; ``Concatenate(axis=...)`` needs all other
axes equal (channels are ``axis=-1``); ``Reshape`` keeps the element count;
``Embedding`` keeps the sequence axis (``(B, T, D)``) until a pooling/Flatten
removes it; ``Dataset.batch`` applied twice adds a second batch axis;
``GlobalAveragePooling2D`` drops the spatial axes (``keepdims=True`` keeps
them); ``Dot(axes=...)`` contracts axes that must have equal sizes; ``Dense``
acts on the last axis only, so images need a ``Flatten`` first.

The evidence a diagnosis needs: the layer that failed, the shapes it got, and
the layer (or data step) the wrong dimension came from, with the arithmetic
that produced it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError in Sequential.call: Conv2D kernel expects 3 channels, got 32 (channels-first data)
    Case(
        name="channels_first_images_into_a_channels_last_model",
        family="dimensions",
        code="""
        images = np.random.rand(16, 3, 32, 32).astype("float32")  # (N, C, H, W) from PyTorch
        model = keras.Sequential([
            keras.Input((32, 32, 3)),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(2),
        ])
        model.predict(images, verbose=0)
        """,
        expect="S01",
        must=("channels",),
        must_not=("strides", "batch the dataset", "add an axis"),
        fix="images.transpose(0, 2, 3, 1) (or a channels_first model)",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined ... shape=(None, 1)
    Case(
        name="flatten_of_a_variable_length_sequence",
        family="dimensions",
        code="""
        model = keras.Sequential([
            keras.Input((None, 8)),
            keras.layers.LSTM(16, return_sequences=True),
            keras.layers.Flatten(),
            keras.layers.Dense(1),
        ])
        """,
        expect="S01",
        must=("flatten",),
        must_not=("return_sequences=true",),
        fix="GlobalAveragePooling1D() instead of Flatten (or return_sequences=False / a fixed length)",
    ),
    # ValueError in MaxPooling2D.call: negative dimension after 5 pools of a 28x28 image
    Case(
        name="five_poolings_of_a_28_pixel_image",
        family="dimensions",
        code="""
        layers = [keras.Input((28, 28, 1))]
        for filters in (16, 32, 64, 128, 256):
            layers += [
                keras.layers.Conv2D(filters, 3, padding="same", activation="relu"),
                keras.layers.MaxPooling2D(2),
            ]
        layers += [keras.layers.Flatten(), keras.layers.Dense(10)]
        model = keras.Sequential(layers)
        """,
        expect="S01",
        must=("pool",),
        must_not=("batch size", "batch the dataset"),
        fix="four poolings at most (28->14->7->3->1), or padding='same' in MaxPooling2D",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. (None, 8, 8, 16) and (None, 8, 8, 32)
    Case(
        name="concatenate_feature_maps_on_the_height_axis",
        family="dimensions",
        code="""
        inputs = keras.Input((8, 8, 3))
        a = keras.layers.Conv2D(16, 3, padding="same")(inputs)
        b = keras.layers.Conv2D(32, 1)(inputs)
        merged = keras.layers.Concatenate(axis=1)([a, b])
        """,
        expect="S01",
        must=("axis",),
        must_not=("strides", "pooling", "cropping"),
        fix="Concatenate(axis=-1)",
    ),
    # ValueError in Reshape.call: total size 1568 cannot become (7, 7, 64) = 3136
    Case(
        name="reshape_to_more_filters_than_the_dense_produced",
        family="dimensions",
        code="""
        model = keras.Sequential([
            keras.Input((100,)),
            keras.layers.Dense(7 * 7 * 32, name="project"),
            keras.layers.Reshape((7, 7, 64)),
            keras.layers.Conv2DTranspose(1, 3, strides=4, padding="same"),
        ])
        """,
        expect="S01",
        must=("reshape",),
        must_not=("batch size", "flatten"),
        fix="Dense(7 * 7 * 64) or Reshape((7, 7, 32))",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank. (32,) vs (32, 20, 1)
    Case(
        name="embedding_classifier_without_pooling_the_sequence",
        family="dimensions",
        code="""
        x = np.random.randint(0, 100, (64, 20))
        y = np.random.randint(0, 2, (64,))
        model = keras.Sequential([
            keras.Input((20,)),
            keras.layers.Embedding(100, 8),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile("adam", "binary_crossentropy")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S01",
        must=("embedding",),
        must_not=("sparse_categorical", "to_categorical", "input_dim"),
        fix="GlobalAveragePooling1D() (or Flatten) after the Embedding",
    ),
    # ValueError in Sequential.call: (None, None, 10) reached Dense expecting (None, 10)
    Case(
        name="dataset_batched_twice",
        family="dimensions",
        code="""
        x = np.random.rand(64, 10).astype("float32")
        y = np.random.rand(64, 1).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(ds.batch(4), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("batch",),
        must_not=("expand_dims", "flatten", "reshape the model"),
        fix="batch once (drop the second .batch(4), or .unbatch() first)",
    ),
    # ValueError: Input 0 of layer 'conv2d_..' incompatible: expected min_ndim=4, found ndim=2
    Case(
        name="conv_after_global_average_pooling",
        family="dimensions",
        code="""
        inputs = keras.Input((16, 16, 3))
        x = keras.layers.Conv2D(8, 3, padding="same")(inputs)
        x = keras.layers.GlobalAveragePooling2D(name="squeeze")(x)
        x = keras.layers.Conv2D(8, 1, name="excite")(x)
        """,
        expect="S01",
        must=("squeeze",),
        must_not=("batch the dataset", "strides"),
        fix="GlobalAveragePooling2D(keepdims=True) (or Reshape((1, 1, 8)))",
    ),
    # ValueError: Incompatible input shapes: axis values 6 (at axis 1) != 8 (at axis 1).
    Case(
        name="dot_over_the_time_axes_of_unequal_sequences",
        family="dimensions",
        code="""
        query = keras.Input((6, 16))
        keys = keras.Input((8, 16))
        scores = keras.layers.Dot(axes=(1, 1))([query, keys])
        """,
        expect="S01",
        must=("axes",),
        must_not=("strides", "pooling", "cropping"),
        fix="Dot(axes=(2, 2)) for (B, 6, 8) scores",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. target (32,),
    # output (32, 28, 10)
    Case(
        name="dense_classifier_on_images_without_flatten",
        family="dimensions",
        code="""
        images = np.random.rand(64, 28, 28).astype("float32")
        labels = np.random.randint(0, 10, 64)
        model = keras.Sequential([
            keras.Input((28, 28)),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10, activation="softmax"),
        ])
        model.compile("adam", "sparse_categorical_crossentropy")
        model.fit(images, labels, epochs=1, verbose=0)
        """,
        expect="S01",
        must=("flatten",),
        must_not=("to_categorical", "use the sparse"),
        fix="keras.layers.Flatten() before the first Dense",
    ),
]
