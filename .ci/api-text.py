"""Writes the public API of one module as sorted text, from its symbol graphs (.ci/symbol-graphs).

One line per symbol: its parent's path, then its declaration as the compiler prints it, with the
access level (`public` or `open`) put back; members of an extension say so when the extension is on
a protocol (a default implementation, not a requirement) or has a `where` clause. A type's
conformances follow it, one line each. Extensions of other modules' types are named with their
module (`Swift.Range where Bound == Int: ...`). Left out: anything below public, underscored names,
synthesized members, and the implicit conformances to Copyable, Escapable and SendableMetatype.
The first line counts the top-level types and the symbols (conformance and extension lines are not
symbols). Used by .ci/api. Usage: python3 .ci/api-text.py <Module> <dir with its symbol graphs>
"""
import json
import pathlib
import re
import sys

IMPLICIT_CONFORMANCES = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype"}
IMPLICIT_REQUIREMENTS = {"Copyable", "Escapable"}
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
NO_ACCESS_KEYWORD = {"swift.enum.case", "swift.associatedtype", "swift.extension"}

module, folder = sys.argv[1], pathlib.Path(sys.argv[2])
files = [folder / f"{module}.symbols.json"] + sorted(folder.glob(f"{module}@*.symbols.json"))
if not files[0].exists():
    sys.exit(f"error: {files[0]} does not exist")


def one_line(text):
    return re.sub(r"\s+", " ", text).strip()


def constraints_text(constraints):
    parts = []
    for c in constraints or []:
        if c["kind"] == "conformance" and c["rhs"] in IMPLICIT_REQUIREMENTS:
            continue
        parts.append(f'{c["lhs"]} {"==" if c["kind"] == "sameType" else ":"} {c["rhs"]}')
    return " where " + ", ".join(parts) if parts else ""


def hidden(path):
    return any(component.startswith("_") for component in path)


graphs = [(file, json.load(open(file))) for file in files]
# Names of every symbol of the module, for relationships that cross files (an extension of
# Swift.Range conforming to one of this module's protocols).
names = {s["identifier"]["precise"]: ".".join(s["pathComponents"]) for _, g in graphs for s in g["symbols"]}
lines = set()
top_level_types = set()
symbol_count = 0
for file, graph in graphs:
    other_module = "@" in file.name  # extensions of another module's types
    symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
    parents = {}
    requirements = set()
    for rel in graph["relationships"]:
        if rel["kind"] in ("memberOf", "requirementOf", "optionalRequirementOf"):
            parents[rel["source"]] = rel["target"]
        if rel["kind"] in ("requirementOf", "optionalRequirementOf"):
            requirements.add(rel["source"])

    def display_path(symbol):
        path = list(symbol["pathComponents"])
        extension = symbol.get("swiftExtension") or {}
        if other_module and extension.get("extendedModule"):
            path[0] = f'{extension["extendedModule"]}.{path[0]}'
        return path

    def parent_label(symbol):
        path = display_path(symbol)[:-1]
        label = ".".join(path)
        extension = symbol.get("swiftExtension")
        parent = symbols.get(parents.get(symbol["identifier"]["precise"], ""))
        if parent is not None and parent["kind"]["identifier"] == "swift.extension":
            # A member of an extension of another module's type: the extension's own constraints.
            label += constraints_text((parent.get("swiftExtension") or {}).get("constraints"))
        elif extension and (extension.get("typeKind") == "swift.protocol" or extension.get("constraints")):
            label = "extension " + label + constraints_text(extension.get("constraints"))
        return label

    for precise, symbol in symbols.items():
        kind = symbol["kind"]["identifier"]
        path = symbol["pathComponents"]
        if symbol.get("accessLevel") not in ("public", "open") or hidden(path) or "::SYNTHESIZED::" in precise:
            continue
        declaration = one_line("".join(f["spelling"] for f in symbol["declarationFragments"]))
        parent = symbols.get(parents.get(precise, ""))
        in_protocol = parent is not None and parent["kind"]["identifier"] == "swift.protocol" and not symbol.get("swiftExtension")
        if kind not in NO_ACCESS_KEYWORD and not in_protocol:
            attributes, rest = re.match(r"^((?:@\w+(?:\([^)]*\))? )*)(.*)$", declaration).groups()
            declaration = f'{attributes}{symbol["accessLevel"]} {rest}'
        if kind == "swift.extension":
            key = display_path(symbol)
            text = f'extension {".".join(key)}{constraints_text((symbol.get("swiftExtension") or {}).get("constraints"))}'
            lines.add((tuple(key), 0, text))
            continue
        symbol_count += 1
        if len(path) == 1 and kind in TYPE_KINDS and not other_module:
            top_level_types.add(path[0])
        label = parent_label(symbol) if len(path) > 1 else ""
        lines.add((tuple(display_path(symbol)), 0, f"{label}: {declaration}" if label else declaration))

    for rel in graph["relationships"]:
        if rel["kind"] not in ("conformsTo", "inheritsFrom"):
            continue
        source = symbols.get(rel["source"])
        if source is None or source.get("accessLevel") not in ("public", "open") or hidden(source["pathComponents"]):
            continue
        name = names.get(rel["target"]) or rel.get("targetFallback") or rel["target"]
        if name in IMPLICIT_CONFORMANCES or hidden(name.split(".")):
            continue
        path = display_path(source)
        owner = ".".join(path)
        where = constraints_text(rel.get("swiftConstraints"))
        if source["kind"]["identifier"] == "swift.extension":
            owner += constraints_text((source.get("swiftExtension") or {}).get("constraints"))
            where = "" if owner.endswith(where) else where  # the extension's own clause, said once
        verb = "conforms to" if rel["kind"] == "conformsTo" else "inherits from"
        lines.add((tuple(path), 1, f"{owner}: {verb} {name}{where}"))

print(f"# {module}: {len(top_level_types)} public top-level types, {symbol_count} public symbols.")
print("# Generated by `.ci/api --write` from the symbol graph; do not edit. `.ci/api --check` compares.")
for _, _, text in sorted(lines):
    print(text)
