"""Family: segmentation and dense prediction (U-Net-style encoder/decoder).

API: ``Conv2D`` (``strides``, ``padding="valid"`` by default), ``MaxPooling2D`` (pool 2,
``padding="valid"``: floors odd sizes, 25 -> 12), ``UpSampling2D`` (doubles, 12 -> 24),
``Conv2DTranspose`` (``padding="valid"`` by default: ``(n - 1) * stride + kernel``, so a
3x3 kernel with stride 2 gives 65 from 32; ``padding="same"`` gives ``n * stride``;
``output_padding`` must be smaller than the stride), skip connections with
``Concatenate`` (every axis but the concatenation axis must match, so the skip and the
upsampled branch need the same height and width: an input not divisible by
``2 ** depth``, an odd size, or unpadded "valid" convolutions break it), ``Cropping2D`` /
``ZeroPadding2D`` to reconcile sizes; per-pixel targets: class-id masks ``(N, H, W)`` or
``(N, H, W, 1)`` for ``sparse_categorical_crossentropy`` over a ``(N, H, W, C)`` softmax,
one-hot ``(N, H, W, C)`` for ``categorical_crossentropy``, ``(N, H, W, 1)`` 0/1 for
``binary_crossentropy`` with a 1-channel sigmoid (Keras' compiled losses expand or squeeze
the last axis of a rank-3 mask, a hand-written loss in a custom loop does not); class
ids lie in ``[0, C)`` (binary masks stored as PNGs are often 0/255);
``MeanIoU(num_classes, sparse_y_true=True, sparse_y_pred=True)`` reads class ids unless
told to argmax probabilities (``sparse_y_pred=False``); ``Resizing`` of the images must
be matched by a (nearest-neighbour) resize of the masks.  Evidence a diagnosis can read
at the failure: the chain of spatial sizes through the encoder and decoder, each
layer's ``strides``/``padding``/``pool_size``/``kernel_size``, the Input's size (or
``None`` and the size of the array passed), the output's channel count and activation,
the mask array's shape, dtype and values (largest id, 255), the loss (compiled or
called in a loop) and the metrics with their arguments, the ``tf.data`` map that
touched only one component.

Written from the Keras/TensorFlow documentation and user reports, before the rules
for this family were read.  Every case was run: the exception and the first line of
its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "segmentation"

CASES = [
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for
    # the concatenation axis. Received: input_shape=[(None, 52, 52, 32), (None, 60, 60, 16)]
    # (the paper's U-Net: unpadded 3x3 convolutions, 64 -> 62 -> 60 -> pool 30 -> 28 -> 26
    # -> up 52, against the 60x60 skip; no Cropping2D)
    Case(
        "sg_unet_valid_convs_without_crop",
        FAMILY,
        """
L = keras.layers
inp = keras.Input((64, 64, 1))
c1 = L.Conv2D(16, 3, activation="relu")(inp)
c1 = L.Conv2D(16, 3, activation="relu")(c1)
p1 = L.MaxPooling2D(2)(c1)
c2 = L.Conv2D(32, 3, activation="relu")(p1)
c2 = L.Conv2D(32, 3, activation="relu")(c2)
u1 = L.UpSampling2D(2)(c2)
m1 = L.concatenate([u1, c1])
""",
        "S01",
        must=("padding",),
        must_not=("divisible", "batch axis"),
        fix="padding='same', or Cropping2D the skip",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for
    # the concatenation axis. Received: input_shape=[(None, 65, 65, 16), (None, 64, 64, 16)]
    # (Conv2DTranspose left at its default padding='valid': (32 - 1) * 2 + 3 = 65)
    Case(
        "sg_conv_transpose_default_valid_padding",
        FAMILY,
        """
L = keras.layers
inp = keras.Input((64, 64, 3))
c1 = L.Conv2D(16, 3, padding="same", activation="relu")(inp)
p1 = L.MaxPooling2D()(c1)
c2 = L.Conv2D(32, 3, padding="same", activation="relu")(p1)
u1 = L.Conv2DTranspose(16, 3, strides=2, name="up1")(c2)
m1 = L.Concatenate(name="skip1")([u1, c1])
""",
        "S01",
        must=("up1", "padding"),
        must_not=("divisible", "output_padding"),
        fix="Conv2DTranspose(..., padding='same')",
    ),
    # ValueError: Exception encountered when calling Concatenate.call().
    # (Dimension 1 in both shapes must be equal, but are 124 and 125. ... ConcatV2: a
    # fully convolutional U-Net, Input (None, None, 3), predicts a 250x250 scan:
    # 250 -> 125 -> 62 -> up 124 against the 125x125 skip)
    Case(
        "sg_fully_conv_unet_predict_250_scan",
        FAMILY,
        """
L = keras.layers
inp = keras.Input((None, None, 3))
c1 = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
p1 = L.MaxPooling2D()(c1)
c2 = L.Conv2D(16, 3, padding="same", activation="relu")(p1)
p2 = L.MaxPooling2D()(c2)
b = L.Conv2D(32, 3, padding="same", activation="relu")(p2)
u2 = L.Concatenate()([L.UpSampling2D()(b), c2])
u1 = L.Concatenate()([L.UpSampling2D()(u2), c1])
out = L.Conv2D(1, 1, activation="sigmoid")(u1)
model = keras.Model(inp, out)
scan = np.random.rand(1, 250, 250, 3).astype("float32")
model.predict(scan, verbose=0)
""",
        "S01",
        must=("250",),
        must_not=("batch axis", "expand_dims"),
        fix="pad or resize the scan to a multiple of 4",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(None, 32, 32, 1), output.shape=(None, 32, 32, 3)
    # (class-id masks with categorical_crossentropy over a 3-class softmax)
    Case(
        "sg_class_id_masks_categorical_crossentropy",
        FAMILY,
        """
