"""Diagnostics: the rules, one module per family; each takes plain facts and thresholds.

See docs/architecture.md for the layers and how to add a finding.
"""
