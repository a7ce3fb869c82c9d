"""Fails when a public symbol of a symbol graph has no doc comment of its own.

Members that implement a documented protocol requirement inherit its comment in DocC and are not
counted. Used by .ci/docs (the root package's modules) and .ci/doc-coverage (the companions').
Usage: python3 .ci/undocumented-symbols.py <Module>.symbols.json
"""
import json
import sys

graph = json.load(open(sys.argv[1]))
implementing = {rel["source"] for rel in graph["relationships"] if rel["kind"] in ("defaultImplementationOf", "overrides")}
missing = []
for symbol in graph["symbols"]:
    if symbol.get("docComment") or symbol["identifier"]["precise"] in implementing:
        continue
    if symbol["kind"]["identifier"] in ("swift.extension",):
        continue
    if symbol["names"]["title"].startswith("$"):  # a property wrapper's projection, documented by its property
        continue
    location = symbol.get("location", {})
    where = f'{location.get("uri", "?").split("/Sources/")[-1]}:{location.get("position", {}).get("line", 0) + 1}'
    missing.append(f'{where}: {symbol["kind"]["displayName"]} {".".join(symbol["pathComponents"])} has no doc comment')
for line in sorted(missing):
    print(f"error: {line}")
if missing:
    print(f"{sys.argv[1].split('/')[-1]}: {len(missing)} public symbols without a doc comment")
    sys.exit(1)