x = np.random.rand(16, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 3, (16, 32, 32, 1))
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(3, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile("adam", "categorical_crossentropy")
model.fit(x, masks, epochs=1, verbose=0)
""",
        "M05",
        must=("categorical_crossentropy", "sparse"),
        must_not=("sigmoid", "padding"),
        fix="sparse_categorical_crossentropy",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    # Received: target.shape=(None, 32, 32), output.shape=(None, 32, 32, 2)
    # (binary 0/1 masks, binary_crossentropy, but a 2-channel softmax head)
    Case(
        "sg_binary_crossentropy_two_channel_softmax",
        FAMILY,
        """
x = np.random.rand(16, 32, 32, 3).astype("float32")
masks = (np.random.rand(16, 32, 32) > 0.5).astype("float32")
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(2, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
model.fit(x, masks, epochs=1, verbose=0)
""",
        "M03",
        must=("binary_crossentropy",),
        must_not=("expand_dims", "newaxis"),
        fix="Conv2D(1, sigmoid), or sparse_categorical_crossentropy",
    ),
    # InvalidArgumentError: Graph execution error: ... Received a label value of 255 which
    # is outside the valid range of [0, 2).
    # (binary masks read from PNGs, stored 0/255)
    Case(
        "sg_binary_masks_stored_0_255",
        FAMILY,
        """
x = np.random.rand(16, 32, 32, 3).astype("float32")
masks = (np.random.rand(16, 32, 32) > 0.5).astype("uint8") * 255
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(2, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, masks, epochs=1, verbose=0)
""",
        "P12",
        must=("255",),
        must_not=("256",),
        fix="masks // 255 (or masks > 127)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    # target.shape=(None, 32, 32), output.shape=(None, 32, 32)
    # (a binary head, Conv2D(1, sigmoid), reused for masks with 5 classes)
    Case(
        "sg_one_channel_head_five_class_masks",
        FAMILY,
        """
NUM_CLASSES = 5
x = np.random.rand(16, 32, 32, 3).astype("float32")
masks = np.random.randint(0, NUM_CLASSES, (16, 32, 32))
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(1, 1, activation="sigmoid", name="head")(h)
model = keras.Model(inp, out)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, masks, epochs=1, verbose=0)
""",
        "M04",
        must=("head", "5"),
        must_not=("binary_crossentropy", "expand_dims"),
        fix="Conv2D(NUM_CLASSES, 1, activation='softmax')",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape up until the
    # last dimension: target.shape=(None, 64, 64), output.shape=(None, 32, 32, 3)
    # (the map resizes the images to 32x32 and leaves the masks at 64x64)
    Case(
        "sg_resizing_images_not_masks",
        FAMILY,
        """
images = np.random.rand(16, 64, 64, 3).astype("float32")
masks = np.random.randint(0, 3, (16, 64, 64))
resize = keras.layers.Resizing(32, 32)
ds = tf.data.Dataset.from_tensor_slices((images, masks)).map(lambda im, m: (resize(im), m)).batch(4)
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(3, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("masks", "64"),
        must_not=("strides", "batch axis"),
        fix="resize the masks too (interpolation='nearest')",
    ),
    # InvalidArgumentError: Graph execution error: ... Incompatible shapes: [16384] vs.
    # [49152] [[{{node LogicalAnd_2}}]]
    # (MeanIoU with its default sparse_y_pred=True given the 3-channel softmax)
    Case(
        "sg_meaniou_on_softmax_probabilities",
        FAMILY,
        """
x = np.random.rand(16, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 3, (16, 32, 32, 1))
inp = keras.Input((32, 32, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(3, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile("adam", "sparse_categorical_crossentropy",
              metrics=[keras.metrics.MeanIoU(num_classes=3)])
model.fit(x, masks, epochs=1, verbose=0)
""",
        "S07",
        must=("iou", "sparse_y_pred"),
        must_not=("batch axis", "strides"),
        fix="MeanIoU(num_classes=3, sparse_y_pred=False)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Mul_device_/job:localhost/replica:0/
    # task:0/device:CPU:0}} Incompatible shapes: [8,64,64] vs. [8,64,64,1] [Op:Mul] name:
    # (hand-written Dice loss in a custom loop: (N, H, W) masks times (N, H, W, 1) output)
    Case(
        "sg_dice_loss_mask_without_channel_axis",
        FAMILY,
        """
def dice_loss(y_true, y_pred):
    inter = tf.reduce_sum(y_true * y_pred)
    return 1 - 2 * inter / (tf.reduce_sum(y_true) + tf.reduce_sum(y_pred) + 1e-6)
images = np.random.rand(32, 64, 64, 3).astype("float32")
masks = (np.random.rand(32, 64, 64) > 0.5).astype("float32")
inp = keras.Input((64, 64, 3))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = keras.layers.Conv2D(1, 1, activation="sigmoid")(h)
model = keras.Model(inp, out)
opt = keras.optimizers.Adam(1e-3)
ds = tf.data.Dataset.from_tensor_slices((images, masks)).batch(8)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        loss = dice_loss(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S07",
        must=("dice_loss",),
        must_not=("strides", "padding"),
        fix="masks[..., None] (or squeeze the output)",
    ),
]
