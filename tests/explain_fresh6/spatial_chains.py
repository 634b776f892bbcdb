"""Family ``spatial_chains``: a size made wrong by the arithmetic of a chain of layers.

APIs: ``Conv1D``/``Conv2D``/``Conv3D`` (``strides``, ``padding``,
``dilation_rate``), ``MaxPooling*``/``AveragePooling*`` (``pool_size``,
``strides`` defaulting to ``pool_size``, ``padding="valid"`` by default),
``UpSampling*``, ``Conv*DTranspose``, ``Cropping*``/``ZeroPadding*``, and the
layers that need sizes to agree (``Concatenate``, ``Add``, a ``Dense`` built on
a flattened size, a loss comparing the output with the target).

Documented contract, per spatial axis of size ``n``:

- convolution / pooling with ``padding="valid"``:
  ``floor((n - (k - 1) * d - 1) / s) + 1`` (``k`` kernel or pool size, ``d``
  dilation, ``s`` stride); it raises when the result would be below 1;
- with ``padding="same"``: ``ceil(n / s)``, so an odd size rounds up when
  halved, and ``n`` comes back only if it is divisible by the product of the
  strides on the way down;
- ``UpSampling`` by ``u``: ``n * u``; ``Conv*DTranspose`` with ``"same"``:
  ``n * s``; with ``"valid"``: ``(n - 1) * s + k``;
- ``Cropping``/``ZeroPadding``: ``n - a - b`` / ``n + a + b``;
- ``Flatten`` then ``Dense``: the Dense kernel is built for one flattened size,
  which fixes the input resolution.

Evidence a diagnosis needs: the size at each layer of the path (from the input
to the layer or loss that failed, and along each branch that meets there),
with each layer's kernel, stride, pool and padding, and the input size the
chain would need (a multiple of the total stride, the size a head was built
for).  When every layer on the path is ``padding="same"``, padding advice is
wrong: the fix is the input size (or the number of down/up steps).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # Raises ValueError: Dimensions must be equal, but are 100 and 104 for '{{node
    # compile_loss/mse/sub}} ...' with input shapes: [32,100,1], [32,104,1].
    Case(
        name="conv1d_autoencoder_all_same_padding_on_100_step_windows",
        family="spatial_chains",
        code="""
windows = np.random.rand(32, 100, 1).astype("float32")
model = keras.Sequential([
    keras.Input((100, 1)),
    keras.layers.Conv1D(16, 5, padding="same", activation="relu"),
    keras.layers.MaxPooling1D(2, padding="same"),
    keras.layers.Conv1D(8, 5, padding="same", activation="relu"),
    keras.layers.MaxPooling1D(2, padding="same"),
    keras.layers.Conv1D(8, 5, padding="same", activation="relu"),
    keras.layers.MaxPooling1D(2, padding="same"),
    keras.layers.Conv1D(8, 5, padding="same", activation="relu"),
    keras.layers.UpSampling1D(2),
    keras.layers.Conv1D(8, 5, padding="same", activation="relu"),
    keras.layers.UpSampling1D(2),
    keras.layers.Conv1D(16, 5, padding="same", activation="relu"),
    keras.layers.UpSampling1D(2),
    keras.layers.Conv1D(1, 5, padding="same"),
])
model.compile(optimizer="adam", loss="mse")
model.fit(windows, windows, epochs=1, verbose=0)
""",
        expect="S07",
        must=("divisible",),
        must_not=('padding="same"', "padding='same'", "valid padding"),
        fix="windows of a multiple of 8 steps (e.g. 104), or crop the output to 100",
    ),
    # Raises ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 1, 64)`, `kernel shape=(5, 64, 64)`, ...
    Case(
        name="text_cnn_with_pools_of_five_on_50_token_reviews",
        family="spatial_chains",
        code="""
