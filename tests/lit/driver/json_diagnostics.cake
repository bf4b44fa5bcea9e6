// --diagnostics-format=json: one JSON array on stdout (stderr stays empty), parsed here by Python's json
// module; with no diagnostics it is [].
// RUN: %expect-exit 1 %cakec %S/Inputs/syntax_error.cake --verify-only --diagnostics-format=json 2>%t.err > %t.json
// RUN: count 0 < %t.err
// RUN: python3 -c 'import json,sys; d=json.load(sys.stdin); assert isinstance(d, list) and d, d; [print(x["code"], x["severity"], x["line"], x["column"]) for x in d]' < %t.json | %FileCheck %s
// CHECK: E0201 error 3 7
// RUN: %FileCheck %s --check-prefix=FIELDS < %t.json
// FIELDS: {"code":"E0201","kind":"ExpectedToken","severity":"error","file":"{{.*}}syntax_error.cake","line":3,"column":7,"end_line":3,"end_column":{{[0-9]+}},"message":"expected
// Command-line diagnostics (no location) are JSON too.
// RUN: %expect-exit 2 %cakec %s -D 1=2 --diagnostics-format=json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[0]["code"] == "E0503" and d[0]["file"] is None, d'
// Valid input: an empty array.
// RUN: %cakec %s --verify-only --diagnostics-format=json 2>/dev/null | python3 -c 'import json,sys; assert json.load(sys.stdin) == []'
target sm_80;
