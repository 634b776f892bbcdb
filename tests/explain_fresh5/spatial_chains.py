"""Spatial chains: a size that is wrong because of the arithmetic of a conv/pool/upsample chain.

API: ``keras.layers.Conv1D/Conv2D`` (``strides``, ``padding``), ``MaxPooling1D/2D``,
``UpSampling2D``, ``Conv2DTranspose`` (``output_padding``), ``Cropping2D``, ``Reshape``,
``Concatenate``, and a loss comparing the output with a target of the input's size.

Documented contract (Keras 3 docstrings of those layers):

* a convolution or pooling with ``padding="valid"`` gives
  ``floor((size - kernel) / stride) + 1`` and raises "Computed output size would be zero or
  negative" when the map is smaller than the window; with ``padding="same"`` it gives
  ``floor((size - 1) / stride) + 1``, i.e. ``ceil(size / stride)``: an odd size halved
  by a stride-2 layer is rounded UP (7 -> 4), and doubling it back gives 8, not 7;
* ``UpSampling2D`` multiplies by ``size`` exactly; ``Conv2DTranspose`` gives
  ``size * stride`` with ``padding="same"`` and ``(size - 1) * stride + kernel`` with
  ``"valid"``, plus ``output_padding``, "the amount of padding along the height and width of
  the output tensor ... must be lower than the stride";
* ``Cropping2D(cropping=n)`` removes ``n`` rows at the top AND ``n`` at the bottom (an int is
  "the same symmetric cropping ... applied to height and width");
* ``Concatenate`` "requires inputs with matching shapes except for the concatenation axis";
  a loss requires ``target`` and ``output`` of the same shape; ``Reshape`` keeps the total size.

Evidence a diagnosis needs: the size along the failing axis at each layer of the path from
the input (or from both branches to the merge), with each layer's kernel, stride, pool size
and padding, so that the layer where the size went off (an odd size rounded by a stride or a
pooling, a "valid" window shrinking the map, a transposed conv without stride or without
``output_padding``, a crop counted twice) is named, and so that the hint does not tell the
user to change a padding or a stride that is already what it should be.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_SAME_PADDING_WRONG_ADVICE = (
    "check the padding",
    "use padding",
    "set padding",
    "change the padding",
)

CASES = [
    # ValueError: Dimensions must be equal, but are 28 and 32 for '{{node compile_loss/mse/sub}}
    #   ... with input shapes: [16,28,28,1], [16,32,32,1].
    Case(
        name="strided_conv_autoencoder_on_28_pixels_decodes_32",
        family="spatial_chains",
        code="""
x = np.random.rand(32, 28, 28, 1).astype("float32")
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
h = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(64, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(h)
out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(h)
autoencoder = keras.Model(inp, out)
autoencoder.compile(optimizer="adam", loss="mse")
autoencoder.fit(x, x, epochs=1, batch_size=16, verbose=0)
""",
        expect="S07",
        must=("odd",),
        must_not=_SAME_PADDING_WRONG_ADVICE + ("reshape the target", "reshape the label"),
        fix="7 is odd: crop the 32x32 output to 28 (Cropping2D(2)) or pad the input to 32",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    #   concatenation axis. Received: input_shape=[(None, 16, 16, 128), (None, 15, 15, 64)]
    Case(
        name="unet_with_strided_encoder_on_60_pixel_tiles",
        family="spatial_chains",
        code="""
inp = keras.Input((60, 60, 3))
c1 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inp)
d1 = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(c1)
d2 = keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(d1)
d3 = keras.layers.Conv2D(128, 3, strides=2, padding="same", activation="relu")(d2)
u2 = keras.layers.UpSampling2D()(d3)
u2 = keras.layers.Concatenate()([u2, d2])
u2 = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(u2)
""",
        expect="S01",
        must=("odd",),
        must_not=_SAME_PADDING_WRONG_ADVICE,
        fix="15 is odd (60/4): use tiles divisible by 8 (e.g. 64) or crop the upsampled map",
    ),
    # ValueError: Exception encountered when calling MaxPooling2D.call().
    #   Computed output size would be zero or negative. Received: `inputs.shape=[None 1 1 128]`,
    #   `pool_size=[2 2]`, `strides=(2, 2)`, `padding=valid`.
    Case(
        name="vgg_blocks_with_default_valid_convs_on_cifar",
        family="spatial_chains",
        code="""
inp = keras.Input((32, 32, 3))
h = inp
for filters in (32, 64, 128, 256):
    h = keras.layers.Conv2D(filters, 3, activation="relu")(h)
    h = keras.layers.Conv2D(filters, 3, activation="relu")(h)
    h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Flatten()(h)
out = keras.layers.Dense(10, activation="softmax")(h)
model = keras.Model(inp, out)
""",
        expect="S01",
        must=("same",),
        must_not=("batch axis", "add a batch"),
        fix='padding="same" in the 3x3 convolutions (each valid conv removes 2 pixels)',
    ),
    # ValueError: Computed output size would be zero or negative. Received
    #   `inputs shape=(None, 3, 128)`, `kernel shape=(5, 128, 128)`, ... `padding=valid`.
    Case(
        name="text_cnn_from_the_1000_token_example_on_20_tokens",
        family="spatial_chains",
        code="""
