// The build spec of a kernel library (docs/library.md): the JSON file `cakec library build` reads.
//
//   {"format": "cake-library-spec", "version": 1, "name": "gemm_bf16",
//    "shape_vars": ["M", "N", "K"], "domain": "M >= 1 && N >= 1 && K >= 1", "targets": ["sm_90a"],
//    "variants": [{"name": "big", "source": "gemm.cake", "kernel": "gemm", "arch": "sm_90a",
//                  "defines": {"BN": 256, "T": "bf16"}},
//                 {"name": "splitk", "source": "splitk.cake", "kernel": "partial", "then": ["reduce"],
//                  "workspace": ["W"]},
//                 {"name": "splitk_other", "source": "other_partial.cake", "kernel": "partial", "workspace": ["W"],
//                  "then": [{"source": "reduce.cake", "kernel": "reduce", "defines": {"SPLITS": 4}}]}, ...],
//    "dispatch": [{"guard": "M >= 1024 && K % 64 == 0", "variant": "big"}, ..., {"fallback": true, "variant": "any"}]}
//
// readLibrarySpec() checks the spec's structure and reports every problem as a diagnostic located in the
// spec's text (E0850 malformed field, E0851 unknown variant, E0852 misplaced or missing fallback, E0853 guard
// that is not an expression over the shape variables).  JSON values carry no positions, so each entry's
// location is found by scanning the text (SpecLocator): the i-th "guard"/"fallback" key after "dispatch" is
// entry i, the i-th "name" key after "variants" is variant i.
#pragma once
#include "Expr.h"
#include "support/Diagnostics.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::library {

// A kernel a variant launches after its first ("then"): one of the variant's own source (a name), or one of
// another source compiled with its own defines (an object).
struct StepSpec {
  std::string kernel;
  std::string source;                               // empty: the variant's source, with the variant's defines
  std::map<std::string, int64_t> defines;           // for `source`
  std::map<std::string, std::string> typeDefines;
};

struct VariantSpec {
  std::string name;
  std::string source;                               // path relative to the spec's folder (or absolute)
  std::string kernel;                               // the kernel the table dispatches to (default: the only one)
  std::string arch;                                 // optional: --arch for this variant
  std::map<std::string, int64_t> defines;           // -D NAME=VALUE
  std::map<std::string, std::string> typeDefines;   // -D NAME=TYPE
  std::vector<std::string> options;                 // further cakec options (e.g. "--no-verify")
  std::vector<std::string> compile;                 // "compile": the kernels of the source built (cakec --kernel);
                                                    // empty: all of them
  std::vector<StepSpec> then;                       // "then": kernels launched after `kernel`, in order
  std::vector<std::string> workspace;               // "workspace": parameters the runtime allocates per call
  SourceRange range;                                // its "name" in the spec
};

struct EntrySpec {
  size_t variant = 0;
  bool fallback = false;
  rt::Expr guard;      // `1` for the fallback
  SourceRange range;   // the guard string (or the "fallback" key)
};

struct LibrarySpec {
  std::string name;
  std::string path;                     // the spec file
  std::vector<std::string> shapeVars;   // empty: taken from the first variant's manifest
  rt::Expr domain;                      // empty: every shape
  SourceRange domainRange;
  std::vector<std::string> targets;   // empty: the variants' own archs
  unsigned tableCheckMs = 0;          // "table_check_ms": a larger solver budget per table query (0: none)
  std::vector<VariantSpec> variants;
  std::vector<EntrySpec> entries;
};

// Parses the spec held in SourceManager file `file`; nullopt after reporting diagnostics.
std::optional<LibrarySpec> readLibrarySpec(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

}   // namespace cake::library
