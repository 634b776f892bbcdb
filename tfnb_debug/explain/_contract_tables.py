"""The contract tables of the families kept in their own modules, in one place for
:mod:`._contracts` (each entry: API names, the check, the raise-site patterns it explains)."""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._config_contracts import CONFIG_CONTRACTS
from tfnb_debug.explain._dataset_structure import fit_on_windows
from tfnb_debug.explain._loop_contracts import LOOP_CONTRACTS
from tfnb_debug.explain._state_contracts import STATE_CONTRACTS
from tfnb_debug.explain._text_data_contracts import TEXT_DATA_CONTRACTS

FAMILY_CONTRACTS: tuple[tuple[Any, ...], ...] = (
    *CONFIG_CONTRACTS,
    *LOOP_CONTRACTS,
    *TEXT_DATA_CONTRACTS,
    *STATE_CONTRACTS,
    (("Model.fit", "Model.evaluate", "Model.predict"), fit_on_windows, (r"_NestedVariant",)),
)
