"""`python -m cakeir.lsp`: the CAKE language server on stdin / stdout (see server.py)."""

import sys


def main() -> None:
    try:
        from .server import main as serve
    except ImportError as e:
        sys.stderr.write("cakeir.lsp needs pygls (pip install 'pygls>=2,<3', or cakeir[lsp]): %s\n" % e)
        sys.exit(3)
    serve()


if __name__ == "__main__":
    main()
