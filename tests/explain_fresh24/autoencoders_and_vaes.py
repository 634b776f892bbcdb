"""Autoencoders and variational autoencoders.

The family
----------
An autoencoder is a model whose target is its own input: ``model.fit(x, x)``.  An encoder
maps the input to a code (a bottleneck: ``Dense(k)`` with ``k`` much smaller than the
input size, or a small feature map), a decoder maps the code back to the input's shape,
and the loss (``"mse"``, ``"mae"`` or ``"binary_crossentropy"`` for data in ``[0, 1]``)
compares the reconstruction with the input element by element.  So the documented
contract that matters is: the decoder's output shape must equal the input's shape exactly,
``(batch,) + input_shape``, and the output activation must cover the data's range
(``sigmoid`` for ``[0, 1]``, linear for standardized data).

APIs and their shape arithmetic (Keras 3, ``channels_last``):

* ``Conv2D(filters, k, strides=s, padding=p)``: ``"same"`` gives ``ceil(n / s)``,
  ``"valid"`` gives ``floor((n - k) / s) + 1``; the channels become ``filters``.
* ``MaxPooling2D(pool_size=2)`` (default ``padding="valid"``): ``floor(n / 2)``, so an odd
  size loses a row: 28 -> 14 -> 7 -> 3, and three ``UpSampling2D(2)`` give back 24, not 28.
* ``UpSampling2D(size)``: ``n * size`` exactly.
* ``Conv2DTranspose(filters, k, strides=s, padding=p, output_padding=None)``: with
  ``"same"`` the output is ``n * s``; with ``"valid"`` it is ``(n - 1) * s + k``
  (7 -> 15 for ``k=3, s=2``); ``output_padding`` adds up to ``s - 1``.
* ``Reshape(target_shape)``: the product of ``target_shape`` must equal the number of
  features of its input (``Dense(7 * 7 * 32)`` cannot be reshaped to ``(7, 7, 64)``).
* ``Dense(units)`` acts on the last axis only: an input of shape ``(N, 28, 28)`` is not a
  flat ``(N, 784)`` vector; a ``Flatten`` or a NumPy ``reshape`` is needed first.
* A trained model's layers can be reused: ``decoder = keras.Model(code_in, out)`` where
  ``out`` is obtained by calling EVERY decoder layer in turn on ``code_in``; calling only the
  last layer on the code feeds it a width it was not built for.

Variational autoencoders add a sampling layer (``z = z_mean + exp(0.5 * z_log_var) * eps``
with ``eps = keras.random.normal(shape=ops.shape(z_mean))``, i.e. with the dynamic batch
size), a KL term (``-0.5 * mean(1 + z_log_var - z_mean**2 - exp(z_log_var))``) added via
``self.add_loss`` inside a layer or computed in a custom ``train_step``/``compute_loss``.
The contract of ``Model.train_step(self, data)``: ``data`` is whatever ``fit`` yields per
batch: ``x`` alone when ``fit(x)`` is called, the tuple ``(x, y)`` when ``fit(x, y)`` is
called, so a ``train_step`` written for ``fit(x)`` must unpack ``data`` when targets are
passed.

Evidence a diagnosis needs: the input shape and the reconstruction's shape (and which
layer's arithmetic changed the size: an odd size through pooling, ``"valid"`` padding on a
transposed convolution, the last layer's ``filters``), the failing layer and the width it
expected vs received, the element structure ``fit`` delivered to ``train_step``, and whether
a dimension that differs is the batch axis (then something hard-codes the batch size).
When the targets ARE the inputs, "reshape the labels" is not a fix.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(8, 28, 28, 1), output.shape=(8, 24, 24, 1)
    Case(
        name="f24_conv_ae_three_pools_lose_odd_row",
        family="autoencoders_and_vaes",
        code="""
