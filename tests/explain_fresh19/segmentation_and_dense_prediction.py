"""Family ``segmentation_and_dense_prediction``: U-Net style encoder/decoders and per-pixel masks, losses and metrics.

APIs and contract: ``Conv2D(padding="same")`` keeps the spatial size, ``MaxPooling2D(2)``
floors it by half (an odd size loses a pixel), ``UpSampling2D(2)`` and
``Conv2DTranspose(strides=2, padding="same")`` double it, so a skip connection
(``Concatenate`` over the channel axis) needs the same height and width on both sides:
the input size must be divisible by 2**depth, or the skip must be cut with
``Cropping2D``/grown with ``ZeroPadding2D`` by exactly the difference.  The per-pixel loss
compares the mask with the output pixel by pixel: ``sparse_categorical_crossentropy``
takes integer class masks ``(B, H, W)`` or ``(B, H, W, 1)`` against ``(B, H, W, C)``
scores, ``categorical_crossentropy`` takes one-hot masks ``(B, H, W, C)``; the mask must
have the output's height and width.  Metrics such as ``MeanIoU`` take class ids (an
``argmax`` of the scores, unless ``sparse_y_pred=False``); a hand-written dice/IoU must
cast the integer mask to the prediction's float dtype and give both the same rank.
``predict`` wants a batch of images.

Evidence a diagnosis needs: the spatial size at each level of the encoder and decoder
(where a pooling floored an odd size, which skip the ``Concatenate`` joined), the mask's
shape and dtype against the output's, the loss or metric and the encoding it expects, and
the crop/pad amounts against the difference of the two sides.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 24, 24, 64), (None, 25, 25
    Case(
        name="f19_unet_on_100px_tiles_skip_sizes_25_and_24",
        family="segmentation_and_dense_prediction",
        code="""
inputs = keras.Input(shape=(100, 100, 3))
c1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
p1 = keras.layers.MaxPooling2D(2)(c1)
c2 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(p1)
p2 = keras.layers.MaxPooling2D(2)(c2)
c3 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p2)
p3 = keras.layers.MaxPooling2D(2)(c3)
b = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(p3)
u3 = keras.layers.UpSampling2D(2)(b)
m3 = keras.layers.Concatenate()([u3, c3])
""",
        expect="S01",
        must=("concatenate",),
        must_not=("strides=2", "batch"),
        fix="tiles of 96 or 104 px (divisible by 8), or crop/pad the skip",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 32, 32, 1), output.shape=(None, 32, 32, 3)
    Case(
        name="f19_integer_class_mask_with_categorical_crossentropy",
        family="segmentation_and_dense_prediction",
        code="""
