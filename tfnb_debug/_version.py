"""The single source of tfnb_debug's version."""

__version__ = "0.1.0"