x = np.random.rand(16, 28, 28, 1).astype("float32")
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(h)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(h)
h = keras.layers.MaxPooling2D(2)(h)
h = keras.layers.UpSampling2D(2)(h)
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(h)
h = keras.layers.UpSampling2D(2)(h)
h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(h)
h = keras.layers.UpSampling2D(2)(h)
out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(h)
ae = keras.Model(inp, out)
ae.compile(optimizer="adam", loss="binary_crossentropy")
ae.fit(x, x, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("24",),
        must_not=("labels",),
        fix="pad the 7x7 map (padding='same' pooling) or crop/resize so the output is 28x28",
    ),
    # ValueError: Dimensions must be equal, but are 28 and 31 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](...)' with input shapes: [8,28,28,1], [8,31,31,1].
    Case(
        name="f24_conv_transpose_valid_padding_overshoots",
        family="autoencoders_and_vaes",
        code="""
x = np.random.rand(16, 28, 28, 1).astype("float32")
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
h = keras.layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(h)
h = keras.layers.Conv2DTranspose(32, 3, strides=2, activation="relu")(h)
h = keras.layers.Conv2DTranspose(16, 3, strides=2, activation="relu")(h)
out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(h)
ae = keras.Model(inp, out)
ae.compile(optimizer="adam", loss="mse")
ae.fit(x, x, epochs=1, batch_size=8, verbose=0)
""",
        expect="S07",
        must=("31", "padding"),
        must_not=("labels",),
        fix='padding="same" on the Conv2DTranspose layers (7 -> 14 -> 28)',
    ),
    # ValueError: Exception encountered when calling Reshape.call().
    # (The total size of the tensor must be unchanged. Received: input_shape=(1568,), target_shape=(7, 7, 64))
    Case(
        name="f24_decoder_reshape_wrong_channel_count",
        family="autoencoders_and_vaes",
        code="""
latent_dim = 8
dec_in = keras.Input((latent_dim,))
h = keras.layers.Dense(7 * 7 * 32, activation="relu")(dec_in)
h = keras.layers.Reshape((7, 7, 64))(h)
h = keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu")(h)
out = keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid")(h)
decoder = keras.Model(dec_in, out, name="decoder")
""",
        expect="S01",
        must=("1568",),
        must_not=("batch",),
        fix="Dense(7 * 7 * 64) or Reshape((7, 7, 32)): the sizes must multiply to the same count",
    ),
    # ValueError: Input 0 with name 'None' of layer 'dense_4' is incompatible with the layer: expected axis -1 of input shape to have value 128, but received input with shape (None, 32)
    Case(
        name="f24_standalone_decoder_uses_only_last_layer",
        family="autoencoders_and_vaes",
        code="""
x = np.random.rand(32, 784).astype("float32")
inp = keras.Input((784,))
h = keras.layers.Dense(128, activation="relu")(inp)
code = keras.layers.Dense(32, activation="relu")(h)
h = keras.layers.Dense(128, activation="relu")(code)
out = keras.layers.Dense(784, activation="sigmoid")(h)
autoencoder = keras.Model(inp, out)
autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
autoencoder.fit(x, x, epochs=1, batch_size=16, verbose=0)
encoded_input = keras.Input((32,))
decoder = keras.Model(encoded_input, autoencoder.layers[-1](encoded_input))
""",
        expect="S01",
        must=("128",),
        must_not=("flatten",),
        fix="apply every decoder layer in turn: layers[-2] then layers[-1] on the code input",
    ),
    # ValueError: Layer "functional_3" expects 1 named input(s) with keys ['input_layer_5'], but it received 2 input tensors. Pass inputs as a dict, e.g. `layer({'input_layer_5': ...})`.
    Case(
        name="f24_vae_train_step_gets_x_y_tuple",
        family="autoencoders_and_vaes",
        code="""
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = keras.random.normal(keras.ops.shape(z_mean))
        return z_mean + keras.ops.exp(0.5 * z_log_var) * eps

enc_in = keras.Input((16,))
h = keras.layers.Dense(8, activation="relu")(enc_in)
z_mean, z_log_var = keras.layers.Dense(2)(h), keras.layers.Dense(2)(h)
encoder = keras.Model(enc_in, [z_mean, z_log_var, Sampling()([z_mean, z_log_var])])
decoder = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="sigmoid")])

class VAE(keras.Model):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            rec = self.decoder(z)
            loss = keras.ops.mean(keras.losses.binary_crossentropy(data, rec))
            loss += -0.5 * keras.ops.mean(1 + z_log_var - z_mean**2 - keras.ops.exp(z_log_var))
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {"loss": loss}

x = np.random.rand(64, 16).astype("float32")
vae = VAE(encoder, decoder)
vae.compile(optimizer="adam")
vae.fit(x, x, epochs=1, batch_size=16, verbose=0)
""",
        expect="S12",
        must=("train_step",),
        must_not=("dict",),
        fix="fit(x) without targets, or unpack `x, _ = data` in train_step",
    ),
    # InvalidArgumentError: Graph execution error:
    # (Incompatible shapes: [4,20] vs. [32,20] -- the last batch of 100 samples has 4 rows)
    Case(
        name="f24_vae_sampling_hardcodes_batch_size",
        family="autoencoders_and_vaes",
        code="""
BATCH = 32
class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        eps = tf.random.normal(shape=(BATCH, 2))
        return z_mean + tf.exp(0.5 * z_log_var) * eps

inp = keras.Input((20,))
h = keras.layers.Dense(16, activation="relu")(inp)
z_mean = keras.layers.Dense(2)(h)
z_log_var = keras.layers.Dense(2)(h)
z = Sampling()([z_mean, z_log_var])
out = keras.layers.Dense(20, activation="sigmoid")(keras.layers.Dense(16, activation="relu")(z))
vae = keras.Model(inp, out)
vae.compile(optimizer="adam", loss="mse")
x = np.random.rand(100, 20).astype("float32")
vae.fit(x, x, epochs=1, batch_size=BATCH, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("labels",),
        fix="eps = tf.random.normal(tf.shape(z_mean)): use the dynamic batch size",
    ),
    # ValueError: Input 0 with name 'input_layer_8' of layer 'functional_6' is incompatible with the layer: expected shape=(None, 784), found shape=(16, 28, 28)
    Case(
        name="f24_dense_ae_fed_unflattened_images",
        family="autoencoders_and_vaes",
        code="""
x_train = np.random.rand(64, 28, 28).astype("float32")
inp = keras.Input((784,))
code = keras.layers.Dense(32, activation="relu")(inp)
out = keras.layers.Dense(784, activation="sigmoid")(code)
ae = keras.Model(inp, out)
ae.compile(optimizer="adam", loss="binary_crossentropy")
ae.fit(x_train, x_train, epochs=1, batch_size=16, verbose=0)
""",
        expect="S01",
        must=("784",),
        must_not=("expand_dims",),
        fix="x_train.reshape(-1, 784) (for inputs and targets)",
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(16,), output.shape=(16, 28, 28, 1)
    Case(
        name="f24_conv_ae_fit_with_class_labels",
        family="autoencoders_and_vaes",
        code="""
x = np.random.rand(64, 28, 28, 1).astype("float32")
y = np.random.randint(0, 10, 64)
inp = keras.Input((28, 28, 1))
h = keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(inp)
h = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu")(h)
out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid")(h)
ae = keras.Model(inp, out)
ae.compile(optimizer="adam", loss="binary_crossentropy")
ae.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        expect="S07",
        must=("x, x",),
        must_not=("sparse", "one-hot"),
        fix="an autoencoder's target is its input: fit(x, x)",
    ),
]
