"""Collect: see STYLE.md."""
