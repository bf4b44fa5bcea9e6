"""`import cake` in the source tree is `import cakeir` (the scripts in bench/ use this name).

Only the source tree has it: the wheel installs `cakeir` alone, since `cake` is an unrelated package's
name on PyPI."""

import sys

import cakeir

sys.modules[__name__] = cakeir
