"""The demo: a generated workspace, its proposal and the simulator that keeps it alive."""
