"""Family: the size arithmetic of convolution, pooling, upsampling and reshape stacks.

The APIs and their documented contract (Keras 3, ``keras.layers``):

- ``Conv1D/Conv2D/Conv3D(filters, kernel_size, strides=1, padding="valid",
  data_format=None, dilation_rate=1)`` take inputs of rank 3/4/5: ``(batch, steps,
  channels)``, ``(batch, H, W, channels)``, ``(batch, D, H, W, channels)`` with the
  default ``data_format="channels_last"`` (channel axis first after the batch with
  ``"channels_first"``).  A grayscale image needs its channel axis of 1 in the
  ``Input`` shape: ``Input((28, 28, 1))``, not ``Input((28, 28))`` ("expected
  min_ndim=4, found ndim=3").  ``strides > 1`` together with ``dilation_rate > 1`` is
  refused.
- Output size per spatial axis: ``padding="valid"``:
  ``floor((n - dilation*(k-1) - 1) / s) + 1``; ``padding="same"``: ``ceil(n / s)``.
  ``MaxPooling*/AveragePooling*(pool_size=2, strides=None -> pool_size,
  padding="valid")`` use the same rule, so an odd size loses a row (25 -> 12).  Each
  valid conv/pool stage shrinks the map; once a size reaches zero or below Keras raises
  "Computed output size would be zero or negative" at the layer that cannot fit.
- ``UpSampling2D(size=2)`` multiplies sizes (12 -> 24);
  ``Conv2DTranspose(filters, k, strides=s, padding="valid")`` gives
  ``(n - 1)*s + k`` (``n*s`` with ``"same"``; ``output_padding`` adjusts).  An encoder /
  decoder or U-Net only returns to the input size when every downsampling step divided
  evenly; otherwise a skip ``Concatenate`` (matching shapes except the concat axis)
  fails, or the reconstruction loss fails on ``(28, 28)`` vs ``(27, 27)``.
- ``Flatten()`` keeps the batch axis and multiplies the rest; ``Reshape(target_shape)``
  takes the shape of ONE example (the batch axis is never included) and needs the same
  number of elements (one ``-1`` may be inferred): ``128`` values cannot become
  ``(7, 7, 3)`` = 147 ("The total size of the tensor must be unchanged");
  ``Permute(dims)`` numbers axes from 1 (the batch axis is not permuted).
- ``GlobalAveragePooling*/GlobalMaxPooling*`` drop the spatial axes (rank 2 out).

Evidence a diagnosis needs: the shape table of the stack up to the failing layer (the
size each conv/pool/upsample stage produced, with its kernel, strides, padding), the
input's rank and where its channel axis is, the element count before and after a
``Reshape`` (and the batch size when the target includes it), both shapes at a
``Concatenate`` or loss and the stage where they diverged (odd size floored).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "conv_and_reshape_arithmetic"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv2d_N' is incompatible with the layer:
    # expected min_ndim=4, found ndim=3. Full shape received: (None, 28, 28)
    Case(
        name="f20_grayscale_input_shape_without_channel",
        family=FAMILY,
        code="""
