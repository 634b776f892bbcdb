"""Interactive views (ipywidgets): the click-through layer inspector.

Nothing here is imported by ``import tfnb_debug``; ipywidgets loads on first use.
"""
