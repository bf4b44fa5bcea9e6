#!/usr/bin/env bash
# A misbehaving stand-in for ptxas, for the driver's hardening tests.  FAKE_PTXAS_MODE picks the misbehaviour:
#   bignum     an error on PTX line 99999999999999999999 (exit 255)
#   bigreport  a resource report with numbers past 64 bits, then a valid cubin (exit 0)
#   longline   one 300,000-character error line (exit 255)
#   nocubin    exit 0 without writing the cubin
#   crash      killed by SIGSEGV
#   hang       never exits (waits for a child sleep), writing "ITS_PID SLEEP_PID" to $FAKE_PTXAS_PIDFILE if set
#   ok         writes a small cubin (exit 0)
# `--version` prints a ptxas-like version banner.  Called as: hostile_ptxas.sh -arch=sm_XX FILE.ptx -o OUT [-v]
if [ "$1" = "--version" ]; then
  echo "ptxas: NVIDIA (R) Ptx optimizing assembler"
  echo "Cuda compilation tools, release 99.9, V99.9.999"
  exit 0
fi
ptx=$2
out=$4
case "$FAKE_PTXAS_MODE" in
  bignum)
    echo "ptxas $ptx, line 99999999999999999999; error   : fake error on a line past 64 bits"
    exit 255 ;;
  bigreport)
    echo "ptxas info    : Compiling entry function 'k' for 'sm_80'"
    echo "ptxas info    : Used 99999999999999999999 registers, 99999999999999999999 bytes smem"
    echo "    99999999999999999999 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    printf 'FAKECUBIN' > "$out"
    exit 0 ;;
  longline)
    printf 'ptxas %s, line 1; error   : ' "$ptx"
    head -c 300000 /dev/zero | tr '\0' 'x'
    echo
    exit 255 ;;
  nocubin)
    exit 0 ;;
  crash)
    kill -SEGV $$ ;;
  hang)
    sleep 1000 &
    [ -n "$FAKE_PTXAS_PIDFILE" ] && echo "$$ $!" > "$FAKE_PTXAS_PIDFILE.tmp" && mv "$FAKE_PTXAS_PIDFILE.tmp" "$FAKE_PTXAS_PIDFILE"
    wait ;;
  *)
    printf 'FAKECUBIN' > "$out"
    exit 0 ;;
esac
