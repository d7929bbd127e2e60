"""Reflect: the queue, the bundle, redaction, the prompt, the model call and one reflection's run."""
