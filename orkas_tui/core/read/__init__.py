"""Read: files confined to the workspace, tailing by offset, time parsing, the layout and its settings."""