tokens = np.random.randint(1, 5000, (16, 50))
labels = np.random.randint(0, 2, (16, 1))
inputs = keras.Input((50,), dtype="int64")
x = keras.layers.Embedding(5000, 32)(inputs)
x = keras.layers.Conv1D(64, 5, activation="relu")(x)
x = keras.layers.MaxPooling1D(5)(x)
x = keras.layers.Conv1D(64, 5, activation="relu")(x)
x = keras.layers.MaxPooling1D(5)(x)
x = keras.layers.Conv1D(64, 5, activation="relu")(x)
x = keras.layers.GlobalMaxPooling1D()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("pool",),
        must_not=("expand_dims", "batch size"),
        fix="smaller pools (MaxPooling1D(2)) or longer sequences for 50 tokens",
    ),
    # Raises InvalidArgumentError: ConcatOp : Dimension 1 in both shapes must be equal: shape[0] =
    # [8,64,64,3] vs. shape[1] = [8,32,32,3] [Op:ConcatV2]
    Case(
        name="dcgan_generator_with_a_third_upsampling_for_cifar",
        family="spatial_chains",
        code="""
generator = keras.Sequential([
    keras.Input((64,)),
    keras.layers.Dense(8 * 8 * 64),
    keras.layers.Reshape((8, 8, 64)),
    keras.layers.Conv2DTranspose(64, 4, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(32, 4, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(3, 4, strides=2, padding="same", activation="tanh"),
])
real_images = np.random.uniform(-1, 1, (8, 32, 32, 3)).astype("float32")
noise = tf.random.normal((8, 64))
fake_images = generator(noise)
combined = tf.concat([fake_images, real_images], axis=0)
""",
        expect="S07",
        must=("stride",),
        must_not=('padding="same"', "padding='same'", "valid padding"),
        fix="two stride-2 Conv2DTranspose from an 8x8 seed (or a 4x4 seed) for 32x32 images",
    ),
    # Raises InvalidArgumentError: Graph execution error: Detected at node
    # sequential_1/dense_1/BiasAdd ... Matrix size-incompatible: In[0]: [8,16384], In[1]: [4096,10]
    Case(
        name="cnn_built_on_32_pixel_thumbnails_then_fit_on_64",
        family="spatial_chains",
        code="""
model = keras.Sequential([
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
thumbs = np.random.rand(8, 32, 32, 3).astype("float32")
model.fit(thumbs, np.random.randint(0, 10, 8), epochs=1, verbose=0)
photos = np.random.rand(8, 64, 64, 3).astype("float32")
model.fit(photos, np.random.randint(0, 10, 8), epochs=1, verbose=0)
""",
        expect="S01",
        must=("resiz",),
        must_not=("sparse", "batch size"),
        fix="resize the images to 32x32, or GlobalAveragePooling2D instead of Flatten",
    ),
    # Raises ValueError: Dimensions must be equal, but are 33 and 21 for '{{node
    # compile_loss/mse/sub}} ...' with input shapes: [?,33,33,1], [?,21,21,1].
    Case(
        name="srcnn_valid_convolutions_against_full_size_targets",
        family="spatial_chains",
        code="""
low_res = np.random.rand(8, 33, 33, 1).astype("float32")
high_res = np.random.rand(8, 33, 33, 1).astype("float32")
srcnn = keras.Sequential([
    keras.Input((33, 33, 1)),
    keras.layers.Conv2D(64, 9, activation="relu"),
    keras.layers.Conv2D(32, 1, activation="relu"),
    keras.layers.Conv2D(1, 5),
])
srcnn.compile(optimizer="adam", loss="mse")
srcnn.fit(low_res, high_res, epochs=1, verbose=0)
""",
        expect="S07",
        must=("crop",),
        must_not=("reshape", "flatten"),
        fix="crop the targets by 6 pixels per side (21x21), or padding='same'",
    ),
    # Raises ValueError: Exception encountered when calling MaxPooling3D.call(). Computed output
    # size would be zero or negative. Received: `inputs.shape=[None 1 4 4 32]`, `pool_size=[2 2 2]`,
    # ...
    Case(
        name="video_conv3d_pools_away_the_eight_frame_axis",
        family="spatial_chains",
        code="""
clips = np.random.rand(4, 8, 32, 32, 3).astype("float32")
model = keras.Sequential([
    keras.Input((8, 32, 32, 3)),
    keras.layers.Conv3D(8, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling3D(2),
    keras.layers.Conv3D(16, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling3D(2),
    keras.layers.Conv3D(32, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling3D(2),
    keras.layers.Conv3D(32, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling3D(2),
    keras.layers.GlobalAveragePooling3D(),
    keras.layers.Dense(5, activation="softmax"),
])
""",
        expect="S01",
        must=("(1, 2, 2)",),
        must_not=("batch size",),
        fix="pool only the spatial axes in the later blocks: MaxPooling3D((1, 2, 2))",
    ),
    # Raises ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 50, 50, 16), (None, 51, 51, 16)]
    Case(
        name="unet_on_101_pixel_salt_masks_padded_only_to_102",
        family="spatial_chains",
        code="""
def conv_block(x, filters):
    x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    return keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)

inputs = keras.Input((101, 101, 1))
x = keras.layers.ZeroPadding2D(((0, 1), (0, 1)))(inputs)
c1 = conv_block(x, 8)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = conv_block(p1, 16)
p2 = keras.layers.MaxPooling2D()(c2)
bottom = conv_block(p2, 32)
u2 = keras.layers.Conv2DTranspose(16, 2, strides=2, padding="same")(bottom)
d2 = conv_block(keras.layers.Concatenate()([u2, c2]), 16)
u1 = keras.layers.Conv2DTranspose(8, 2, strides=2, padding="same")(d2)
d1 = conv_block(keras.layers.Concatenate()([u1, c1]), 8)
d1 = keras.layers.Cropping2D(((0, 1), (0, 1)))(d1)
outputs = keras.layers.Conv2D(1, 1, activation="sigmoid")(d1)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("divisible",),
        must_not=('padding="same"', "padding='same'"),
        fix="pad 101 to 104 (a multiple of 4 for two poolings) and crop 3 pixels back",
    ),
    # Raises ValueError: Input 0 with name 'input_layer_1' of layer 'functional_1' is incompatible
    # with the layer: expected shape=(None, 96, 96, 3), found shape=(2, 128, 128, 3)
    Case(
        name="transfer_model_with_fixed_input_fed_full_size_photos",
        family="spatial_chains",
        code="""
base = keras.Sequential([
    keras.Input((96, 96, 3)),
    keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu"),
], name="backbone")
base.trainable = False
inputs = keras.Input((96, 96, 3))
x = base(inputs, training=False)
x = keras.layers.GlobalAveragePooling2D()(x)
outputs = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(inputs, outputs)
photos = np.random.rand(2, 128, 128, 3).astype("float32")
model.predict(photos, verbose=0)
""",
        expect=None,
        unexplained=(
            "Keras names the expected input shape (None, 96, 96, 3) and the 128x128 shape "
            "it got: resize the photos to 96x96"
        ),
        fix="resize the photos to 96x96",
    ),
]
