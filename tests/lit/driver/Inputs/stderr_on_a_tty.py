#!/usr/bin/env python3
# stderr_on_a_tty.py COMMAND [ARGS...]: runs COMMAND with its stderr on a pseudo-terminal (stdout discarded)
# and writes what the terminal received to stdout, control characters escaped ("\r" as the two characters
# \ and r), then "exit N".  For tests of output that only terminals get (progress bars).
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
received = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:   # EIO: the child closed the terminal
        break
    if not chunk:
        break
    received += chunk
child.wait()
sys.stdout.write(received.decode("utf-8", "replace").replace("\r", "\\r").replace("\n", "\\n\n") + "\n")
sys.stdout.write("exit %d\n" % child.returncode)
