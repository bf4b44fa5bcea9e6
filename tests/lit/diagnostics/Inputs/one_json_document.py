"""one_json_document.py FILE: FILE must hold exactly one JSON document, an array of diagnostics (json.loads
fails on anything after it); prints the count, then the first element's code, severity, file, line and
message, separated by spaces."""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.loads(f.read())
assert isinstance(doc, list), "not an array"
first = doc[0] if doc else {}
print(len(doc), first.get("code"), first.get("severity"), first.get("file"), first.get("line"), first.get("message"))
