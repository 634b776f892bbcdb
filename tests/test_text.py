"""The ground-level text helpers: one first_line, one strip_ansi, one key_sentence."""

from __future__ import annotations

import keras
import pytest

from tfnb_debug.ground.text import first_line, key_sentence, loss_name, strip_ansi


def test_first_line_and_strip_ansi() -> None:
    assert first_line(ValueError("  bad shape\nmore detail")) == "bad shape"
    assert first_line(KeyError()) == "KeyError"  # an empty message gives the type's name
    assert strip_ansi("\x1b[1mDense\x1b[0m expects \x1b[31;1m8\x1b[0m") == "Dense expects 8"


def test_key_sentence_skips_the_wrappers_of_keras_and_tensorflow() -> None:
    keras_build = (
        "Exception encountered when calling Sequential.call().\n\n"
        "\x1b[1mCould not automatically infer the output shape / dtype of 'sequential' "
        "(of type Sequential). Either the `Sequential.call()` method is incorrect.\x1b[0m\n\n"
        "Either the `Sequential.call()` method is incorrect, or implement it.\nError encountered:\n\n"
        'Input 0 of layer "dense_1" is incompatible with the layer: expected 8, got 4\n\n'
        "Arguments received by Sequential.call():\n  • inputs=tf.Tensor(shape=(None, 4))"
    )
    assert key_sentence(keras_build).startswith('Input 0 of layer "dense_1" is incompatible')
    graph = (
        "Graph execution error:\n\nDetected at node 'model/dense/MatMul' defined at:\n"
        '  File "<ipython-input-3-abc>", line 1, in <module>\n'
        "{{function_node __inference_train_function_42}} Matrix size-incompatible: "
        "In[0]: [32,4], In[1]: [8,1]\n\t [[{{node model/dense/MatMul}}]]"
    )
    assert key_sentence(graph) == "Matrix size-incompatible: In[0]: [32,4], In[1]: [8,1]"
    eager = "Incompatible shapes: [4,3] vs. [4,2] [Op:AddV2] name: add"
    assert key_sentence(eager) == "Incompatible shapes: [4,3] vs. [4,2]"
    assert key_sentence("\n  \nArguments received by Dense.call():\n") == ""
    long = key_sentence("x" * 400, limit=50)
    assert len(long) == 50 and long.endswith("…")


def test_key_sentence_of_a_real_keras_error() -> None:
    with pytest.raises(ValueError) as info:  # Keras colours the sentence and wraps it
        keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Reshape((2, 2))])
    assert "Exception encountered when calling" in str(info.value)
    assert key_sentence(str(info.value)) == (
        "The total size of the tensor must be unchanged. "
        "Received: input_shape=(3,), target_shape=(2, 2)"
    )


def test_loss_name_says_what_the_user_compiled() -> None:
    assert loss_name("mse") == "mse"
    assert (
        loss_name(keras.losses.SparseCategoricalCrossentropy()) == "sparse_categorical_crossentropy"
    )
    assert loss_name({"a": "mse", "b": [keras.losses.mean_absolute_error]}) == (
        "a: mse, b: mean_absolute_error"
    )