x = np.random.randint(1, 1000, (32, 20))
y = np.random.randint(0, 2, (32,))
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Embedding(1000, 64),
    keras.layers.Conv1D(128, 5, activation="relu"),
    keras.layers.MaxPooling1D(5),
    keras.layers.Conv1D(128, 5, activation="relu"),
    keras.layers.MaxPooling1D(5),
    keras.layers.Conv1D(128, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("pool",),
        must_not=("batch axis", "add a batch"),
        fix="20 tokens: 20 -> 16 -> 3 after MaxPooling1D(5); smaller pools or longer sequences",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    #   Received: target.shape=(None, 28, 28, 1), output.shape=(None, 7, 7, 1)
    Case(
        name="decoder_conv2d_transpose_without_strides",
        family="spatial_chains",
        code="""
images = np.random.rand(16, 28, 28, 1).astype("float32")
codes = np.random.randn(16, 8).astype("float32")
decoder = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(7 * 7 * 64, activation="relu"),
    keras.layers.Reshape((7, 7, 64)),
    keras.layers.Conv2DTranspose(64, 3, activation="relu", padding="same"),
    keras.layers.Conv2DTranspose(32, 3, activation="relu", padding="same"),
    keras.layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same"),
])
decoder.compile(optimizer="adam", loss="binary_crossentropy")
decoder.fit(codes, images, epochs=1, verbose=0)
""",
        expect="S07",
        must=("stride",),
        must_not=("reshape the target", "reshape the label", "flatten"),
        fix="strides=2 in two of the Conv2DTranspose layers (7 -> 14 -> 28)",
    ),
    # ValueError: Dimensions must be equal, but are 28 and 27 for '{{node compile_loss/mse/sub}}
    #   ... with input shapes: [?,28,28,1], [?,27,27,1].
    Case(
        name="transposed_mirror_of_a_valid_strided_encoder_lacks_output_padding",
        family="spatial_chains",
        code="""
x = np.random.rand(16, 28, 28, 1).astype("float32")
autoencoder = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(16, 3, strides=2, activation="relu"),
    keras.layers.Conv2D(32, 3, strides=2, activation="relu"),
    keras.layers.Conv2DTranspose(16, 3, strides=2, activation="relu"),
    keras.layers.Conv2DTranspose(1, 3, strides=2, activation="sigmoid"),
])
autoencoder.compile(optimizer="adam", loss="mse")
autoencoder.fit(x, x, epochs=1, verbose=0)
""",
        expect="S07",
        must=("output_padding",),
        must_not=("reshape the target", "reshape the label"),
        fix="output_padding=1 on the last Conv2DTranspose (13 -> 28 instead of 27)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    #   concatenation axis. Received: input_shape=[(None, 52, 52, 16), (None, 44, 44, 16)]
    Case(
        name="unet_skip_cropping_counted_as_the_total_difference",
        family="spatial_chains",
        code="""
inp = keras.Input((64, 64, 1))
c1 = keras.layers.Conv2D(16, 3, activation="relu")(inp)
c1 = keras.layers.Conv2D(16, 3, activation="relu")(c1)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(p1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(c2)
up = keras.layers.Conv2DTranspose(16, 2, strides=2)(c2)
crop = c1.shape[1] - up.shape[1]  # 60 - 52
skip = keras.layers.Cropping2D(cropping=crop)(c1)
merged = keras.layers.Concatenate()([up, skip])
""",
        expect="S01",
        must=("side",),
        must_not=("strides=2", "downsample"),
        fix="Cropping2D(cropping=4): an int crops that many rows on each side (60 - 2*4 = 52)",
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    #   The total size of the tensor must be unchanged. Received: input_shape=(6, 6, 128),
    #   target_shape=(2048,)
    Case(
        name="reshape_head_sized_for_64_pixel_inputs_fed_96",
        family="spatial_chains",
        code="""
images = np.random.rand(8, 96, 96, 3).astype("float32")
labels = np.random.randint(0, 5, (8,))
model = keras.Sequential([
    keras.Input((96, 96, 3)),
    keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(128, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(128, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Reshape((4 * 4 * 128,)),
    keras.layers.Dense(5, activation="softmax"),
])
""",
        expect="S01",
        must=("flatten",),
        must_not=("batch axis", "add a batch"),
        fix="96 / 16 = 6: Flatten() (or GlobalAveragePooling2D) instead of Reshape((4*4*128,))",
    ),
    # ValueError: Exception encountered when calling MaxPooling1D.call().
    #   Argument `padding` must be either 'valid' or 'same'. Received: padding=causal
    Case(
        name="causal_padding_copied_onto_the_pooling_layer",
        family="spatial_chains",
        code="""
model = keras.Sequential([
    keras.Input((50, 4)),
    keras.layers.Conv1D(16, 3, padding="causal", activation="relu"),
    keras.layers.MaxPooling1D(2, padding="causal"),
    keras.layers.Conv1D(32, 3, padding="causal", activation="relu"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
""",
        expect=None,
        unexplained=(
            "the message says `padding` must be either 'valid' or 'same' and shows "
            "padding=causal on MaxPooling1D: the fix is in the message"
        ),
        fix='padding="valid" or "same" on MaxPooling1D ("causal" is for Conv1D only)',
    ),
    # ValueError: `output_padding` must be strictly less than `strides` for all dimensions.
    #   At dimension 0, `output_padding` is 2 but `strides` is 2. ...
    Case(
        name="output_padding_as_large_as_the_stride",
        family="spatial_chains",
        code="""
decoder = keras.Sequential([
    keras.Input((7, 7, 32)),
    keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", output_padding=2),
    keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same"),
])
""",
        expect=None,
        unexplained=(
            "the message says `output_padding` must be strictly less than `strides` and "
            "gives both values: the fix is in the message"
        ),
        fix="output_padding below the stride (0 or 1 for strides=2)",
    ),
]
