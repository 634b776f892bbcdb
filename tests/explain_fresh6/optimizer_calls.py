"""Family ``optimizer_calls``: the argument contracts of a custom training loop.

APIs: ``keras.optimizers.Optimizer.apply_gradients(grads_and_vars)``,
``Optimizer.apply(grads, trainable_variables=None)`` (Keras 3) and
``tf.GradientTape.gradient(target, sources)``.

Documented contract:

- ``apply_gradients`` takes an iterable of ``(gradient, variable)`` pairs and
  unzips it once; a ``zip`` object is a one-shot iterator, so a loop or an
  ``any(...)`` that read it first leaves nothing to apply ("not enough values
  to unpack").  ``apply(grads)`` without variables requires ``grads`` to match,
  one to one and in order, the variables the optimizer was built with.
- An optimizer is built on the variables of its first call and can only step
  those afterwards ("Unknown variable ... recreate a new optimizer instance");
  variables that became trainable later, or another model's variables, are
  unknown to it.  A trainable set that shrank (``base.trainable = False``)
  changes how many gradients ``tape.gradient(loss, model.trainable_variables)``
  returns.
- ``tape.gradient`` returns gradients with the same nested structure as
  ``sources``: a list of lists of variables gives a list of lists of gradients.
- It differentiates only through TensorFlow ops recorded while the tape was
  open, with respect to variables and *watched* float tensors: a NumPy copy
  (``np.clip``, ``.numpy()``) cuts the path; an integer or ``uint8`` source has
  no gradient; a tensor computed by a separate forward pass is not on the
  target's path; variables the target does not depend on (another model's,
  fake images generated before the tape opened) get ``None``.  ``None`` then
  fails in the next op (``tf.sign``, ``reduce_mean``) or in the optimizer
  ("No gradients provided for any variable").

Evidence a diagnosis needs: the actual arguments (the structure of the sources
and of the gradients, the number of gradients and of variables, which model
each variable belongs to, the dtype of the source), and where they came from
(the line that computed them, whether it ran inside the tape, whether the
value went through NumPy).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # Raises InvalidArgumentError: Shapes of all inputs must match: values[0].shape = [16,4] !=
    # values[1].shape = [4] [Op:Pack]
    Case(
        name="autoencoder_gradients_for_a_nested_list_of_variable_lists",
        family="optimizer_calls",
        code="""
encoder = keras.Sequential([keras.Input((16,)), keras.layers.Dense(4, activation="relu")])
decoder = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16)])
opt = keras.optimizers.Adam(1e-3)
x = np.random.rand(8, 16).astype("float32")
with tf.GradientTape() as tape:
    recon = decoder(encoder(x))
    loss = tf.reduce_mean(tf.square(recon - x))
grads = tape.gradient(loss, [encoder.trainable_variables, decoder.trainable_variables])
opt.apply_gradients(zip(grads, encoder.trainable_variables + decoder.trainable_variables))
""",
        expect="S07",
        must=("nested",),
        must_not=("learning rate",),
        fix="pass one flat list: encoder.trainable_variables + decoder.trainable_variables",
    ),
    # Raises ValueError: Attempt to convert a value (None) with an unsupported type (<class
    # 'NoneType'>) to a Tensor.
    Case(
        name="adversarial_example_clipped_with_numpy_inside_the_tape",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((8, 8, 3)),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
image = tf.convert_to_tensor(np.random.rand(1, 8, 8, 3).astype("float32"))
label = np.array([3])
with tf.GradientTape() as tape:
    tape.watch(image)
    clipped = np.clip(image, 0.0, 1.0)
    loss = loss_fn(label, model(clipped))
grad = tape.gradient(loss, image)
adversarial = image + 0.01 * tf.sign(grad)
""",
        expect="G04",
        must=("numpy",),
        must_not=("tape.watch(", "outside the"),
        fix="use tf.clip_by_value inside the tape",
    ),
    # Raises ValueError: Attempt to convert a value (None) with an unsupported type (<class
    # 'NoneType'>) to a Tensor.
    Case(
        name="integrated_gradients_watching_the_uint8_image",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((8, 8, 3)),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(5, activation="softmax"),
])
img = tf.constant(np.random.randint(0, 256, (1, 8, 8, 3)).astype("uint8"))
with tf.GradientTape() as tape:
    tape.watch(img)
    probs = model(tf.cast(img, tf.float32) / 255.0)
    score = probs[:, 2]
grads = tape.gradient(score, img)
attributions = tf.reduce_mean(tf.abs(grads), axis=-1)
""",
        expect="G04",
        must=("uint8",),
        must_not=("outside the",),
        fix="cast the image to float32 first and watch the float tensor",
    ),
    # Raises ValueError: Unknown variable: <Variable path=sequential_2/dense_2/kernel, shape=(8, 3),
    # ...> This optimizer can only be called for the variables it was originally built with.
    Case(
        name="pretraining_optimizer_reused_for_the_classifier",
        family="optimizer_calls",
        code="""
