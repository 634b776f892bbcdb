"""Conv1D, Conv3D and pooling: convolutions on signals, text, volumes and video, depthwise and
separable convolutions, pooling layers, and the output lengths they produce.

The family, written down from the Keras 3 layer documentation before the cases:

* Input ranks (``data_format="channels_last"``, the default): ``Conv1D``/``MaxPooling1D``/
  ``AveragePooling1D`` take ``(batch, steps, channels)``; ``Conv2D``/``SeparableConv2D``/
  ``DepthwiseConv2D`` take ``(batch, height, width, channels)``; ``Conv3D``/
  ``MaxPooling3D`` take ``(batch, depth, height, width, channels)`` (a video clip is
  ``(batch, frames, h, w, c)``).  A mono signal ``(batch, steps)`` needs a channel axis
  (``x[..., None]``); a single image needs a batch axis (``img[None]``); a video needs
  ``Conv3D`` or ``TimeDistributed(Conv2D)``.  ``Global*Pooling1D/2D/3D`` remove the spatial
  axes: ``(batch, channels)``, so no convolution can follow them.
* Signatures: ``Conv1D(filters, kernel_size, strides=1, padding="valid"|"same"|"causal",
  dilation_rate=1, groups=1)``; ``Conv2D``/``Conv3D`` the same with tuples (``"causal"`` is
  Conv1D only); ``groups`` must divide both the input channels and ``filters``; ``strides >
  1`` cannot be combined with ``dilation_rate > 1``.  ``DepthwiseConv2D(kernel_size,
  strides=(1, 1), padding="valid", depth_multiplier=1, ...)`` has NO ``filters`` argument:
  its first positional argument is the kernel size and its second the strides.
  ``SeparableConv2D(filters, kernel_size, ...)``.  ``MaxPooling1D(pool_size=2,
  strides=None, padding="valid")``, ``MaxPooling3D(pool_size=(2, 2, 2))``.
* Output length along an axis of size ``n`` with kernel ``k``, stride ``s``, dilation ``d``:
  ``"valid"``: ``floor((n - d*(k-1) - 1) / s) + 1`` (zero or negative when the kernel or the
  pool window is larger than the input: "Computed output size would be zero or negative");
  ``"same"``: ``ceil(n / s)``; ``"causal"``: ``n`` (with ``s = 1``).  Pooling the same with
  ``k = pool_size``, ``s = strides or pool_size``.  A ``Reshape`` after a convolution must
  use the length this formula gives.
* ``Cropping1D/2D/3D(cropping)`` removes rows at each end (must be smaller than the axis);
  ``ZeroPadding*`` adds them.

Evidence a diagnosis needs: the failing layer, the shape it received and the layer that
produced it (a ``Global*Pooling`` that dropped the steps axis, a stack of valid convolutions
and poolings that shrank an axis), the kernel / pool size / strides against the axis it
slides over, the rank the layer wants against the rank it got, and the length the formula
gives where the user assumed another.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "conv1d_conv3d_and_pooling"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the layer:
    # expected min_ndim=3, found ndim=2. Full shape received: (32, 200)
    Case(
        name="f29_conv1d_signal_without_channel_axis",
        family=FAMILY,
        code="""
ecg = np.random.rand(32, 200).astype("float32")        # 32 recordings of 200 samples
labels = np.random.randint(0, 2, size=(32,))
model = keras.Sequential([
    keras.layers.Conv1D(8, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ecg, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("flatten",),
        fix="ecg[..., None] (shape (32, 200, 1))",
    ),
    # ValueError: Exception encountered when calling MaxPooling3D.call().
    # (Computed output size would be zero or negative. Received: `inputs.shape=[None 1 64 64
    # 8]`, `pool_size=[2 2 2]`, `strides=(2, 2, 2)`, `padding=valid`.)
    Case(
        name="f29_maxpool3d_pool_depth_on_single_frame",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(1, 64, 64, 3)),          # clips of a single frame
    keras.layers.Conv3D(8, (1, 3, 3), padding="same", activation="relu"),
    keras.layers.MaxPooling3D(pool_size=2),
    keras.layers.GlobalAveragePooling3D(),
    keras.layers.Dense(2),
])
""",
        expect="S01",
        must=("pool_size",),
        must_not=("channels_first",),
        fix="MaxPooling3D(pool_size=(1, 2, 2))",
    ),
    # ValueError: The number of input channels must be evenly divisible by the number of
    # groups. Received groups=4, but the input has 6 channels (full input shape is (None, 100,
    # 6)).
    Case(
        name="f29_conv1d_groups_not_dividing_channels",
        family=FAMILY,
        code="""
