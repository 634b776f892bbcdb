"""Diagnostics: the rules, facts -> findings; see docs/architecture.md."""