encoder = keras.Sequential([keras.Input((20,)), keras.layers.Dense(8, activation="relu")])
decoder = keras.Sequential([keras.Input((8,)), keras.layers.Dense(20)])
opt = keras.optimizers.Adam()
x = np.random.rand(16, 20).astype("float32")
y = np.random.randint(0, 3, 16)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(decoder(encoder(x)) - x))
ae_vars = encoder.trainable_variables + decoder.trainable_variables
opt.apply_gradients(zip(tape.gradient(loss, ae_vars), ae_vars))

classifier = keras.Sequential([encoder, keras.layers.Dense(3)])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
with tf.GradientTape() as tape:
    loss = loss_fn(y, classifier(x))
grads = tape.gradient(loss, classifier.trainable_variables)
opt.apply_gradients(zip(grads, classifier.trainable_variables))
""",
        expect=None,
        unexplained=(
            "Keras says the optimizer can only step the variables it was built with and to "
            "recreate a new optimizer instance for a new set of variables"
        ),
        fix="a new optimizer for the classifier",
    ),
    # Raises ValueError: When passing `grads` as a list of gradient tensors, the gradients must
    # match `optimizer.variables` one-to-on. Received a list of 2 gradients, but the optimizer is
    # tracking 6 trainable variables.
    Case(
        name="optimizer_apply_without_variables_after_freezing_the_base",
        family="optimizer_calls",
        code="""
base = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(8, activation="relu"),
])
model = keras.Sequential([base, keras.layers.Dense(1)])
opt = keras.optimizers.SGD(0.01)
opt.build(model.trainable_variables)
x = np.random.rand(32, 12).astype("float32")
y = np.random.rand(32, 1).astype("float32")

base.trainable = False
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
opt.apply(grads)
""",
        expect="S12",
        must=("frozen",),
        must_not=("recreate", "no gradient"),
        fix="opt.apply(grads, model.trainable_variables)",
    ),
    # Raises ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        name="none_gradient_check_with_any_consumes_the_zip",
        family="optimizer_calls",
        code="""
inputs = keras.Input((6,))
hidden = keras.layers.Dense(8, activation="relu")(inputs)
outputs = keras.layers.Dense(1, activation="sigmoid")(hidden)
model = keras.Model(inputs, outputs)
opt = keras.optimizers.RMSprop()
loss_fn = keras.losses.BinaryCrossentropy()
x = np.random.rand(16, 6).astype("float32")
y = np.random.randint(0, 2, (16, 1)).astype("float32")
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x, training=True))
grads_and_vars = zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
if any(g is None for g, v in grads_and_vars):
    print("some variables get no gradient")
opt.apply_gradients(grads_and_vars)
""",
        expect="S12",
        must=("iterator",),
        must_not=("disconnected", "outside the"),
        fix="grads_and_vars = list(zip(grads, vars))",
    ),
    # Raises ValueError: Attempt to convert a value (None) with an unsupported type (<class
    # 'NoneType'>) to a Tensor.
    Case(
        name="gradcam_feature_map_from_a_second_forward_pass",
        family="optimizer_calls",
        code="""
inputs = keras.Input((16, 16, 3))
x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="last_conv_layer")(inputs)
x = keras.layers.GlobalAveragePooling2D()(x)
outputs = keras.layers.Dense(4)(x)
model = keras.Model(inputs, outputs)
conv_model = keras.Model(inputs, model.get_layer("last_conv_layer").output)
img = np.random.rand(1, 16, 16, 3).astype("float32")
with tf.GradientTape() as tape:
    conv_out = conv_model(img)
    tape.watch(conv_out)
    preds = model(img)
    class_score = preds[:, tf.argmax(preds[0])]
grads = tape.gradient(class_score, conv_out)
pooled_grads = tf.reduce_mean(grads, axis=(0, 1, 2))
""",
        expect="G04",
        must=("outputs",),
        must_not=("tape.watch(",),
        fix="one model with outputs [conv layer output, model.output], called once",
    ),
    # Raises ValueError: No gradients provided for any variable.
    Case(
        name="discriminator_step_differentiates_the_generator_variables",
        family="optimizer_calls",
        code="""
generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh")])
discriminator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
d_opt = keras.optimizers.Adam(2e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = np.random.rand(16, 8).astype("float32")
noise = tf.random.normal((16, 4))
fake = generator(noise)
with tf.GradientTape() as tape:
    d_loss = bce(tf.ones((16, 1)), discriminator(real)) + bce(
        tf.zeros((16, 1)), discriminator(fake)
    )
grads = tape.gradient(d_loss, generator.trainable_variables)
d_opt.apply_gradients(zip(grads, generator.trainable_variables))
""",
        expect="G04",
        must=("discriminator",),
        must_not=("outside the", "argmax"),
        fix="differentiate d_loss with respect to discriminator.trainable_variables",
    ),
]
