// `cakec library build SPEC.json -o DIR [--ptxas PATH] [--verify-timeout MS] [--color]`
//
// Builds a kernel library (docs/library.md): reads the spec (src/library/LibrarySpec.h), compiles every
// variant with the ordinary pipeline (runDriver: verify, codegen, ptxas) into DIR/<variant>.cubin and its
// manifest, checks the signatures and the dispatch table with Z3 (src/library/TableCheck.h), and only then
// writes DIR/library.json, the file the runtime loads (cake_library_load, cakeir.load_library).  Every
// problem is a diagnostic located in the spec (or in the variant's .cake file); exit codes as for the
// compiler: 0 built, 1 errors in the spec, a variant or the table, 2 usage, 3 environment.
//
// `cakec library estimate SPEC.json --shape ..` (the cost model's price of every variant) is
// src/driver/LibraryEstimate.h; runLibraryCommand dispatches both subcommands.
#pragma once

namespace cake {

int runLibraryCommand(int argc, char **argv);

}   // namespace cake
