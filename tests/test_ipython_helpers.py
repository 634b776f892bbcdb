"""The glue every magic shares: ``user_objects`` and option splitting off a magic's own parser."""

from __future__ import annotations

from IPython.core.interactiveshell import InteractiveShell

from tfnb_debug.magics.shape import ShapeMagics
from tfnb_debug.magics.shell import grouped_arguments, split_options, user_objects


def test_user_objects_by_kind_in_definition_order(shell: InteractiveShell) -> None:
    # the process has one shell: names another test left in it (a `model` seen once in a full
    # run) are set aside, so the names read are this cell's, in its order
    ns = shell.user_ns
    hidden = set(shell.user_ns_hidden)
    kept = {k: ns.pop(k) for k in list(ns) if not k.startswith("_") and k not in hidden}
    try:
        shell.run_cell(
            """
import keras, tensorflow as tf
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
opt = keras.optimizers.SGD()
ds = tf.data.Dataset.range(3)
alias = ds
_hidden = keras.optimizers.Adam()
f = tf.function(lambda t: t + 1)
n = 3
"""
        )
        assert list(user_objects(shell, ("model", "optimizer"))) == ["m", "opt"]
        assert user_objects(shell, ("model", "optimizer"), private=True)["_hidden"] is ns["_hidden"]
        assert list(user_objects(shell, ("dataset",))) == ["ds", "alias"]
        assert list(user_objects(shell, ("function",))) == ["f"]
        assert list(user_objects(shell, ("layer",))) == ["m"]  # a model is a layer too
        assert user_objects(shell, ()) == {}
    finally:
        ns.update(kept)


def test_split_options_reads_the_magics_own_arguments() -> None:
    magic = ShapeMagics.tfshape
    assert split_options(magic, "-q --input-shape=2,4 m x[:, 0]") == (
        "-q --input-shape=2,4",
        "m x[:, 0]",
    )
    assert split_options(magic, "--var r -o -- -m") == ("--var r -o", "-m")
    assert split_options(magic, "model 'a -q b'") == ("", "model 'a -q b'")
    # an unknown option is left for argparse to name, before or after the code
    assert split_options(magic, "-x model") == ("-x", "model")
    assert split_options(magic, "model x --bogus") == ("--bogus", "model x")
    assert split_options(magic, "model x[:, -1] -q") == ("-q", "model x[:, -1]")
    assert split_options(magic, "model f(a, -b) '--c'") == ("", "model f(a, -b) '--c'")
    assert split_options(magic, "-- model -x") == ("", "model -x")


def test_grouped_arguments_keep_a_bracketed_expression_with_spaces_whole() -> None:
    assert grouped_arguments("model --data (x, y)") == ["model", "--data", "(x, y)"]
    assert grouped_arguments("m --data np.c_[a, b] --validation-split 0.2") == [
        "m",
        "--data",
        "np.c_[a, b]",
        "--validation-split",
        "0.2",
    ]
    assert grouped_arguments('m --data f("a (b", c)') == ["m", "--data", 'f("a (b", c)']
    # what IPython's own split gives is kept: no brackets, quoted words, unbalanced lines
    assert grouped_arguments("m --data x,y") == ["m", "--data", "x,y"]
    assert grouped_arguments("m --data 'a b'") == ["m", "--data", "'a b'"]
    assert grouped_arguments("m --data (x, y") == ["m", "--data", "(x,", "y"]
