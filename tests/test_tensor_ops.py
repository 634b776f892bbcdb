"""The op shape contracts read inside a Lambda (explain/_tensor_ops.py): each positional
argument of the op is bound to its own parameter."""

from __future__ import annotations

import ast

import keras
import pytest

from tfnb_debug.explain._tensor_ops import _bind, _split


def _call(text: str) -> ast.Call:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


def test_every_positional_argument_keeps_its_own_parameter() -> None:
    values, texts = _bind("split", _call("keras.ops.split(t, 3, 1)"), "t", "input", "readings")
    assert values == {"x": "input", "indices_or_sections": 3, "axis": 1}
    assert texts == {"x": "readings"}


def test_a_split_over_the_axis_given_by_position_is_checked_on_that_axis() -> None:
    readings = keras.KerasTensor((None, 10))
    values, texts = _bind("split", _call("keras.ops.split(t, 3, 1)"), "t", readings, "readings")
    assert values is not None
    found = _split(values, texts)
    assert found is not None and "has 10 there" in found[0] and "[4, 7]" in found[1]
    # the same split over axis 0 (unknown size) says nothing
    values, texts = _bind("split", _call("keras.ops.split(t, 3, 0)"), "t", readings, "readings")
    assert values is not None and _split(values, texts) is None


@pytest.mark.parametrize("text", ["keras.ops.split(t, n)", "keras.ops.squeeze(t, 1, 2, 3)"])
def test_an_argument_that_is_not_a_literal_or_past_the_parameters_is_not_bound(text: str) -> None:
    op = _call(text).func
    assert isinstance(op, ast.Attribute)
    assert _bind(op.attr, _call(text), "t", "input", "x")[0] is None
