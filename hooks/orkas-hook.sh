#!/bin/sh
# The orkas-tui plugin's hook: runs the installed `orkas-tui hook claude-code` with the
# hook's JSON on stdin. Without orkas-tui on PATH, the first SessionStart says so once, as a
# systemMessage Claude Code shows the person; every other call exits 0 and says nothing.
said="${CLAUDE_PLUGIN_DATA:-${XDG_STATE_HOME:-$HOME/.local/state}/orkas-tui}/orkas-tui-missing-said"
if command -v orkas-tui >/dev/null 2>&1; then
  rm -f "$said"
  exec orkas-tui hook claude-code
fi
[ "$1" = SessionStart ] && [ ! -e "$said" ] || exit 0
mkdir -p "$(dirname "$said")" && : >"$said"
printf '%s\n' '{"systemMessage": "orkas-tui plugin: the orkas-tui command is not on PATH, so this session is not imported. Install it so that `orkas-tui` runs from your shell, then start a new session. (Said once.)"}'
exit 0
