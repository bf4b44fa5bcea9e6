"""Every sample has an interpreter correctness test: each samples/*.cake is named by a unit test of the
interpreter (tests/unit/test_interp*.cpp, "NAME.cake", which runs it against a reference) or a lit test of
tests/lit/interp (`%samples/NAME.cake`), and each kernel of a sample with several kernels is named there too."""

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_all(folder, prefix, suffix):
    out = ""
    for name in sorted(os.listdir(folder)):
        if name.startswith(prefix) and name.endswith(suffix):
            with open(os.path.join(folder, name)) as f:
                out += f.read()
    return out


def test_every_sample_has_an_interpreter_test():
    unit = read_all(os.path.join(REPO, "tests", "unit"), "test_interp", ".cpp")
    lit = read_all(os.path.join(REPO, "tests", "lit", "interp"), "", ".cake")
    missing = []
    for name in sorted(os.listdir(os.path.join(REPO, "samples"))):
        if not name.endswith(".cake"):
            continue
        run_by_unit = '"%s"' % name in unit
        run_by_lit = "%%samples/%s" % name in lit
        if not (run_by_unit or run_by_lit):
            missing.append(name)
            continue
        with open(os.path.join(REPO, "samples", name)) as f:
            kernels = re.findall(r"^\s*kernel\s+(\w+)", f.read(), re.M)
        if len(kernels) > 1:
            missing += ["%s:%s" % (name, k) for k in kernels if '"%s"' % k not in unit and "--kernel %s" % k not in lit]
    assert not missing, "samples without an interpreter test: %s" % ", ".join(missing)
