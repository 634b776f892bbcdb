"""Every loss a step computes, each with its own optimizer, labelled in the %%tfgrad report.

TensorFlow's DCGAN tutorial: an ``@tf.function`` ``train_step`` computes ``gen_loss`` and
``disc_loss`` under two tapes and steps two optimizers, called from ``train(dataset,
epochs)``.  Each optimizer's records carry the loss its gradients came from, named as the
code names it; a single-loss step reads as it always did.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug.collect.loss_targets import LossTargets

#: the DCGAN tutorial's shape, tiny: Dense generator and discriminator on 8x8 images
DCGAN = """
import numpy as np, tensorflow as tf, keras
tf.random.set_seed(0)
def make_generator_model():
    return keras.Sequential([
        keras.Input((4,)),
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dense(64, activation="tanh"),
        keras.layers.Reshape((8, 8, 1)),
    ])
def make_discriminator_model():
    return keras.Sequential([
        keras.Input((8, 8, 1)),
        keras.layers.Flatten(),
        keras.layers.Dense(8, activation="relu"),
        keras.layers.Dense(1),
    ])
generator = make_generator_model()
discriminator = make_discriminator_model()
cross_entropy = keras.losses.BinaryCrossentropy(from_logits=True)
def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss
def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)
generator_optimizer = keras.optimizers.Adam(1e-3)
discriminator_optimizer = keras.optimizers.Adam(1e-3)
images = np.random.default_rng(0).uniform(-1, 1, size=(32, 8, 8, 1)).astype("float32")
train_dataset = tf.data.Dataset.from_tensor_slices(images).batch(8)
returned = []

@tf.function
def train_step(images):
    noise = tf.random.normal([8, 4])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated_images = generator(noise, training=True)
        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)
    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    {apply}
    return gen_loss, disc_loss

def train(dataset, epochs):
    for epoch in range(epochs):
        for image_batch in dataset:
            returned.append([float(v) for v in train_step(image_batch)])
"""

APPLY = """generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(
        zip(gradients_of_discriminator, discriminator.trainable_variables))"""


def run(shell: InteractiveShell, code: str):  # type: ignore[no-untyped-def]
    with capture_output() as out:
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    assert result.success, f"{result.error_in_exec!r}\n{out.stdout[-2000:]}"
    return result, out


def record(shell: InteractiveShell, cell: str):  # type: ignore[no-untyped-def]
    result, out = run(shell, "%%tfgrad -q -o\n" + cell)
    return result.result, np.array(shell.user_ns["returned"])


def test_applied_gradients_find_their_call_or_the_one_pending_loss() -> None:
    import tensorflow as tf

    v = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        a = v * v
        b = v * 3.0
    targets = LossTargets()
    (ga,) = tape.gradient(a, [v])
    (gb,) = tape.gradient(b, [v])
    targets.note(a, [ga], None)
    targets.note(b, [gb], None)
    # the objects gradient returned, applied in the other order
    matched = targets.take([gb])
    assert matched is not None and matched.loss is b
    matched = targets.take([ga])
    assert matched is not None and matched.loss is a
    # eager gradients made anew from them (clipped) match no call: the one pending loss ...
    targets.note(a, [ga], None)
    matched = targets.take([tf.clip_by_norm(ga, 1.0)])
    assert matched is not None and matched.loss is a
    # ... and none of two: never the wrong one
    targets.note(a, [ga], None)
    targets.note(b, [gb], None)
    assert targets.take([tf.clip_by_norm(ga, 1.0)]) is None
    # a target that is no scalar is no loss
    targets.note(tf.stack([a, b]), [ga], None)
    matched = targets.take([ga])
    assert matched is not None and matched.loss is None


@pytest.mark.slow
def test_both_dcgan_losses_are_shown_each_with_its_name_and_values(
    shell: InteractiveShell,
) -> None:
    run(shell, DCGAN.format(apply=APPLY))
    run(shell, "train(train_dataset, 1)")  # traced before the recorded cell, as in the tutorial
    shell.user_ns["returned"].clear()
    report, returned = record(shell, "train(train_dataset, 1)")
    assert returned.shape == (4, 2)
    assert [s.label for s in report.losses] == ["gen_loss", "disc_loss"]
    for series, column in zip(report.losses, returned.T, strict=True):
        np.testing.assert_allclose(series.values, column, rtol=1e-6)
    summary = "\n".join(report.summary)
    assert f"gen_loss: first {returned[0, 0]:.6g}, last {returned[-1, 0]:.6g}" in summary
    assert f"disc_loss: first {returned[0, 1]:.6g}, last {returned[-1, 1]:.6g}" in summary
    assert "\nloss: " not in "\n" + summary  # no unlabelled loss mixing the two
    text = report.to_text()
    assert "[gen_loss over steps]" in text and "[disc_loss over steps]" in text
    assert "gen_loss over steps" in report.to_html()  # the plots, one per loss
    # the generator's records carry the generator's loss (the one the report's rules read)
    np.testing.assert_allclose(report.history.loss, returned[:, 0], rtol=1e-6)


#: the losses reach the tapes as ``losses[0]``, ``losses[1]``: no variable names them
UNNAMED = """
@tf.function
def train_step(images):
    noise = tf.random.normal([8, 4])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        fake_output = {D}({G}(noise, training=True), training=True)
        real_output = {D}(images, training=True)
        losses = (generator_loss(fake_output), discriminator_loss(real_output, fake_output))
    g = gen_tape.gradient(losses[0], {G}.trainable_variables)
    d = disc_tape.gradient(losses[1], {D}.trainable_variables)
    {g_opt}.apply_gradients(zip(g, {G}.trainable_variables))
    {d_opt}.apply_gradients(zip(d, {D}.trainable_variables))
    return losses
