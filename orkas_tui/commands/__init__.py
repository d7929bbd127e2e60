"""Every CLI command, one module each; each exposes ``register(subparsers)``."""

from orkas_tui.commands import demo, status

REGISTRARS = [
    status.register,
    status.register_prompt,
    demo.register,
]
