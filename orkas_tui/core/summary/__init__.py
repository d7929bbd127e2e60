"""Summary: each conversation folded into scored turns and skill uses; the caches of what was folded."""