"""


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        (  # the optimizers' variables
            dict(
                G="generator",
                D="discriminator",
                g_opt="generator_optimizer",
                d_opt="discriminator_optimizer",
            ),
            ["generator_optimizer", "discriminator_optimizer"],
        ),
        (  # optimizers no variable holds: the models' variables
            dict(G="generator", D="discriminator", g_opt="opts[0]", d_opt="opts[1]"),
            ["generator", "discriminator"],
        ),
        (  # nothing the code names
            dict(G="nets[0]", D="nets[1]", g_opt="opts[0]", d_opt="opts[1]"),
            ["loss 1", "loss 2"],
        ),
    ],
)
@pytest.mark.slow
def test_a_loss_no_variable_holds_takes_the_next_name_the_code_gives(
    shell: InteractiveShell, names: dict[str, str], labels: list[str]
) -> None:
    run(shell, DCGAN.format(apply=APPLY))
    run(
        shell,
        "opts = [keras.optimizers.Adam(1e-3), keras.optimizers.Adam(1e-3)]\n"
        "nets = [make_generator_model(), make_discriminator_model()]",
    )
    run(shell, UNNAMED.format(**names))
    report, returned = record(shell, "train(train_dataset, 1)")
    assert [s.label for s in report.losses] == labels
    for series, column in zip(report.losses, returned.T, strict=True):
        np.testing.assert_allclose(series.values, column, rtol=1e-6)


@pytest.mark.slow
def test_clipped_gradients_are_traced_back_to_their_loss(shell: InteractiveShell) -> None:
    clipped = (
        "gradients_of_generator = [tf.clip_by_norm(g, 1.0) for g in gradients_of_generator]\n"
        "    gradients_of_discriminator, _ = tf.clip_by_global_norm(gradients_of_discriminator, 1.0)\n"
        "    " + APPLY
    )
    run(shell, DCGAN.format(apply=clipped))
    report, returned = record(shell, "train(train_dataset, 1)")
    assert [s.label for s in report.losses] == ["gen_loss", "disc_loss"]
    for series, column in zip(report.losses, returned.T, strict=True):
        np.testing.assert_allclose(series.values, column, rtol=1e-6)


SINGLE = """
import numpy as np, tensorflow as tf, keras
model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Flatten(), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
images = np.random.default_rng(0).uniform(-1, 1, size=(32, 8, 8, 1)).astype("float32")
train_dataset = tf.data.Dataset.from_tensor_slices(images).batch(8)
returned = []

