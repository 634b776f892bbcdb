"""Interactive views: the click-through layer inspector (an anywidget front end).

Nothing here is imported by ``import tfnb_debug``; anywidget and ipywidgets load on first use.
"""
