"""Read: what the workspace says: tailing by offset, events, time parsing, the layout and its settings."""
