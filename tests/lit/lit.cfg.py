# lit configuration for the cakec end-to-end tests.
#
# Run through ctest (tests/CMakeLists.txt) or utils/run-tests.sh, which pass the tool paths as parameters:
#   lit -sv --param cakec=BUILD/cakec --param filecheck=/usr/lib/llvm-14/bin/FileCheck \
#       --param exec_root=BUILD/tests/lit --param source_root=. tests/lit
# Substitutions available in RUN lines:
#   %cakec        the compiler under test
#   %FileCheck    LLVM FileCheck (also plain `FileCheck`)
#   %expect-exit  utils/expect-exit.sh: `%expect-exit N cmd...` passes iff cmd exits with status N
#   %samples      the samples/ directory
#   %kernels      the kernels/ directory (the workload kernels)
#   %python       the Python interpreter running lit
#   %time-scale   how much slower this build's cakec is than the optimised one (20 for the ASan + UBSan build,
#                 --param time_scale; 1 otherwise): wall-clock limits in RUN lines are multiplied by it
#   %s %t %S      lit's usual: this file, a per-test temporary path, this file's directory
import os
import shutil
import sys

import lit.formats

config.name = "cake"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cake"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)


def required_param(name):
    value = lit_config.params.get(name)
    if not value:
        lit_config.fatal("missing --param %s=... (run the suite through ctest or utils/run-tests.sh)" % name)
    return value


cakec = required_param("cakec")
filecheck = lit_config.params.get("filecheck") or shutil.which("FileCheck") or "/usr/lib/llvm-14/bin/FileCheck"
source_root = lit_config.params.get("source_root") or os.path.dirname(os.path.dirname(config.test_source_root))
config.test_exec_root = lit_config.params.get("exec_root") or os.path.join(source_root, "build", "tests", "lit")

config.substitutions.append(("%cakec", cakec))
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("%expect-exit", os.path.join(source_root, "utils", "expect-exit.sh")))
config.substitutions.append(("%samples", os.path.join(source_root, "samples")))
config.substitutions.append(("%kernels", os.path.join(source_root, "kernels")))
config.substitutions.append(("%python", sys.executable or "python3"))
config.substitutions.append(("%time-scale", lit_config.params.get("time_scale") or "1"))

# Plain `FileCheck`, `not` and `count` also work in RUN lines.
llvm_bin = os.path.dirname(filecheck)
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Sanitizer builds: make any finding fail the test loudly.
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Deterministic messages.
config.environment["LC_ALL"] = "C"
