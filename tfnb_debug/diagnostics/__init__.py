"""Diagnostics: see STYLE.md."""
