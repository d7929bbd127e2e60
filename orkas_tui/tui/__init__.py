"""The Textual inspector: renders core state and sends a person's intents back to the core."""
