"""Observe: one turn's facts from its events, the transient rule, corrections, signals and skill metrics."""
