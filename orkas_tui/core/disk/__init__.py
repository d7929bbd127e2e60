"""Disk: how bytes safely leave and reach it (confinement, regular-file opens, atomic writes, locks, appends)."""