x = np.random.rand(16, 28, 28).astype("float32")
y = np.random.randint(0, 10, 16)
model = keras.Sequential([
    keras.Input(shape=x.shape[1:]),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("channel",),
        must_not=("return_sequences",),
        fix="Input((28, 28, 1)) and x[..., None]",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 1, 1, 64)`, `kernel shape=(3, 3, 64, 128)`, ... `padding=valid`.
    Case(
        name="f20_five_conv_pool_blocks_on_28_pixels",
        family=FAMILY,
        code="""
layers = [keras.Input((28, 28, 1))]
for filters in (16, 32, 64, 128, 256):
    layers.append(keras.layers.Conv2D(filters, 3, activation="relu"))
    layers.append(keras.layers.MaxPooling2D(2))
layers += [keras.layers.Flatten(), keras.layers.Dense(10, activation="softmax")]
model = keras.Sequential(layers)
""",
        expect="S01",
        must=("padding",),
        must_not=("expand_dims",),
        fix="padding='same' in the convs, or fewer pooling blocks",
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    # (The total size of the tensor must be unchanged. Received: input_shape=(128,),
    # target_shape=(7, 7, 3))
    Case(
        name="f20_generator_dense_128_reshaped_to_7x7x3",
        family=FAMILY,
        code="""
latent = keras.Input((100,))
h = keras.layers.Dense(128, activation="relu")(latent)
h = keras.layers.Reshape((7, 7, 3))(h)
h = keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(h)
img = keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid")(h)
generator = keras.Model(latent, img)
""",
        expect="S01",
        must=("147",),
        must_not=("Flatten",),
        fix="Dense(7 * 7 * 3) before the Reshape",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 24, 24, 16), (None, 25, 25, 8)]
    Case(
        name="f20_unet_skip_on_odd_25_pixel_input",
        family=FAMILY,
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
        must=("24", "25"),
        must_not=("strides=2",),
        fix="an input size divisible by 2 (24 or 32), or crop/pad the skip",
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    # (The total size of the tensor must be unchanged. Received: input_shape=(784,),
    # target_shape=(32, 28, 28, 1))
    Case(
        name="f20_reshape_target_with_batch_size",
        family=FAMILY,
        code="""
batch_size = 32
x = np.random.rand(batch_size * 4, 784).astype("float32")
model = keras.Sequential([
    keras.Input((784,)),
    keras.layers.Reshape((batch_size, 28, 28, 1)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        expect="S01",
        must=("batch",),
        must_not=("Flatten",),
        fix="Reshape((28, 28, 1))",
    ),
    # ValueError: `strides > 1` not supported in conjunction with `dilation_rate > 1`.
    # Received: strides=(2, 2) and dilation_rate=(2, 2)
    Case(
        name="f20_atrous_conv_with_stride_two",
        family=FAMILY,
        code="""
inp = keras.Input((64, 64, 3))
h = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inp)
h = keras.layers.Conv2D(32, 3, strides=2, dilation_rate=2, padding="same", activation="relu")(h)
model = keras.Model(inp, keras.layers.GlobalAveragePooling2D()(h))
""",
        expect=None,
        must_not=("channel",),
        unexplained="the message says strides > 1 cannot be combined with dilation_rate > 1 and "
        "shows both values",
        fix="strides=1 with the dilation, then a separate pooling/strided layer",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 ... of layer 'conv2d_N' is incompatible with the layer: expected axis -1 of
    # input shape to have value 3, but received input with shape (4, 3, 32, 32))
    Case(
        name="f20_channels_first_batch_into_channels_last_model",
        family=FAMILY,
        code="""
images = np.random.rand(4, 3, 32, 32).astype("float32")
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2, activation="softmax"),
])
probs = model.predict(images, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("expand_dims",),
        fix="np.transpose(images, (0, 2, 3, 1))",
    ),
    # ValueError: Dimensions must be equal, but are 28 and 27 for '{{node
    # compile_loss/mse/sub}} = Sub[T=DT_FLOAT](data_1, ...)' with input shapes:
    # [?,28,28,1], [?,27,27,1].
    Case(
        name="f20_autoencoder_valid_strides_rebuild_27",
        family=FAMILY,
        code="""
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(8, 3, strides=2, activation="relu")(inp)
h = keras.layers.Conv2D(16, 3, strides=2, activation="relu")(h)
h = keras.layers.Conv2DTranspose(16, 3, strides=2, activation="relu")(h)
out = keras.layers.Conv2DTranspose(1, 3, strides=2, activation="sigmoid")(h)
autoencoder = keras.Model(inp, out)
autoencoder.compile(optimizer="adam", loss="mse")
images = np.random.rand(8, 28, 28, 1).astype("float32")
autoencoder.fit(images, images, epochs=1, verbose=0)
""",
        expect="S07",
        must=("padding",),
        must_not=("reshape the labels",),
        fix="padding='same' in the strided convs and transposed convs",
    ),
]