images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 3, size=(4, 32, 32, 1))
inputs = keras.Input(shape=(32, 32, 3))
x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
outputs = keras.layers.Conv2D(3, 1, activation="softmax")(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("conv2d(1", "reshape"),
        fix='loss="sparse_categorical_crossentropy"',
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 32, 32, 1), output.shape=(None, 64, 64, 1)
    Case(
        name="f19_masks_kept_at_half_the_image_resolution",
        family="segmentation_and_dense_prediction",
        code="""
images = np.random.rand(4, 64, 64, 3).astype("float32")
masks = np.random.randint(0, 2, size=(4, 32, 32, 1)).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(64, 64, 3)),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
    keras.layers.Conv2D(1, 1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="S07",
        must=("32",),
        must_not=("sparse", "from_logits"),
        fix="resize the masks to 64x64 (nearest), or the images to 32x32",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 32, 32, 32), (None, 64, 64
    Case(
        name="f19_decoder_level_missing_its_upsampling_before_concat",
        family="segmentation_and_dense_prediction",
        code="""
inputs = keras.Input(shape=(64, 64, 1))
e1 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")(inputs)
d1 = keras.layers.MaxPooling2D()(e1)
e2 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(d1)
d2 = keras.layers.MaxPooling2D()(e2)
mid = keras.layers.Conv2D(64, 3, padding="same", activation="relu")(d2)
up2 = keras.layers.Conv2DTranspose(32, 2, strides=2, padding="same")(mid)
cat2 = keras.layers.concatenate([up2, e2])
dec2 = keras.layers.Conv2D(32, 3, padding="same", activation="relu")(cat2)
cat1 = keras.layers.concatenate([dec2, e1])
outputs = keras.layers.Conv2D(1, 1, activation="sigmoid")(cat1)
""",
        expect="S01",
        must=("upsampl",),
        must_not=("cropping", "strides=2 on the skip"),
        fix="add Conv2DTranspose(16, 2, strides=2) (or UpSampling2D) before the second concatenate",
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a uint8 tensor but is a float tensor [Op:Mul] name:
    Case(
        name="f19_dice_coefficient_multiplies_uint8_mask_with_float_prediction",
        family="segmentation_and_dense_prediction",
        code="""
def dice_coef(y_true, y_pred, smooth=1.0):
    intersection = tf.reduce_sum(y_true * y_pred)
    return (2.0 * intersection + smooth) / (tf.reduce_sum(y_true) + tf.reduce_sum(y_pred) + smooth)

masks = np.random.randint(0, 2, size=(2, 16, 16, 1)).astype("uint8")
model = keras.Sequential([keras.Input(shape=(16, 16, 3)),
                          keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")])
pred = model.predict(np.random.rand(2, 16, 16, 3).astype("float32"), verbose=0)
print("dice:", float(dice_coef(tf.constant(masks), tf.constant(pred))))
""",
        expect="S11",
        must=("uint8",),
        must_not=("reshape", "expand_dims"),
        fix="tf.cast(y_true, y_pred.dtype) first in dice_coef",
    ),
    # InvalidArgumentError: {{function_node __wrapped__LogicalAnd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [1152] vs. [4608] [Op:LogicalAnd] nam
    Case(
        name="f19_mean_iou_fed_softmax_scores_instead_of_class_ids",
        family="segmentation_and_dense_prediction",
        code="""
masks = np.random.randint(0, 4, size=(2, 24, 24))
scores = keras.activations.softmax(tf.random.normal((2, 24, 24, 4)))
iou = keras.metrics.MeanIoU(num_classes=4)
iou.update_state(masks, scores)
print("mIoU:", float(iou.result()))
""",
        expect="S07",
        must=("argmax",),
        must_not=("one-hot", "num_classes=1"),
        fix="iou.update_state(masks, tf.argmax(scores, axis=-1)) or sparse_y_pred=False",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 56, 56, 16), (None, 60, 60
    Case(
        name="f19_cropping2d_amount_wrong_for_the_skip_connection",
        family="segmentation_and_dense_prediction",
        code="""
inputs = keras.Input(shape=(68, 68, 1))
c1 = keras.layers.Conv2D(16, 3, activation="relu")(inputs)
c1 = keras.layers.Conv2D(16, 3, activation="relu")(c1)
p1 = keras.layers.MaxPooling2D()(c1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(p1)
c2 = keras.layers.Conv2D(32, 3, activation="relu")(c2)
u1 = keras.layers.Conv2DTranspose(16, 2, strides=2)(c2)
skip = keras.layers.Cropping2D(cropping=2)(c1)
merged = keras.layers.Concatenate(axis=-1)([u1, skip])
""",
        expect="S01",
        must=("cropping2d",),
        must_not=("strides=2", "batch"),
        fix="Cropping2D(cropping=4): the skip is 64 px, the upsampled map 56 px",
    ),
    # ValueError: Input 0 with name 'input_layer_15' of layer 'functional_10' is incompatible with the layer: expected shape=(None, 48, 48, 3), found shape=(32, 48, 3)
    Case(
        name="f19_predict_mask_of_one_image_without_batch_axis",
        family="segmentation_and_dense_prediction",
        code="""
inputs = keras.Input(shape=(48, 48, 3))
x = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
x = keras.layers.MaxPooling2D()(x)
x = keras.layers.UpSampling2D()(x)
outputs = keras.layers.Conv2D(2, 1, activation="softmax")(x)
model = keras.Model(inputs, outputs)
image = np.random.rand(48, 48, 3).astype("float32")
mask = model.predict(image, verbose=0).argmax(axis=-1)
""",
        expect="S12",
        must=("batch",),
        must_not=("resize", "cropping"),
        fix="model.predict(image[None, ...])",
    ),
]
