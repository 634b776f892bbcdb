"""Family: the size arithmetic of convolution, pooling and reshaping stacks.

The APIs and their documented contract:

- ``Conv1D``/``Conv2D``/``Conv3D(filters, kernel_size, strides=1, padding="valid",
  data_format=None, dilation_rate=1)`` take inputs of rank 3/4/5: ``(batch, steps,
  channels)``, ``(batch, height, width, channels)``, ``(batch, depth, height, width,
  channels)`` with the default ``data_format="channels_last"``
  (``keras.config.image_data_format()``), the channel axis first with
  ``"channels_first"``.  A grayscale image set of shape ``(N, 28, 28)`` or a univariate series
  ``(N, 100)`` lacks the channel axis ("expected min_ndim=4, found ndim=3"); data laid out
  channels-first (PyTorch's ``(N, 3, 32, 32)``) read as channels-last has height 3 and 32
  channels.  ``strides > 1`` together with ``dilation_rate > 1`` is rejected.
- Output size along each spatial axis, with ``k_eff = dilation_rate * (kernel - 1) + 1``:
  ``padding="valid"``: ``floor((n - k_eff) / s) + 1``, which must stay >= 1 ("Computed
  output size would be zero or negative"); ``padding="same"``: ``ceil(n / s)``.
- ``MaxPooling*``/``AveragePooling*(pool_size=2, strides=None, padding="valid")``: strides
  default to ``pool_size``, so each pooling floors the size (``25 -> 12``);
  ``Global*Pooling*`` removes the spatial axes (rank 4 -> 2).
- ``Conv2DTranspose(filters, kernel_size, strides, padding)``: ``"same"`` gives ``n * s``,
  ``"valid"`` gives ``(n - 1) * s + k``; ``UpSampling2D(size)`` gives ``n * size``.  A
  decoder inverts the encoder's sizes only when every downsampling step divided exactly: an
  odd size rounded up by ``"same"`` (``7 -> 4``) comes back doubled (``4 -> 8 -> 16 -> 32``),
  and a skip connection across a floored pooling meets a size one smaller.
- ``Flatten`` keeps the batch axis and multiplies the rest; ``Reshape(target_shape)`` (batch
  axis excluded) requires the same number of elements, ``prod(target_shape) ==
  prod(input_shape[1:])`` (one ``-1`` allowed); ``Dense`` outputs rank 2, so a
  ``Conv2D``/``Conv2DTranspose`` after a ``Dense`` needs a ``Reshape((h, w, c))`` first.
  ``Permute(dims)`` permutes the non-batch axes, numbered from 1.
- ``Concatenate(axis=-1)`` needs equal sizes on every other axis; a loss such as ``mse``
  needs ``y_pred`` with the shape of ``y_true`` (an autoencoder's output with its input's).

Evidence a diagnosis needs: the size after every layer of the path (the shape trace), the
layer where a size reached zero or a mismatch appeared and the layer that introduced it (a
pooling that floored an odd size, a ``"same"`` stride that rounded up, a missing
``Reshape``), the element counts on both sides of a ``Reshape``, the rank and channel axis
of the data against the layer's expected rank, and which padding/strides are actually in
place (so the hint changes something that exists).
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Computed output size would be zero or negative. Received `inputs shape=(None, 1, 1, 128)`, `kernel shape=(3, 3, 128, 256)`, `dilation_rate=[1 1]`, `strides=(1, 1)`, `padding=valid`.
    Case(
        name="f21_five_conv_pool_blocks_on_mnist",
        family="conv_and_reshape_arithmetic",
        code="""
model = keras.Sequential([keras.Input((28, 28, 1))])
for filters in [32, 64, 128, 256, 512]:
    model.add(keras.layers.Conv2D(filters, 3, activation="relu"))
    model.add(keras.layers.MaxPooling2D(2))
model.add(keras.layers.Flatten())
model.add(keras.layers.Dense(10, activation="softmax"))
""",
        expect="S01",
        must=("same",),
        must_not=("batch axis",),
        fix='padding="same" in the convolutions, or fewer conv/pool blocks for 28x28 input',
    ),
    # ValueError: Exception encountered when calling Reshape.call(). (The total size of the tensor must be unchanged. Received: input_shape=(100,), target_shape=(8, 8, 2))
    Case(
        name="f21_dense_100_reshaped_to_8x8x2",
        family="conv_and_reshape_arithmetic",
        code="""
