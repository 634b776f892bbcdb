"""Family ``segmentation_and_dense_prediction``: U-Net style networks, per-pixel masks, losses and metrics.

APIs: ``Conv2D`` (``padding="same"`` keeps the size, ``"valid"`` shrinks it),
``MaxPooling2D`` (halves the size, flooring odd sizes: 25 -> 12), ``UpSampling2D`` and
``Conv2DTranspose`` (doubles the size only with ``strides=2``; without ``strides`` and
with ``padding="same"`` it keeps the size), ``Concatenate`` (skip connections: every axis
but the channel axis must match, so the input size must be divisible by 2**depth, or the
skip cropped/padded with ``Cropping2D``/``ZeroPadding2D``); per-pixel losses: the model
outputs ``(B, H, W, C)``; ``sparse_categorical_crossentropy`` wants integer masks
``(B, H, W)`` or ``(B, H, W, 1)`` with ids in ``[0, C)``; ``categorical_crossentropy``
wants one-hot masks ``(B, H, W, C)``; ``binary_crossentropy`` wants masks of the output's
shape with values in [0, 1]; masks must have the output's height and width; a hand-written
dice/IoU metric receives ``y_true`` in the dtype of the masks; ``keras.metrics.MeanIoU``
compares class ids (``sparse_y_pred=True`` by default), not per-class probabilities.

Evidence a diagnosis needs: the shapes along the encoder/decoder path (where a pooled odd
size or a missing ``strides=2`` made the two inputs of a ``Concatenate`` differ), the mask
array's shape, dtype and value set (one-hot or class ids, 0/255 or 0/1, its height and
width) against the output's shape and the loss, and for a metric which argument (labels or
probabilities) has the shape or dtype it does not expect.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. ...
    #   Received: input_shape=[(None, 24, 24, 64), (None, 25, 25, 32)]
    Case(
        name="f18_unet_on_100px_images_pools_25_down_to_12",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
inp = keras.Input((100, 100, 3))
c1 = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
p1 = L.MaxPooling2D()(c1)
c2 = L.Conv2D(16, 3, padding="same", activation="relu")(p1)
p2 = L.MaxPooling2D()(c2)
c3 = L.Conv2D(32, 3, padding="same", activation="relu")(p2)
p3 = L.MaxPooling2D()(c3)
b = L.Conv2D(64, 3, padding="same", activation="relu")(p3)
u3 = L.UpSampling2D()(b)
m3 = L.Concatenate()([u3, c3])
""",
        expect="S01",
        must=("25", "maxpooling"),
        must_not=("strides=2", "flatten"),
        fix="input size divisible by 8 (e.g. 96 or 104), or ZeroPadding2D/Cropping2D on the odd level",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. ...
    #   Received: input_shape=[(None, 32, 32, 16), (None, 64, 64, 16)]
    Case(
        name="f18_conv2d_transpose_decoder_without_strides",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
inp = keras.Input((64, 64, 1))
c1 = L.Conv2D(16, 3, padding="same", activation="relu")(inp)
p1 = L.MaxPooling2D(2)(c1)
c2 = L.Conv2D(32, 3, padding="same", activation="relu")(p1)
u1 = L.Conv2DTranspose(16, 2, padding="same")(c2)
m1 = L.Concatenate()([u1, c1])
out = L.Conv2D(1, 1, activation="sigmoid")(m1)
unet = keras.Model(inp, out)
""",
        expect="S01",
        must=("strides",),
        must_not=("cropping", "input size"),
        fix="Conv2DTranspose(16, 2, strides=2, padding='same')",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 32, 32, 3), output.shape=(None, 32, 32, 3)
    Case(
        name="f18_one_hot_masks_with_sparse_categorical_crossentropy",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
images = np.random.rand(4, 32, 32, 3).astype("float32")
class_map = np.random.randint(0, 3, (4, 32, 32))
masks = keras.utils.to_categorical(class_map, 3)
inp = keras.Input((32, 32, 3))
h = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = L.Conv2D(3, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("from_logits", "expand_dims"),
        fix="loss='categorical_crossentropy', or fit on class_map",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 32, 32, 1), output.shape=(None, 32, 32, 4)
    Case(
        name="f18_class_id_masks_with_categorical_crossentropy",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 4, (4, 32, 32, 1))
inp = keras.Input((32, 32, 3))
h = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = L.Conv2D(4, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("expand_dims", "cropping"),
        fix="loss='sparse_categorical_crossentropy'",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 128, 128, 1), output.shape=(None, 64, 64, 1)
    Case(
        name="f18_masks_left_at_128px_for_64px_images",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
images = tf.image.resize(np.random.rand(4, 128, 128, 3), (64, 64)).numpy().astype("float32")
masks = np.random.randint(0, 2, (4, 128, 128, 1)).astype("float32")
inp = keras.Input((64, 64, 3))
h = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = L.Conv2D(1, 1, activation="sigmoid")(h)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="S07",
        must=("128",),
        must_not=("sparse", "UpSampling2D"),
        fix='resize the masks to 64x64 too (method="nearest")',
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 255 which is outside the valid range of [0, 2).  Label values: ...
    Case(
        name="f18_binary_masks_stored_as_0_and_255_with_two_class_softmax",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = (np.random.rand(4, 32, 32, 1) > 0.5).astype("uint8") * 255
inp = keras.Input((32, 32, 3))
h = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = L.Conv2D(2, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="P12",
        must=("255",),
        must_not=("Conv2D(256", "input_dim"),
        fix="masks = masks // 255 (class ids 0 and 1)",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type uint8 of argument 'x'.
    Case(
        name="f18_dice_metric_multiplies_uint8_masks_by_probabilities",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
def dice_coef(y_true, y_pred, smooth=1.0):
    inter = tf.reduce_sum(y_true * y_pred)
    return (2.0 * inter + smooth) / (tf.reduce_sum(y_true) + tf.reduce_sum(y_pred) + smooth)

images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = (np.random.rand(4, 32, 32, 1) > 0.5).astype("uint8")
inp = keras.Input((32, 32, 3))
out = L.Conv2D(1, 3, padding="same", activation="sigmoid")(inp)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[dice_coef])
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="S11",
        must=("uint8",),
        must_not=("sparse", "from_logits"),
        fix="y_true = tf.cast(y_true, y_pred.dtype) in dice_coef (or masks.astype('float32'))",
    ),
    # InvalidArgumentError: Graph execution error:
    #   Detected at node LogicalAnd_2 ... keras/src/metrics/iou_metrics.py ... in update_state ...
    #   Incompatible shapes: [4096] vs. [12288]
    Case(
        name="f18_mean_iou_metric_given_per_class_probabilities",
        family="segmentation_and_dense_prediction",
        code="""
L = keras.layers
images = np.random.rand(4, 32, 32, 3).astype("float32")
masks = np.random.randint(0, 3, (4, 32, 32, 1))
inp = keras.Input((32, 32, 3))
h = L.Conv2D(8, 3, padding="same", activation="relu")(inp)
out = L.Conv2D(3, 1, activation="softmax")(h)
model = keras.Model(inp, out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
              metrics=[keras.metrics.MeanIoU(num_classes=3)])
model.fit(images, masks, epochs=1, verbose=0)
""",
        expect="S07",
        must=("meaniou",),
        must_not=("categorical_crossentropy", "num_classes=4"),
        fix="MeanIoU(num_classes=3, sparse_y_pred=False)",
    ),
]
