"""Screens pushed over the main view: help, confirmations, the skill editor, text viewers."""
