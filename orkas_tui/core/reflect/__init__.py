"""Reflect: the queue, the bundle, the prompt, the model call and one reflection's run."""
