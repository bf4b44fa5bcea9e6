#!/usr/bin/env bash
# A stand-in for ptxas used by tests/lit/diagnostics/E0705_ptxas_error.cake: rejects the first PTX line that
# contains "ex2.approx", in ptxas's message format, and exits 255 like ptxas does on errors.
# Called as: fake_ptxas.sh -arch=sm_XX FILE.ptx -o OUT.cubin [-v]
ptx=$2
line=$(grep -n 'ex2.approx' "$ptx" | head -1 | cut -d: -f1)
if [ -n "$line" ]; then
  echo "ptxas $ptx, line $line; error   : fake rejection of ex2"
  exit 255
fi
echo "fake_ptxas: nothing to reject" >&2
exit 1
