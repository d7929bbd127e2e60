"""Store: skills, self notes, proposals, history and the journal: the only writers of an agent's files."""