@tf.function
def train_step(images):
    with tf.GradientTape() as tape:
        my_loss = tf.reduce_mean(tf.square(model(images, training=True)))
    grads = tape.gradient(my_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return (my_loss,)

def train(dataset, epochs):
    for epoch in range(epochs):
        for image_batch in dataset:
            returned.append([float(v) for v in train_step(image_batch)])
"""


@pytest.mark.slow
def test_a_single_loss_step_reads_as_before(shell: InteractiveShell) -> None:
    run(shell, SINGLE)
    report, returned = record(shell, "train(train_dataset, 1)")
    assert report.losses == ()
    summary = list(report.summary)
    assert f"loss: first {returned[0, 0]:.6g}, last {returned[-1, 0]:.6g}" in summary
    assert not any(line.startswith("my_loss") for line in summary)
    assert "[Loss over steps]" in report.to_text()
    np.testing.assert_allclose(report.history.loss, returned[:, 0], rtol=1e-6)


@pytest.mark.slow
def test_an_eager_step_names_its_losses_from_the_cell(shell: InteractiveShell) -> None:
    # the same step without @tf.function: the names are read from the notebook cell itself
    run(shell, DCGAN.format(apply=APPLY).replace("@tf.function\n", ""))
    report, returned = record(shell, "train(train_dataset, 1)")
    assert [s.label for s in report.losses] == ["gen_loss", "disc_loss"]
    for series, column in zip(report.losses, returned.T, strict=True):
        np.testing.assert_allclose(series.values, column, rtol=1e-6)


@pytest.mark.slow
def test_a_keras_gan_trained_by_fit_names_the_losses_of_its_train_step() -> None:
    # the Keras GAN example: two optimizers stepped inside the model's own train_step
    from tests._keras_examples import gan
    from tfnb_debug import record_gradients

    model = gan()
    x = np.random.default_rng(0).uniform(size=(32, 8)).astype("float32")
    with record_gradients() as rec:
        model.fit(x, batch_size=8, epochs=1, verbose=0)
    report = rec.result()
    assert [s.label for s in report.losses] == ["d_loss", "g_loss"]
    assert [len(s.values) for s in report.losses] == [4, 4]


def test_g05_and_g07_read_each_labelled_loss() -> None:
    from tfnb_debug.diagnostics.gradients import check_losses

    steps = np.arange(12)
    moving = np.linspace(2.0, 1.0, 12)
    flat = np.full(12, 0.6931)
    broken = moving.copy()
    broken[7:] = np.nan
    found = check_losses([("gen_loss", steps, moving), ("disc_loss", steps, broken)])
    assert [(f.code, f.message.split(" became")[0]) for f in found] == [
        ("G05", "the loss 'disc_loss'")
    ]
    assert "at step 7" in found[0].message
    found = check_losses([("gen_loss", steps, flat), ("disc_loss", steps, moving)])
    assert [f.code for f in found] == ["G07"] and "'gen_loss'" in found[0].message
    assert check_losses([("gen_loss", steps, moving), ("disc_loss", steps, moving)]) == []


@pytest.mark.slow
def test_a_nan_in_the_second_loss_alone_is_found_and_named(shell: InteractiveShell) -> None:
    """The discriminator's loss is NaN (a constant NaN term: its gradients stay finite, so
    no G03), the generator's is fine: G05 names disc_loss (it used to read the first
    optimizer's loss only)."""
    code = DCGAN.format(apply=APPLY).replace(
        "disc_loss = discriminator_loss(real_output, fake_output)",
        "disc_loss = discriminator_loss(real_output, fake_output) + tf.math.log(-tf.ones([]))",
    )
    run(shell, code)
    report, returned = record(shell, "train(train_dataset, 1)")
    assert np.isnan(returned[:, 1]).all() and np.isfinite(returned[:, 0]).all()
    codes = [f.code for f in report.findings]
    assert codes.count("G05") == 1 and "G03" not in codes, codes
    g05 = next(f for f in report.findings if f.code == "G05")
    assert "'disc_loss'" in g05.message, g05.message
