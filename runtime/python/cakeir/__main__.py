"""`python -m cakeir ARGS...` and the `cakec` command the wheel installs: runs the cakec executable with ARGS.

cakec is found as cakeir.compile finds it (_tools.py: $CAKE_CAKEC, the package's bin/cakec, the source
tree's build*/cakec; never PATH, which holds this very command); $CAKE_MACHINES_DIR defaults to the
package's machine files."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import _tools


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        cakec = _tools.find_cakec(use_path=False)
    except FileNotFoundError as error:
        print("error: %s" % error, file=sys.stderr)
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(cakec, [cakec] + list(args), _tools.tool_environment())
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