latent = keras.Input((16,))
h = keras.layers.Dense(100, activation="relu")(latent)
h = keras.layers.Reshape((8, 8, 2))(h)
out = keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same")(h)
decoder = keras.Model(latent, out)
""",
        expect="S01",
        must=("128",),
        must_not=("padding",),
        fix="Dense(8 * 8 * 2) before Reshape((8, 8, 2))",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape received: (None, 28, 28)
    Case(
        name="f21_grayscale_input_without_channel_axis",
        family="conv_and_reshape_arithmetic",
        code="""
x = np.random.rand(32, 28, 28).astype("float32")
y = np.random.randint(0, 10, 32)
model = keras.Sequential([
    keras.Input(shape=x.shape[1:]),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("channel",),
        must_not=("batch axis",),
        fix="x = x[..., None] and keras.Input((28, 28, 1))",
    ),
    # ValueError: Exception encountered when calling MaxPooling2D.call(). (Computed output size would be zero or negative. Received: `inputs.shape=[None 1 30 32]`, `pool_size=[2 2]`, `strides=(2, 2)`, `padding=valid`.)
    Case(
        name="f21_pytorch_channels_first_images",
        family="conv_and_reshape_arithmetic",
        code="""
x = np.random.rand(16, 3, 32, 32).astype("float32")   # images exported from PyTorch
y = np.random.randint(0, 10, 16)
model = keras.Sequential([
    keras.Input(x.shape[1:]),
    keras.layers.Conv2D(32, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(64, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("channels_first",),
        must_not=("padding='same'", 'padding="same"'),
        fix="x = np.transpose(x, (0, 2, 3, 1)) to channels-last (Input((32, 32, 3)))",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 24, 24, 16), (None, 25, 25, 8)]
    Case(
        name="f21_unet_skip_on_odd_25px_input",
        family="conv_and_reshape_arithmetic",
        code="""
inp = keras.Input((25, 25, 3))
c1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
p1 = keras.layers.MaxPooling2D(2)(c1)
c2 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(p1)
u1 = keras.layers.UpSampling2D(2)(c2)
merged = keras.layers.Concatenate()([u1, c1])
out = keras.layers.Conv2D(1, 1, activation="sigmoid")(merged)
unet = keras.Model(inp, out)
""",
        expect="S01",
        must=("pool",),
        must_not=("strides=2",),
        fix="an input size divisible by 2 (e.g. 24 or 32), or crop/pad the skip branch",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d_transpose' is incompatible with the layer: expected min_ndim=4, found ndim=2. Full shape received: (None, 3136)
    Case(
        name="f21_gan_generator_missing_reshape",
        family="conv_and_reshape_arithmetic",
        code="""
noise = keras.Input((100,))
h = keras.layers.Dense(7 * 7 * 64, activation="relu")(noise)
h = keras.layers.Conv2DTranspose(32, 4, strides=2, padding="same", activation="relu")(h)
img = keras.layers.Conv2DTranspose(1, 4, strides=2, padding="same",
                                   activation="sigmoid")(h)
generator = keras.Model(noise, img)
""",
        expect="S01",
        must=("reshape",),
        must_not=("flatten",),
        fix="keras.layers.Reshape((7, 7, 64)) after the Dense",
    ),
    # ValueError: Dimensions must be equal, but are 28 and 32 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, functional_1/conv2d_transpose_2_1/Sigmoid)' with input shapes: [8,28,28,1], [8,32,32,1].
    Case(
        name="f21_autoencoder_decodes_28_to_32",
        family="conv_and_reshape_arithmetic",
        code="""
x = np.random.rand(16, 28, 28, 1).astype("float32")
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
h = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(h)
out = keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid")(h)
autoencoder = keras.Model(inp, out)
autoencoder.compile(optimizer="adam", loss="mse")
autoencoder.fit(x, x, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("32",),
        must_not=("batch size",),
        fix="two stride-2 stages for 28x28 (28->14->7->14->28), or Cropping2D(2) at the end",
    ),
    # ValueError: Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must be consecutive and start from 1. Received dims=(0, 2, 1)
    Case(
        name="f21_permute_counts_batch_axis",
        family="conv_and_reshape_arithmetic",
        code="""
inp = keras.Input((10, 64))
h = keras.layers.Permute((0, 2, 1))(inp)
h = keras.layers.Conv1D(8, 3, activation="relu")(h)
""",
        expect=None,
        must_not=("padding",),
        unexplained="Keras says the dims of Permute must start from 1 (the batch axis is not "
        "counted) and shows the dims it received.",
        fix="keras.layers.Permute((2, 1))",
    ),
]
