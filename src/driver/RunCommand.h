// `cakec run FILE [--kernel NAME] [--shape N=1000,...] [--inputs A.npy,B=b.npy] [--outputs C.npy]
//             [--scalar alpha=0.5] [-D NAME=VALUE] [--seed S] [--max-steps N] [--diagnostics-format json]`
//
// Runs one kernel of FILE on the CPU with the interpreter (src/interp; docs/interpreter.md): parse, inline,
// sema (with -D), then interp::runKernel.  The verifier does not run (cakec FILE --verify-only does).
// Inputs bind to the tensor parameters in declaration order (or by name: PARAM=PATH); outputs take the
// tensor parameters after the inputs, in order (or by name).  .npy reading and writing: interp/Npy.h.
// Exit codes as for the compiler: 0 success, 1 errors in the input or the run, 2 usage, 3 environment.
#pragma once

namespace cake {

int runRunCommand(int argc, char **argv);

} // namespace cake
