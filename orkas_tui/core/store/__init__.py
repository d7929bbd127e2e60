"""Store: skills, self notes, proposals, history, the journal, and the checks (guard, redaction) every write of model text passes."""
