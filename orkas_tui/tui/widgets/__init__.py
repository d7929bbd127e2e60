"""Widgets: the sidebar, one pane per tab, and the keyed table they share."""
