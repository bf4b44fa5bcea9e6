#!/usr/bin/env bash
# expect-exit.sh N COMMAND [ARGS...]: runs COMMAND (its stdout and stderr pass through) and succeeds iff it
# exits with status N.  Used by lit tests as %expect-exit to pin cakec's exit codes exactly.
if [ $# -lt 2 ]; then
  echo "usage: expect-exit.sh STATUS COMMAND [ARGS...]" >&2
  exit 2
fi
expected=$1
shift
"$@"
actual=$?
if [ "$actual" -ne "$expected" ]; then
  echo "expect-exit.sh: '$*' exited with status $actual, expected $expected" >&2
  exit 1
fi
exit 0
