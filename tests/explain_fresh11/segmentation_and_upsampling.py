"""Family ``segmentation_and_upsampling``: encoder-decoder (U-Net, autoencoder) models and their per-pixel labels.

APIs: ``Conv2D``/``MaxPooling2D`` (with ``padding="valid"`` or a stride or pool of 2 an odd
size is floored: 25 -> 12, so the decoder's ``UpSampling2D(2)``/``Conv2DTranspose(strides=2)``
returns 24, not 25), ``UpSampling2D`` and ``Conv2DTranspose`` (need a 4-D
``(batch, height, width, channels)`` input; a ``Dense`` bottleneck has to be reshaped
back first), ``Concatenate``/``Add`` of a skip connection (all axes but the concatenation
axis must match; ``Add`` needs the same channels too), ``Cropping2D``/``ZeroPadding2D``
(to line a skip branch up), per-pixel heads (``Conv2D(num_classes, 1,
activation="softmax")`` with ``SparseCategoricalCrossentropy`` and integer masks of shape
``(batch, H, W)`` or ``(batch, H, W, 1)`` with ids in ``[0, num_classes)``;
``CategoricalCrossentropy`` needs one-hot masks ``(batch, H, W, num_classes)``;
``Conv2D(1, 1, activation="sigmoid")`` with binary cross-entropy for one foreground
class), and the masks themselves, which must have the output's resolution.

Evidence a diagnosis needs: the spatial sizes along the encoder and decoder (which
pooling or strided layer floored an odd size, which skip tensor differs from the
upsampled one and by how much), the shapes of the mask against the model's output (an
H x W of another resolution, a one-hot axis for a sparse loss, missing one-hot axis for a
dense one), the largest class id in the masks against the head's number of channels, and
the rank a 4-D layer received from a ``Dense`` bottleneck.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 24, 24, 128), (None, 25, 25, 64)]
    Case(
        name="f11_unet_on_100_pixel_tiles_skip_concat_off_by_one",
        family="segmentation_and_upsampling",
        code="""
inputs = keras.Input((100, 100, 3))
c1 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p1)
p2 = keras.layers.MaxPooling2D()(c2)
c3 = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(p2)
p3 = keras.layers.MaxPooling2D()(c3)
b = keras.layers.Conv2D(128, 3, padding="same", activation="relu")(p3)
u3 = keras.layers.UpSampling2D()(b)
m3 = keras.layers.Concatenate()([u3, c3])
""",
        expect="S01",
        must=("concatenate",),
        must_not=("strides=2",),
        fix="input size divisible by 8 (96 or 104), or crop/pad the skip",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape up until the last dimension: target.shape=(2, 64, 64), output.shape=(2, 32, 32, 3)
    Case(
        name="f11_masks_kept_at_full_resolution_for_a_half_size_head",
        family="segmentation_and_upsampling",
        code="""
images = np.random.rand(4, 64, 64, 3).astype("float32")
masks = np.random.randint(0, 3, size=(4, 64, 64))
model = keras.Sequential([
    keras.Input((64, 64, 3)),
    keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    keras.layers.Conv2D(3, 1, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, masks, batch_size=2, epochs=1, verbose=0)
""",
        expect="S07",
        must=("64, 64",),
        must_not=("one-hot", "from_logits"),
        fix="upsample the head back to 64x64 (UpSampling2D / Conv2DTranspose)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(2, 32, 32, 4), output.shape=(2, 32, 32, 4)
    Case(
        name="f11_one_hot_masks_with_sparse_categorical_crossentropy",
        family="segmentation_and_upsampling",
        code="""
images = np.random.rand(4, 32, 32, 3).astype("float32")
ids = np.random.randint(0, 4, size=(4, 32, 32))
masks = keras.utils.to_categorical(ids, num_classes=4)
inputs = keras.Input((32, 32, 3))
x = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
outputs = keras.layers.Conv2D(4, 1, activation="softmax")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy())
model.fit(images, masks, batch_size=2, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("from_logits", "resolution"),
        fix="CategoricalCrossentropy, or pass the integer ids as masks",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 4 which is outside the valid range of [0, 4). ...
    Case(
        name="f11_mask_ids_include_a_class_the_head_has_no_channel_for",
        family="segmentation_and_upsampling",
        code="""
images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 5, size=(4, 32, 32, 1))
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.Conv2D(4, 1, activation="softmax", name="seg_head"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, masks, batch_size=2, epochs=1, verbose=0)
""",
        expect="P12",
        must=("seg_head",),
        must_not=("one-hot", "from_logits"),
        fix="Conv2D(5, 1) (one channel per class, background included)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(4, 28, 28, 1), output.shape=(4, 24, 24, 1)
    Case(
        name="f11_mnist_autoencoder_pools_7_down_to_3",
        family="segmentation_and_upsampling",
        code="""
digits = np.random.rand(8, 28, 28, 1).astype("float32")
autoencoder = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
    keras.layers.UpSampling2D(2),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
    keras.layers.UpSampling2D(2),
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.UpSampling2D(2),
    keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid"),
])
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
autoencoder.fit(digits, digits, batch_size=4, epochs=1, verbose=0)
""",
        expect="S07",
        must=("max_pooling2d",),
        must_not=("reshape the labels", "sparse"),
        fix="drop the third pooling or pad the input to 32x32",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(2, 48, 48), output.shape=(2, 48, 48, 3)
    Case(
        name="f11_categorical_crossentropy_on_integer_masks",
        family="segmentation_and_upsampling",
        code="""
images = np.random.rand(4, 48, 48, 1).astype("float32")
masks = np.random.randint(0, 3, size=(4, 48, 48)).astype("float32")
inputs = keras.Input((48, 48, 1))
x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
outputs = keras.layers.Conv2D(3, 1, activation="softmax")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(images, masks, batch_size=2, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("resolution", "expand_dims"),
        fix="sparse_categorical_crossentropy (or one-hot the masks)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d_transpose' is incompatible with the layer: expected min_ndim=4, found ndim=2. ...
    Case(
        name="f11_dense_bottleneck_fed_straight_into_conv2d_transpose",
        family="segmentation_and_upsampling",
        code="""
encoder_input = keras.Input((32, 32, 1))
x = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(encoder_input)
x = keras.layers.Flatten()(x)
code_vec = keras.layers.Dense(64, activation="relu")(x)
x = keras.layers.Dense(16 * 16 * 16, activation="relu")(code_vec)
x = keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(x)
decoded = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(x)
""",
        expect="S01",
        must=("reshape",),
        must_not=("expand_dims", "batch axis"),
        fix="keras.layers.Reshape((16, 16, 16)) before Conv2DTranspose",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 52, 52, 16), (None, 56, 56, 16)]
    Case(
        name="f11_valid_conv_unet_skip_cropped_by_the_wrong_amount",
        family="segmentation_and_upsampling",
        code="""
inputs = keras.Input((64, 64, 1))
c1 = keras.layers.Conv2D(16, 3, activation="relu")(inputs)
c1 = keras.layers.Conv2D(16, 3, activation="relu")(c1)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(p1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(c2)
u1 = keras.layers.Conv2DTranspose(16, 2, strides=2)(c2)
skip = keras.layers.Cropping2D(cropping=2)(c1)
merged = keras.layers.Concatenate()([u1, skip])
outputs = keras.layers.Conv2D(1, 1, activation="sigmoid")(merged)
""",
        expect="S01",
        must=("cropping",),
        must_not=("strides=2", "batch axis"),
        fix="Cropping2D(cropping=4) (60 -> 52 to match the upsampled 52)",
    ),
]