imu = keras.Input(shape=(100, 6))        # accelerometer + gyroscope, 6 channels
features = keras.layers.Conv1D(8, 3, groups=4)(imu)
""",
        expect=None,
        must_not=("padding",),
        unexplained="the message names groups=4 and the 6 input channels it must divide",
        fix="groups=2 (or 3, 6): a divisor of the 6 channels and of filters",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 28, 28, 16)`, `kernel shape=(32, 32, 16, 16)`, `dilation_rate=[1 1]`,
    # `strides=(3, 3)`, `padding=valid`.
    Case(
        name="f29_depthwise_conv_given_filters_first",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(28, 28, 16)),
    keras.layers.DepthwiseConv2D(32, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
""",
        expect="S01",
        must=("kernel_size",),
        must_not=("padding='same'", 'padding="same"'),
        fix="DepthwiseConv2D(kernel_size=3, depth_multiplier=2) (it has no filters argument)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Invalid input shape for input Tensor("data:0", shape=(32, 32, 3), dtype=float32) ...
    # Expected shape (None, 32, 32, 3), but input has incompatible shape (32, 32, 3))
    Case(
        name="f29_separable_conv_predict_single_image",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.SeparableConv2D(16, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
photo = np.random.rand(32, 32, 3).astype("float32")
probs = model.predict(photo, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("channel axis",),
        fix="model.predict(photo[None]) (a batch of one)",
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    # (The total size of the tensor must be unchanged. Received: input_shape=(48, 16),
    # target_shape=(50, 16, 1))
    Case(
        name="f29_reshape_after_strided_conv1d_wrong_length",
        family=FAMILY,
        code="""
audio = keras.Input(shape=(100, 2))               # 100 frames, stereo
x = keras.layers.Conv1D(16, 5, strides=2)(audio)  # "100 / 2 = 50 frames"
x = keras.layers.Reshape((50, 16, 1))(x)
x = keras.layers.Conv2D(4, 3)(x)
""",
        expect="S01",
        must=("48",),
        must_not=("flatten",),
        fix="Reshape((48, 16, 1)) (valid: (100 - 5) // 2 + 1), or padding='same' for 50",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv1d_1' is incompatible with the layer:
    # expected min_ndim=3, found ndim=2. Full shape received: (None, 16)
    Case(
        name="f29_conv1d_after_global_max_pooling",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(128, 3)),
    keras.layers.Conv1D(16, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Conv1D(32, 5, activation="relu"),
    keras.layers.Dense(4, activation="softmax"),
])
""",
        expect="S01",
        must=("pooling1d",),
        must_not=("expand_dims", "channel axis"),
        fix="MaxPooling1D between the convolutions; GlobalMaxPooling1D only at the end",
    ),
    # ValueError: Kernel shape must have the same length as input, but received kernel of
    # shape (3, 3, 3, 8) and input of shape (None, 8, 32, 32, 3).
    Case(
        name="f29_conv2d_on_video_clips",
        family=FAMILY,
        code="""
clips = np.random.rand(2, 8, 32, 32, 3).astype("float32")   # 8 frames per clip
model = keras.Sequential([
    keras.Input(shape=(8, 32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
""",
        expect="S01",
        must=("conv3d",),
        must_not=("squeeze",),
        fix="Conv3D(8, 3) (or TimeDistributed(Conv2D(8, 3)))",
    ),
]
