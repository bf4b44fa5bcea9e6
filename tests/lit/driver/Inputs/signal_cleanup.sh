#!/usr/bin/env bash
# signal_cleanup.sh CAKEC FILE DIR FAKE_PTXAS SIGNAL: starts `CAKEC FILE -o DIR/k.cubin` with a ptxas that
# never exits, sends SIGNAL to cakec once ptxas runs, and checks what is left: cakec must die of that signal,
# ptxas and its child must be gone, and neither ptxas's temporary folder nor an output may remain.
cakec=$1 file=$2 dir=$3 ptxas=$4 sig=$5
mkdir -p "$dir/tmp"
env TMPDIR="$dir/tmp" FAKE_PTXAS_MODE=hang FAKE_PTXAS_PIDFILE="$dir/pids" \
  "$cakec" "$file" -o "$dir/k.cubin" --ptxas "$ptxas" 2>"$dir/stderr" &
cakec_pid=$!
for _ in $(seq 200); do [ -s "$dir/pids" ] && break; sleep 0.1; done
[ -s "$dir/pids" ] || { echo "FAIL: ptxas never started"; exit 1; }
kill -"$sig" "$cakec_pid"
wait "$cakec_pid"
status=$?
echo "cakec exit status $status"
for pid in $(cat "$dir/pids"); do
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then echo "FAIL: process $pid still runs"; kill -9 "$pid"; fi
done
echo "left in TMPDIR: $(ls -A "$dir/tmp" | wc -l)"
echo "outputs: $(ls -A "$dir" | grep -c 'k\.cubin')"
