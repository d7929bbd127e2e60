"""Observe sessions of other agents (Claude Code, Codex) and give skills back to them.

Importers translate a foreign transcript into spec conversation events, so the core
scores those turns like any Orkas turn; exporters write skills and self notes where
those agents read them.
"""
