"""Family: shape errors whose wrong size comes from where a dimension came from.

The API: ``keras.Input(shape=...)``, preprocessing layers that learn a shape
in ``adapt`` (``Normalization``, ``TextVectorization``), the layers that
change spatial sizes (``Conv2D`` with ``strides``/``padding``, pooling,
``UpSampling2D``, ``Conv2DTranspose``), ``Reshape``, ``Flatten``,
``Concatenate``/``Add`` of branches, and ``tf.function(input_signature=...)``.

The contract: a per-example shape leaves out the sample axis; ``adapt``
learns one statistic per index of ``axis``; every down-sampling step divides
a size by its stride with floor (``valid``) or ceil (``same``) and every
up-sampling step multiplies it, so an encoder-decoder returns to the input
size only when the input size divides evenly; ``Flatten`` needs every
non-batch axis known for the ``Dense`` after it; a declared signature is a
promise about the data's shape.

The evidence a diagnosis needs: where the wrong size entered (the number that
equals the sample count, the axis ``adapt`` reduced over, the one layer on
the path whose stride or padding changed the size, the length axis that is
``None``), traced back from the layer that raised; the fix names that place.
Advice about strides or padding is wrong when no layer on the path has
either, and "labels" advice is wrong when the targets are the inputs
(``fit(x, x)``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "dimensions"

CASES: list[Case] = [
    # Raises ValueError: Exception encountered when calling Sequential.call(). ... Invalid input
    # shape for input Tensor("data:0", shape=(None, 20), dtype=float32) with name
    # 'keras_tensor_23' and path ''. Expected shape (None, 500, 20), but input has incompatible
    # shape (Non
    Case(
        name="input_shape_includes_the_sample_count",
        family=FAMILY,
        code="""
        x = np.random.rand(500, 20).astype("float32")
        y = np.random.randint(0, 2, size=500)
        model = keras.Sequential([
            keras.Input(shape=x.shape),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.compile("adam", "binary_crossentropy")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S01",
        must=("500", "shape[1:]"),
        must_not=("the strides", "channel", "flatten", "labels"),
        fix="keras.Input(shape=x.shape[1:])",
    ),
    # Raises ValueError: Kernel shape must have the same length as input, but received kernel of
    # shape (3, 3, 1, 8) and input of shape (None, 200, 28, 28, 1).
    Case(
        name="conv_input_shape_from_the_image_array",
        family=FAMILY,
        code="""
        images = np.random.rand(200, 28, 28, 1).astype("float32")
        inputs = keras.Input(shape=images.shape)
        features = keras.layers.Conv2D(8, 3, padding="same")(inputs)
        """,
        expect="S01",
        must=("200", "shape[1:]"),
        must_not=("the strides", "channel axis", "expand_dims", "reshape the data"),
        fix="keras.Input(shape=images.shape[1:])",
    ),
    # Raises ValueError: Exception encountered when calling Normalization.call(). ... Dimensions
    # must be equal, but are 32 and 100 for '{{node sequential_1_1/normalization_1/Sub}} =
    # Sub[T=DT_FLOAT](data, sequential_1_1/normalization_1/Sub/y)' with input shapes: [32,5], [10
    Case(
        name="normalization_axis_zero_learns_per_sample",
        family=FAMILY,
        code="""
        x = np.random.rand(100, 5).astype("float32")
        norm = keras.layers.Normalization(axis=0)
        norm.adapt(x)
        model = keras.Sequential([keras.Input((5,)), norm, keras.layers.Dense(1)])
        model.predict(x, batch_size=32, verbose=0)
        """,
        expect="S01",
        must=("normalization", "axis"),
        must_not=("the strides", "flatten", "labels", "tf.shape(x)[0]"),
        fix="Normalization(axis=-1): one mean per feature",
    ),
    # Raises ValueError: Exception encountered when calling Normalization.call(). ... Dimensions
    # must be equal, but are 5 and 300 for '{{node sequential_7_1/normalization_1_1/Sub}} =
    # Sub[T=DT_FLOAT](data, sequential_7_1/normalization_1_1/Sub/y)' with input shapes: [8,5], [
    Case(
        name="normalization_adapted_on_transposed_table",
        family=FAMILY,
        code="""
        table = np.random.rand(5, 300).astype("float32")  # features x rows, as read from a CSV
        norm = keras.layers.Normalization()
        norm.adapt(table)
        model = keras.Sequential([keras.Input((5,)), norm, keras.layers.Dense(1)])
        model.predict(np.random.rand(8, 5).astype("float32"), verbose=0)
        """,
        expect="S01",
        must=("normalization", "300"),
        must_not=("the strides", "flatten", "labels", "padding"),
        fix="adapt on rows x features: norm.adapt(table.T)",
    ),
    # Raises ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 1) for variable path='dense_11/kernel'
    Case(
        name="text_vectorization_without_sequence_length_then_flatten",
        family=FAMILY,
        code="""
        texts = np.array(["a good movie", "a bad film that drags on", "fine"])
        vectorize = keras.layers.TextVectorization(max_tokens=50, output_mode="int")
        vectorize.adapt(texts)
        inputs = keras.Input(shape=(1,), dtype="string")
        tokens = vectorize(inputs)
        embedded = keras.layers.Embedding(50, 8)(tokens)
        flat = keras.layers.Flatten()(embedded)
        out = keras.layers.Dense(1, activation="sigmoid")(flat)
        """,
        expect="S01",
        must=("flatten", "length"),
        must_not=("the strides", "input_dim", "batch the dataset"),
        fix="TextVectorization(output_sequence_length=N), or GlobalAveragePooling1D instead of Flatten",
    ),
    # Raises ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 14, 14, 64), (None, 15, 15, 32)]
    Case(
        name="unet_skip_after_odd_pooling",
        family=FAMILY,
        code="""
        inputs = keras.Input((30, 30, 1))
        c1 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
        p1 = keras.layers.MaxPooling2D(2)(c1)
        c2 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p1)
        p2 = keras.layers.MaxPooling2D(2)(c2)
        b = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(p2)
        u2 = keras.layers.UpSampling2D(2)(b)
        m2 = keras.layers.Concatenate()([u2, c2])
        """,
        expect="S01",
        must=("15", "14"),
        must_not=("channel", "flatten", "strides=2"),
        fix="an input size divisible by 4 (32x32), or crop/pad the skip",
    ),
    # Raises ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 28, 28, 1), output.shape=(None, 32, 32, 1)
    Case(
        name="autoencoder_pooling_ceil_overshoots_the_input",
        family=FAMILY,
        code="""
        x = np.random.rand(16, 28, 28, 1).astype("float32")
        inputs = keras.Input((28, 28, 1))
        h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
        h = keras.layers.MaxPooling2D(2, padding="same")(h)
        h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(h)
        h = keras.layers.MaxPooling2D(2, padding="same")(h)
        h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(h)
        h = keras.layers.MaxPooling2D(2, padding="same")(h)
        h = keras.layers.UpSampling2D(2)(h)
        h = keras.layers.UpSampling2D(2)(h)
        h = keras.layers.UpSampling2D(2)(h)
        outputs = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(h)
        autoencoder = keras.Model(inputs, outputs)
        autoencoder.compile("adam", "binary_crossentropy")
        autoencoder.fit(x, x, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("28", "32"),
        must_not=("reshape the labels", "integer labels", "one-hot", "sparse", "channel"),
        fix="two poolings (28 -> 7 -> 28), or a Cropping2D(2) before the output",
    ),
    # Raises ValueError: Dimensions must be equal, but are 784 and 728 for '{{node
    # compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, sequential_8_1/dense_13_1/Sigmoid)' with
    # input shapes: [32,784], [32,728].
    Case(
        name="dense_autoencoder_output_width_typo",
        family=FAMILY,
        code="""
        x = np.random.rand(64, 784).astype("float32")
        autoencoder = keras.Sequential([
            keras.Input((784,)),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(728, activation="sigmoid"),
        ])
        autoencoder.compile("adam", "mse")
        autoencoder.fit(x, x, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("784", "728"),
        must_not=(
            "reshape the labels",
            "integer labels",
            "one-hot",
            "sparse",
            "the strides",
            "flatten",
        ),
        fix="the decoder's last Dense needs 784 units",
    ),
    # Raises ValueError: Dimensions must be equal, but are 28 and 31 for '{{node
    # compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1,
    # functional_12_1/conv2d_transpose_1_2/Sigmoid)' with input shapes: [?,28,28,1], [?,31,31,1].
    Case(
        name="transposed_conv_valid_decoder_overshoots",
        family=FAMILY,
        code="""
        x = np.random.rand(8, 28, 28, 1).astype("float32")
        inputs = keras.Input((28, 28, 1))
        h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inputs)
        h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(h)
        h = keras.layers.Conv2DTranspose(16, 3, strides=2, activation="relu")(h)
        outputs = keras.layers.Conv2DTranspose(1, 3, strides=2, activation="sigmoid")(h)
        ae = keras.Model(inputs, outputs)
        ae.compile("adam", "mse")
        ae.fit(x, x, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("28", "31"),
        must_not=("reshape the labels", "integer labels", "one-hot", "sparse"),
        fix='padding="same" on the Conv2DTranspose layers (7 -> 14 -> 28)',
    ),
    # Raises ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 15, 15, 16), (None, 16, 16, 3)]
    Case(
        name="branches_pooled_by_valid_stride_and_by_maxpool",
        family=FAMILY,
        code="""
        inputs = keras.Input((32, 32, 3))
        a = keras.layers.Conv2D(16, 3, strides=2)(inputs)
        b = keras.layers.MaxPooling2D(2)(inputs)
        merged = keras.layers.Concatenate()([a, b])
        """,
        expect="S01",
        must=("15", "16", "padding"),
        must_not=("flatten", "labels"),
        fix='padding="same" on the strided Conv2D (32 -> 16)',
    ),
    # Raises ValueError: Inputs have incompatible shapes. Received shapes (32, 32, 16) and (30,
    # 30, 16)
    Case(
        name="residual_block_with_one_valid_convolution",
        family=FAMILY,
        code="""
        inputs = keras.Input((32, 32, 16))
        h = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
        h = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(h)
        h = keras.layers.Conv2D(16, 3, activation="relu")(h)
        h = keras.layers.Conv2D(16, 3, padding="same")(h)
        out = keras.layers.Add()([inputs, h])
        """,
        expect="S01",
        must=("30", "valid"),
        must_not=("the strides", "strides=", "channel", "flatten"),
        fix='padding="same" on the third Conv2D (the only valid one)',
    ),
    # Raises ValueError: Exception encountered when calling Sequential.call(). ... Input 0 with
    # name 'None' of layer 'dense_14' is incompatible with the layer: expected axis -1 of input
    # shape to have value 6272, but received input with shape (4, 8192)
    Case(
        name="same_padding_cnn_fed_larger_images",
        family=FAMILY,
        code="""
        model = keras.Sequential([
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(10, activation="softmax"),
        ])
        model.build((None, 28, 28, 1))
        scans = np.random.rand(4, 32, 32, 1).astype("float32")
        model.predict(scans, verbose=0)
        """,
        expect="S01",
        must=("28", "32"),
        must_not=("the strides", "channel"),
        fix="resize the images to 28x28 (or build the model for 32x32)",
    ),
    # Raises TypeError: Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(4, 28, 28, 1), dtype=tf.float32, name=None) to TensorSpec(shape=(None, 28,
    # 28), dtype=tf.float32, name=None)`. Received args: (array([[[[0.],
    Case(
        name="tf_function_signature_without_the_channel_axis",
        family=FAMILY,
        code="""
        @tf.function(input_signature=[tf.TensorSpec([None, 28, 28], tf.float32)])
        def brightness(batch):
            return tf.reduce_mean(batch, axis=[1, 2])

        brightness(np.zeros((4, 28, 28, 1), dtype="float32"))
        """,
        expect="S12",
        must=("input_signature", "28, 28, 1"),
        must_not=("the strides", "retrac", "astype"),
        fix="declare TensorSpec([None, 28, 28, 1]) or squeeze the channel axis",
    ),
    # Raises ValueError: Exception encountered when calling Reshape.call(). ... The total size of
    # the tensor must be unchanged. Received: input_shape=(512,), target_shape=(7, 7, 8)
    Case(
        name="reshape_to_a_grid_from_the_wrong_pool_size",
        family=FAMILY,
        code="""
        inputs = keras.Input((30, 30, 3))
        h = keras.layers.Conv2D(8, 3, strides=2, padding="same")(inputs)
        h = keras.layers.Conv2D(8, 3, strides=2, padding="same")(h)
        flat = keras.layers.Flatten()(h)
        grid = keras.layers.Reshape((7, 7, 8))(flat)
        """,
        expect="S01",
        must=("8, 8", "reshape"),
        must_not=("channel", "labels"),
        fix="30 -> 15 -> 8 with same padding (ceil): Reshape((8, 8, 8))",
    ),
    # Raises ValueError: Dimensions must be equal, but are 50 and 42 for '{{node
    # compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, sequential_10_1/conv1d_1_2/Add)' with input
    # shapes: [32,50,1], [32,42,1].
    Case(
        name="sequence_windows_padded_differently_from_the_input",
        family=FAMILY,
        code="""
        x = np.random.rand(32, 50, 3).astype("float32")
        y = np.random.rand(32, 50, 1).astype("float32")
        model = keras.Sequential([
            keras.Input((50, 3)),
            keras.layers.Conv1D(16, 5, activation="relu"),
            keras.layers.Conv1D(1, 5),
        ])
        model.compile("adam", "mse")
        model.fit(x, y, epochs=1, verbose=0)
        """,
        expect="S07",
        must=("50", "42"),
        must_not=("the strides", "one-hot", "sparse"),
        fix='padding="same" on both Conv1D layers, so 50 steps in give 50 out',
    ),
    # Raises InvalidArgumentError: {{function_node
    # __wrapped__BroadcastTo_device_/job:localhost/replica:0/task:0/device:CPU:0}} Unable to
    # broadcast tensor of shape [1,1,1,3] to tensor of shape [1,1,1,1] [Op:BroadcastTo]
    Case(
        name="imagenet_normalization_on_grayscale_images",
        family=FAMILY,
        code="""
        norm = keras.layers.Normalization(
            mean=[0.485, 0.456, 0.406], variance=[0.229**2, 0.224**2, 0.225**2])
        xray = keras.Input((64, 64, 1))
        scaled = norm(xray)
        """,
        expect="S01",
        must=("normalization", "3"),
        must_not=("the strides", "flatten", "padding"),
        fix="one-channel statistics, or tf.image.grayscale_to_rgb before the layer",
    ),
    # Raises ValueError: Exception encountered when calling Cropping2D.call(). ... Values in
    # `cropping` argument should be smaller than the corresponding spatial dimension of the input.
    # Received: input_shape=(None, 28, 28, 1), cropping=((16, 16), (16, 16))
    Case(
        name="cropping_sized_for_larger_images",
        family=FAMILY,
        code="""
        inputs = keras.Input((28, 28, 1))
        center = keras.layers.Cropping2D(cropping=16)(inputs)
        """,
        expect=None,
        must_not=("the strides", "flatten"),
        unexplained="Keras says the cropping must be smaller than the input's spatial size and shows both",
        fix="cropping below 14 per side for 28x28 inputs",
    ),
]
