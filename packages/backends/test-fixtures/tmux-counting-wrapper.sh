#!/bin/sh
# COUNTING WRAPPER (test instrument, not a stand-in): logs one line per tmux client process
# ("<ms since epoch> <argv>") to $TMUX_COUNT_LOG, then execs the real tmux
# ($TMUX_COUNT_REAL, default /usr/bin/tmux) with the same arguments.
if [ -n "$TMUX_COUNT_LOG" ]; then
  printf '%s %s\n' "$(date +%s%3N)" "$*" >> "$TMUX_COUNT_LOG"
fi
exec "${TMUX_COUNT_REAL:-/usr/bin/tmux}" "$@"
