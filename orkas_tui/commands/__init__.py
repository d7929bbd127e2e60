"""Every CLI command, one module each; each exposes ``register(subparsers)``."""

from orkas_tui.commands import demo, history, proposals, queue, reflect, status, transcripts

REGISTRARS = [
    status.register,
    status.register_prompt,
    demo.register,
    queue.register,
    reflect.register,
    proposals.register,
    history.register,
    transcripts.register,
    transcripts.register_export,
]
