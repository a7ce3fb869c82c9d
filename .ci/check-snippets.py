#!/usr/bin/env python3
"""Checks the ```swift blocks of README.md and the DocC catalogs: see .ci/check-snippets for the
convention. Standard library only (runs with the toolchain machine's python3)."""

import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.getcwd()
PRELUDES = os.path.join(ROOT, ".ci", "snippets")
WORK = os.path.abspath(os.environ.get("SNIPPETS_DIR", os.path.join(ROOT, ".build-snippets")))
PKG = os.path.join(WORK, "selftest" if "--self-test" in sys.argv[1:] else "pkg")
FILTER = os.environ.get("SNIPPETS_FILTER", "")
KEEP_GOING = os.environ.get("SNIPPETS_KEEP_GOING", "1") != "0"
RUN_TIMEOUT = 60
BUILD_TIMEOUT = 1800
MARKER = "// @snippet"
OPTION_KEYS = {"prelude", "run", "skip", "reason", "manifest", "kind", "expect"}

failures = []  # (location, message lines)


def rel(path):
    return os.path.relpath(path, ROOT)


def fail(location, *lines):
    failures.append((location, list(lines)))
    print(f"FAIL {location}")
    for line in lines:
        print(f"  {line}")


def banner(text):
    print(f"\n--- {text}", flush=True)


# ----------------------------------------------------------------------------------------------
# Reading the blocks


class Block:
    def __init__(self, path, fence_line, lines, options, option_line, ordinal):
        self.path = path              # relative to ROOT
        self.fence_line = fence_line  # 1-based line of the opening fence
        self.lines = lines            # [(markdown line number, text)]
        self.options = options        # dict
        self.option_line = option_line
        stem = re.sub(r"[^A-Za-z0-9]", "", os.path.splitext(os.path.basename(path))[0])
        # Named by position, not line, so editing prose above a block keeps its build products.
        self.name = f"{stem}_{ordinal}" if not path.endswith(".swift") else f"Doc{stem}_{ordinal}"

    @property
    def is_doc_comment(self):
        return self.path.endswith(".swift")

    @property
    def first_code_line(self):
        return next((text.strip() for _, text in self.lines if text.strip() and not text.strip().startswith("//")), "")

    @property
    def where(self):
        return f"{self.path}:{self.fence_line}"

    @property
    def text(self):
        return "\n".join(text for _, text in self.lines) + "\n"


# A doc-comment block that starts like a member of a type is put inside one (the doc-members prelude).
MEMBER_START = re.compile(r"^(static\s|var\s+\w+\s*:[^=]*\{)")

DIRECTIVE = re.compile(r"^\s*<!--\s*snippet:(.*?)-->\s*$")
FENCE = re.compile(r"^( {0,3}|\s*)(`{3,}|~{3,})\s*([^\s`]*)")


def parse_options(text, where):
    options = {}
    try:
        tokens = shlex.split(text)
    except ValueError as error:
        fail(where, f"cannot read the snippet comment: {error}")
        return options
    for token in tokens:
        key, _, value = token.partition("=")
        if key not in OPTION_KEYS:
            fail(where, f"unknown snippet option '{key}' (known: {', '.join(sorted(OPTION_KEYS))})")
            continue
        options[key] = value if "=" in token else True
    if "skip" in options and not options.get("reason"):
        fail(where, 'a skip needs a reason: <!-- snippet: skip reason="why this block is not checked" -->')
    return options


DOC_LINE = re.compile(r"^\s*/// ?(.*)$")


def doc_comment_lines(text):
    """A Swift file as the markdown of its `///` doc comments: each doc line keeps its number with
    the `///` and one space removed; every other line is blank, so a block cannot run past its
    comment and a snippet comment may only be followed by its block."""
    return [(match.group(1) if match else "") for match in (DOC_LINE.match(line) for line in text.split("\n"))]


def read_blocks(path):
    blocks = []
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    lines = doc_comment_lines(text) if path.endswith(".swift") else text.split("\n")
    pending = None  # (options, line) of directives waiting for their block
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 1
        directive = DIRECTIVE.match(line)
        if directive:
            options = parse_options(directive.group(1), f"{rel(path)}:{number}")
            if pending:
                pending[0].update(options)
            else:
                pending = (options, number)
            index += 1
            continue
        fence = FENCE.match(line)
        if fence and (fence.group(2).startswith("`") or fence.group(2).startswith("~")):
            indent, ticks, language = len(fence.group(1)), fence.group(2), fence.group(3).lower()
            body = []
            index += 1
            closed = False
            while index < len(lines):
                inner = lines[index]
                if inner.strip().startswith(ticks[0] * len(ticks)) and inner.strip().strip(ticks[0]) == "":
                    closed = True
                    break
                stripped = inner[indent:] if inner[:indent].strip() == "" else inner.lstrip()
                body.append((index + 1, stripped))
                index += 1
            if not closed:
                fail(f"{rel(path)}:{number}", "this code block is never closed")
            if language == "swift":
                options, option_line = pending if pending else ({}, None)
                blocks.append(Block(rel(path), number, body, options, option_line, len(blocks) + 1))
            elif pending:
                fail(f"{rel(path)}:{pending[1]}", f"a snippet comment belongs right before a ```swift block, not ```{language}")
            pending = None
            index += 1
            continue
        if pending and line.strip():
            fail(f"{rel(path)}:{pending[1]}", "a snippet comment must be followed by its ```swift block (only blank lines between)")
            pending = None
        index += 1
    return blocks


SELF_TEST = "--self-test" in sys.argv[1:]


def documentation_files():
    if SELF_TEST:
        return [os.path.join(PRELUDES, "selftest", "broken.md")]
    files = [os.path.join(ROOT, "README.md")]
    files += sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "**", "*.md"), recursive=True))
    # The doc comments of the two library modules, read as markdown (doc_comment_lines).
    for module in ("EndpointRouter", "EndpointRouterTesting"):
        files += sorted(glob.glob(os.path.join(ROOT, "Sources", module, "**", "*.swift"), recursive=True))
    return [path for path in files if os.path.exists(path)]


# ----------------------------------------------------------------------------------------------
# Lint


SELF_RETURN = re.compile(
    r"\bvar\s+(\w+)\s*:\s*[^{=\n]+?\{\s*(?:get\s*\{\s*)?(?:return\s+)?(?:self\.)?(\w+)\s*\}", re.S)


def lint(block):
    problems = []
    text = block.text
    for match in SELF_RETURN.finditer(text):
        if match.group(1) == match.group(2):
            line = block.lines[text.count("\n", 0, match.start())][0]
            name = match.group(1)
            problems.append(
                f"{block.path}:{line}: computed property '{name}' returns itself: reading it recurses until the "
                f"stack overflows (return a stored value, e.g. `{{ Self.shared{name[:1].upper() + name[1:]} }}` with a `static let`)")
    # A block that shows its imports is copied as a whole file: on Linux, URLRequest and friends
    # need FoundationNetworking, which a prelude's imports would otherwise hide.
    if re.search(r"^\s*import\s", text, re.M) and "FoundationNetworking" not in text:
        match = re.search(r"\b(URLRequest|URLSession|URLSessionConfiguration|URLSession\w*Task|HTTPURLResponse|URLResponse|URLCredential|URLProtocol)\b", text)
        if match:
            line = block.lines[text.count("\n", 0, match.start())][0]
            problems.append(
                f"{block.path}:{line}: '{match.group(1)}' is in FoundationNetworking on Linux, and this block shows its "
                "imports: add `#if canImport(FoundationNetworking)` / `import FoundationNetworking` / `#endif`")
    return problems


# ----------------------------------------------------------------------------------------------
# Composing a module from preludes and the block


def prelude_lines(name, where):
    path = os.path.join(PRELUDES, f"{name}.swift")
    if not os.path.exists(path):
        available = sorted(os.path.splitext(f)[0] for f in os.listdir(PRELUDES) if f.endswith(".swift")) if os.path.isdir(PRELUDES) else []
        fail(where, f"no prelude '{name}': expected {rel(path)} (available: {', '.join(available) or 'none'})")
        return None
    with open(path, encoding="utf-8") as handle:
        return rel(path), handle.read().rstrip("\n").split("\n")


def compose(block, prelude_names):
    """Returns [(text, (file, line))] or None. The block's `import` lines go first, so a prelude may
    wrap the rest of the block in a function or closure."""
    imports = [(md, text) for md, text in block.lines if re.match(r"\s*(@\w+\s+)?import\s", text)]
    body = [(md, text) for md, text in block.lines if (md, text) not in imports] if prelude_names else block.lines
    if not prelude_names:
        imports = []
    out = [(text.strip(), (block.path, md)) for md, text in imports]
    placed = False
    for name in prelude_names:
        loaded = prelude_lines(name, block.where)
        if loaded is None:
            return None
        path, lines = loaded
        for number, line in enumerate(lines, start=1):
            if not placed and line.strip() == MARKER:
                indent = line[: len(line) - len(line.lstrip())]
                out += [((indent + text) if text.strip() else "", (block.path, md)) for md, text in body]
                placed = True
            else:
                out.append((line, (path, number)))
    if not placed:
        out += [(text, (block.path, md)) for md, text in body]
    return out


DECLARATION_START = re.compile(
    r"^(import|enum|struct|class|actor|protocol|extension|func|typealias|macro|precedencegroup|operator|"
    r"prefix|postfix|infix|indirect|public|package|internal|fileprivate|private|open|final|nonisolated|"
    r"@|#if|#else|#elseif|#endif|#warning|#sourceLocation|[})\].,:]|->|where\b|throws\b|async\b)")


def strip_code(line, state):
    """Removes comments and string contents from a line; state carries /* */ and \"\"\" across lines."""
    out = []
    i = 0
    while i < len(line):
        if state["block_comment"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block_comment"] = False
            i = end + 2
            continue
        if state["multiline_string"]:
            end = line.find('"""', i)
            if end < 0:
                return "".join(out)
            state["multiline_string"] = False
            out.append('""')
            i = end + 3
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block_comment"] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state["multiline_string"] = True
            i += 3
            continue
        if line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def classify(composed):
    """'exec' when the module has top-level statements, 'test' when it has @Test, else 'lib'."""
    depth = 0
    state = {"block_comment": False, "multiline_string": False}
    statements = False
    for text, _ in composed:
        code = strip_code(text, state).strip()
        if depth == 0 and code and not DECLARATION_START.match(code):
            statements = True
        for char in code:
            if char in "{([":
                depth += 1
            elif char in "})]":
                depth = max(0, depth - 1)
    if statements:
        return "exec"
    if any(re.match(r"\s*@(Test|Suite)\b", text) for text, _ in composed):
        return "test"
    return "lib"


# ----------------------------------------------------------------------------------------------
# The scratch package


class Module:
    def __init__(self, block, name, composed, kind, run):
        self.block = block
        self.name = name
        self.composed = composed
        self.kind = kind
        self.run = run

    @property
    def filename(self):
        return "main.swift" if self.kind == "exec" else f"{self.name}.swift"

    def origin(self, line):
        if 1 <= line <= len(self.composed):
            return self.composed[line - 1][1]
        return None


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def root_package():
    # Its own scratch path: a `swift build` of the repository holds the lock on .build meanwhile.
    out = subprocess.run(["swift", "package", "--scratch-path", os.path.join(WORK, "root-manifest"), "dump-package"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        print(out.stdout + out.stderr)
        sys.exit("check-snippets: `swift package dump-package` failed for the repository itself")
    return json.loads(out.stdout)


def write_package(modules, root):
    identity = os.path.basename(ROOT.rstrip("/"))
    platforms = ", ".join(
        f".{p['platformName'].replace('macos', 'macOS').replace('ios', 'iOS').replace('tvos', 'tvOS').replace('watchos', 'watchOS')}"
        f"(\"{p['version']}\")" for p in root.get("platforms", []))
    targets = []
    documented = any(module.block.is_doc_comment for module in modules)
    if documented:
        # What doc-comment examples name without declaring (.ci/snippets/doc-fixtures).
        targets.append('        .target(name: "DocFixtures", dependencies: products, path: "DocFixtures", swiftSettings: strict),')
        source = os.path.join(PRELUDES, "doc-fixtures", "DocFixtures.swift")
        with open(source, encoding="utf-8") as handle:
            write_if_changed(os.path.join(PKG, "DocFixtures", "DocFixtures.swift"), handle.read())
    for module in modules:
        factory = {"exec": "executableTarget", "test": "testTarget", "lib": "target"}[module.kind]
        dependencies = 'products + ["DocFixtures"]' if module.block.is_doc_comment else "products"
        targets.append(f'        .{factory}(name: "{module.name}", dependencies: {dependencies}, path: "Blocks/{module.name}", swiftSettings: strict),')
    manifest = "\n".join([
        "// swift-tools-version:6.2",
        "// Generated by .ci/check-snippets: one module per documentation block. Do not edit.",
        "import PackageDescription",
        "",
        "let products: [Target.Dependency] = [",
        f'    .product(name: "EndpointRouter", package: "{identity}"),',
        f'    .product(name: "EndpointRouterTesting", package: "{identity}"),',
        "]",
        'let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]',
        "",
        "let package = Package(",
        '    name: "Blocks",',
        f"    platforms: [{platforms}],",
        f"    dependencies: [.package(path: {json.dumps(ROOT)})],",
        "    targets: [",
        *targets,
        "    ],",
        "    swiftLanguageModes: [.v6]",
        ")",
        "",
    ])
    write_if_changed(os.path.join(PKG, "Package.swift"), manifest)
    wanted = set()
    for module in modules:
        directory = os.path.join(PKG, "Blocks", module.name)
        wanted.add(module.name)
        for existing in os.listdir(directory) if os.path.isdir(directory) else []:
            if existing != module.filename:
                os.remove(os.path.join(directory, existing))
        write_if_changed(os.path.join(directory, module.filename), "\n".join(text for text, _ in module.composed) + "\n")
    snippets_dir = os.path.join(PKG, "Blocks")
    # With SNIPPETS_FILTER the other blocks' files stay, so the next full run does not recompile them.
    for existing in os.listdir(snippets_dir) if os.path.isdir(snippets_dir) and not FILTER else []:
        if existing not in wanted:
            shutil.rmtree(os.path.join(snippets_dir, existing))


DIAGNOSTIC = re.compile(r"^(/[^:]+\.swift):(\d+):(\d+): (error|warning|note): (.*)$")


def module_file(module):
    return os.path.join(PKG, "Blocks", module.name, module.filename)


def parse_diagnostics(output, modules):
    """{module name: [lines]} for the modules the output has errors for, and the error lines that
    name no module (the library's own, or the linker's)."""
    by_file = {os.path.realpath(module_file(m)): m for m in modules}
    failed, foreign, seen = {}, [], set()
    for raw in output.splitlines():
        match = DIAGNOSTIC.match(raw)
        if not match:
            if re.search(r"\berror:", raw):
                foreign.append(raw)
            continue
        path, line, column, severity, message = match.groups()
        module = by_file.get(os.path.realpath(path))
        if module is None:
            if severity == "error":
                foreign.append(raw)
            continue
        key = (module.name, line, column, severity, message)
        if key in seen:
            continue
        seen.add(key)
        origin = module.origin(int(line))
        source = module.composed[int(line) - 1][0].strip() if origin else ""
        where = f"{origin[0]}:{origin[1]}:{column}" if origin else f"{rel(path)}:{line}:{column}"
        entry = failed.setdefault(module.name, [])
        if severity == "note" and not entry:
            continue
        entry.append(f"{where}: {severity}: {message}")
        if source and severity != "note":
            entry.append(f"    {source}")
    return failed, foreign


def build(modules, root):
    """One `swift build --build-tests` of all modules: (exit code, output)."""
    write_package(modules, root)
    started = time.monotonic()
    try:
        out = subprocess.run(["swift", "build", "--build-tests", "--package-path", PKG],
                             capture_output=True, text=True, timeout=BUILD_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        sys.exit(f"check-snippets: swift build did not finish within {BUILD_TIMEOUT} s")
    output = out.stdout + out.stderr
    print(f"swift build --build-tests: {len(modules)} modules, exit {out.returncode}, {time.monotonic() - started:.1f} s", flush=True)
    with open(os.path.join(WORK, "build.log"), "w", encoding="utf-8") as handle:
        handle.write(output)
    return out.returncode, output


def typecheck_each(modules):
    """After a failed build (SwiftPM stops at the first failing module), type-checks every module on
    its own against the library modules the build left, two at a time, so every block is reported."""
    started = time.monotonic()
    bin_path = subprocess.run(["swift", "build", "--show-bin-path", "--package-path", PKG],
                              capture_output=True, text=True, timeout=120).stdout.strip()
    include = os.path.join(bin_path, "Modules")
    if not os.path.exists(os.path.join(include, "EndpointRouterTesting.swiftmodule")):
        return None
    # The C modules the library imports (CLibcurl), which a client's compiler must find by their map.
    module_maps = [flag for path in sorted(glob.glob(os.path.join(bin_path, "*.build", "module.modulemap")))
                   for flag in ("-Xcc", f"-fmodule-map-file={path}")]
    pending = list(modules)
    running = []
    output = []
    jobs = max(1, min(4, os.cpu_count() or 2))
    while pending or running:
        while pending and len(running) < jobs:
            module = pending.pop(0)
            args = ["swiftc", "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-module-name", module.name,
                    "-I", include, *module_maps, module_file(module)]
            if module.kind != "exec":
                args.insert(2, "-parse-as-library")
            running.append(subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        process = running.pop(0)
        output.append(process.communicate(timeout=BUILD_TIMEOUT)[0])
    print(f"swiftc -typecheck of each of {len(modules)} modules: {time.monotonic() - started:.1f} s", flush=True)
    return "\n".join(output)


# ----------------------------------------------------------------------------------------------
# Manifests


def git(*args):
    try:
        out = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out


def parse_version(text):
    match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?", text.strip())
    return tuple(int(part) for part in match.groups()) if match else None


def line_of(block_lines, needle):
    for md, text in block_lines:
        if needle in text:
            return md
    return block_lines[0][0] if block_lines else 0


def check_manifest(block, composed, root):
    where = block.where
    directory = tempfile.mkdtemp(prefix="snippet-manifest-")
    try:
        with open(os.path.join(directory, "Package.swift"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(text for text, _ in composed) + "\n")
        out = subprocess.run(["swift", "package", "dump-package", "--package-path", directory],
                             capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        if out.returncode != 0:
            lines = []
            for raw in (out.stdout + out.stderr).splitlines():
                match = re.match(r".*Package\.swift:(\d+):(\d+): (error|warning): (.*)", raw)
                if match:
                    number = int(match.group(1))
                    origin = composed[number - 1][1] if 0 < number <= len(composed) else (where, number)
                    lines.append(f"{origin[0]}:{origin[1]}:{match.group(2)}: {match.group(3)}: {match.group(4)}")
            fail(where, "the manifest does not parse (swift package dump-package):", *(lines or (out.stdout + out.stderr).strip().splitlines()[-15:]))
            return False
        manifest = json.loads(out.stdout)
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    problems = []
    ours = {p["name"] for p in root["products"] if "library" in p.get("type", {})}
    root_name = root["name"]
    local_targets = {t["name"] for t in manifest.get("targets", [])}
    dependencies = {}  # identity (lowercased) → (kind, details)
    for dependency in manifest.get("dependencies", []):
        for kind, details in dependency.items():
            detail = details[0]
            identity = detail.get("identity", "").lower()
            location = detail.get("location", {})
            url = location.get("remote", [{}])[0].get("urlString", "") if isinstance(location, dict) and "remote" in location else ""
            path = location.get("local", [""])[0] if isinstance(location, dict) and "local" in location else detail.get("path", "")
            dependencies[identity] = (kind, detail, url or path)
    is_ours = {identity for identity, (_, _, where_from) in dependencies.items()
               if identity == root_name.lower() or os.path.basename(where_from.rstrip("/")).removesuffix(".git").lower() == root_name.lower()}
    names = {(d[1].get("nameForTargetDependencyResolutionOnly") or "").lower() for d in dependencies.values()}

    for target in manifest.get("targets", []):
        for dependency in target.get("dependencies", []):
            if "byName" in dependency:
                name = dependency["byName"][0]
                if name in local_targets:
                    continue
                if name.lower() in dependencies or name.lower() in names:
                    if name.lower() in is_ours and name not in ours:
                        problems.append((line_of(block.lines, f'"{name}"'), f"{root_name} has no library product '{name}' (it has {', '.join(sorted(ours))})"))
                    continue
                suggestion = f'.product(name: "{name}", package: "{root_name}")' if name in ours else f'.product(name: "{name}", package: "<package>")'
                problems.append((line_of(block.lines, f'"{name}"'),
                                 f"target '{target['name']}' depends on \"{name}\", which is neither a target of this package nor a "
                                 f"package it depends on; SwiftPM fails with \"product '{name}' ... not found\". Write {suggestion}"))
            elif "product" in dependency:
                name, package = dependency["product"][0], dependency["product"][1]
                if package is None or package.lower() not in dependencies and package.lower() not in names:
                    problems.append((line_of(block.lines, f'"{name}"'),
                                     f"target '{target['name']}' names product '{name}' of package '{package}', which the manifest does not depend on"))
                elif package.lower() in is_ours and name not in ours:
                    problems.append((line_of(block.lines, f'"{name}"'), f"{root_name} has no library product '{name}' (it has {', '.join(sorted(ours))})"))

    for identity in sorted(is_ours):
        kind, detail, _ = dependencies[identity]
        requirement = detail.get("requirement", {})
        if kind != "sourceControl":
            continue
        repo = git("rev-parse", "--git-dir")
        if repo is None or repo.returncode != 0:
            print(f"  note: {where}: not in a git repository, the version requirement on {root_name} is not checked")
            continue
        if "range" in requirement or "exact" in requirement:
            listing = git("tag", "--list")
            tags = [t for t in (listing.stdout.split() if listing else []) if parse_version(t)]
            if "range" in requirement:
                bounds = requirement["range"][0]
                low, high = parse_version(bounds["lowerBound"]), parse_version(bounds["upperBound"])
                wanted = f'from: "{bounds["lowerBound"]}"'
                ok = [t for t in tags if low <= parse_version(t) < high]
            else:
                version = requirement["exact"][0]
                wanted = f'exact: "{version}"'
                ok = [t for t in tags if parse_version(t) == parse_version(version)]
            if not ok:
                problems.append((line_of(block.lines, ".package("),
                                 f"{wanted} matches no tag of this repository (version tags: {', '.join(tags) or 'none'}); "
                                 f"tag a release or write branch: \"main\" / revision: \"<commit>\""))
        elif "branch" in requirement:
            branch = requirement["branch"][0]
            found = any(git("rev-parse", "--verify", "--quiet", ref).returncode == 0
                        for ref in (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}"))
            if not found:
                current = git("rev-parse", "--abbrev-ref", "HEAD")
                refs = git("for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes")
                if refs is not None and not refs.stdout.strip():
                    print(f"  note: {where}: this clone has no branches to compare branch: \"{branch}\" with")
                elif not (current and current.stdout.strip() == branch):
                    problems.append((line_of(block.lines, ".package("), f'branch: "{branch}" is not a branch of this repository'))
        elif "revision" in requirement:
            revision = requirement["revision"][0]
            if git("cat-file", "-e", f"{revision}^{{commit}}").returncode != 0:
                problems.append((line_of(block.lines, ".package("), f'revision: "{revision}" is not a commit of this repository'))

    # SwiftPM assumes old deployment targets when a manifest names no platform (macOS 10.13), and
    # then refuses a dependency that needs a newer one.
    if any(text.lstrip().startswith("let package = Package(") for text, origin in composed if origin[0] == block.path):
        declared = {p["platformName"]: p["version"] for p in manifest.get("platforms", [])}
        for platform in root.get("platforms", []):
            name, version = platform["platformName"], platform["version"]
            have = declared.get(name)
            if have is None and name == "macos":
                problems.append((line_of(block.lines, "Package("),
                                 f"no platforms: SwiftPM then assumes macOS 10.13 and refuses {root_name}, which needs macOS {version}; "
                                 f"add platforms: [.macOS(.v{version.split('.')[0]}), ...]"))
            elif have is not None and tuple(map(int, have.split("."))) < tuple(map(int, version.split("."))):
                problems.append((line_of(block.lines, "platforms"), f"{name} {have} is below what {root_name} needs ({version})"))

    if problems:
        fail(where, *(f"{block.path}:{line}: {message}" for line, message in problems))
        return False
    return True


def is_manifest(block):
    text = block.text
    return bool(block.options.get("manifest")) or text.lstrip().startswith("// swift-tools-version") or "let package = Package(" in text


# ----------------------------------------------------------------------------------------------
# Running


def describe_exit(code):
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code in (128 + signal.SIGSEGV, 128 + signal.SIGILL, 128 + signal.SIGTRAP, 128 + signal.SIGABRT):
        return f"exit {code} ({signal.Signals(code - 128).name})"
    return f"exit {code}"


def summarize_output(text, module):
    """The lines of a run's output that say what went wrong, with the module's file:line rewritten to
    the markdown file:line: the crash reason and the first frames in the block, else the last lines."""
    path = re.compile(r"/\S*/Blocks/" + re.escape(module.name) + r"/[\w.]+:(\d+)(?::\d+)?")

    def mapped(line):
        def to_origin(match):
            origin = module.origin(int(match.group(1)))
            return f"{origin[0]}:{origin[1]}" if origin else match.group(0)
        return path.sub(to_origin, line)

    lines = [line for line in text.splitlines() if line.strip() and not re.match(r"^\s*(r\w+|rip|rflags|cs|fs|gs)\s+0x", line)]
    keep, frames = [], []
    for line in lines:
        if re.search(r"Program crashed|Fatal error|Signal \d+|error:|Precondition failed|Assertion failed", line):
            keep.append(mapped(line.strip()))
        elif path.search(line) and re.match(r"^\s*\d+ ", line):
            frame = mapped(re.sub(r"^\s*\d+\s+(\[ra\]\s+)?0x[0-9a-f]+\s+", "", line.strip()))
            if frame not in frames:
                frames.append(frame)
    if keep or frames:
        return keep + [f"  at {frame}" for frame in frames[:6]]
    return [mapped(line) for line in lines[-20:]]


def run_executables(modules):
    bin_path = subprocess.run(["swift", "build", "--show-bin-path", "--package-path", PKG],
                              capture_output=True, text=True, timeout=120).stdout.strip()
    count = 0
    for module in modules:
        binary = os.path.join(bin_path, module.name)
        started = time.monotonic()
        try:
            out = subprocess.run([binary], cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                                 stdin=subprocess.DEVNULL, env=dict(os.environ, SNIPPETS_ROOT=ROOT))
        except subprocess.TimeoutExpired as timeout:
            fail(module.block.where, f"ran for more than {RUN_TIMEOUT} s without finishing (an endless loop or a wait that never ends?)",
                 *((timeout.stdout or b"").decode(errors="replace") if isinstance(timeout.stdout, bytes) else (timeout.stdout or "")).splitlines()[-10:])
            continue
        elapsed = time.monotonic() - started
        if out.returncode != 0:
            hint = " (a stack overflow? look for a property or function that calls itself)" if out.returncode == -signal.SIGSEGV else ""
            fail(module.block.where, f"ran and failed: {describe_exit(out.returncode)} after {elapsed:.1f} s{hint}",
                 *summarize_output(out.stdout + out.stderr, module))
        else:
            count += 1
            print(f"ran   {module.block.where} ({module.name}, {elapsed:.1f} s)")
    return count


def run_tests(modules):
    if not modules:
        return 0
    args = ["swift", "test", "--skip-build", "--package-path", PKG]
    for module in modules:
        args += ["--filter", f"^{module.name}\\."]
    started = time.monotonic()
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT * 3, stdin=subprocess.DEVNULL,
                             env=dict(os.environ, SNIPPETS_ROOT=ROOT))
    except subprocess.TimeoutExpired:
        for module in modules:
            fail(module.block.where, f"its tests did not finish within {RUN_TIMEOUT * 3} s")
        return 0
    output = out.stdout + out.stderr
    by_file = {module.filename: module for module in modules}
    reported = set()
    for raw in output.splitlines():
        # "✘ Test pattern1() recorded an issue at Name.swift:12:5: Expectation failed: ..."
        match = re.search(r"at (\w+\.swift):(\d+):(\d+): (.*)$", raw)
        if match and match.group(1) in by_file:
            module = by_file[match.group(1)]
            origin = module.origin(int(match.group(2)))
            place = f"{origin[0]}:{origin[1]}" if origin else match.group(1)
            fail(module.block.where, f"{place}: {match.group(4)}")
            reported.add(module.name)
    ran = re.search(r"Test run with (\d+) tests?", output)
    print(f"swift test --skip-build: exit {out.returncode}, {ran.group(1) if ran else 0} tests, {time.monotonic() - started:.1f} s")
    if out.returncode != 0 and not reported:
        for module in modules:
            fail(module.block.where, f"its tests failed ({describe_exit(out.returncode)}):", *output.strip().splitlines()[-20:])
        return 0
    count = 0
    for module in modules:
        if module.name in reported:
            continue
        # Every @Test of the module must show as passed, by its display name or function name.
        text = "\n".join(line for line, _ in module.composed)
        names = [display or f"{function}()" for display, function in
                 re.findall(r'@Test(?:\((?:\s*"([^"]*)")?(?:[^()]|\([^()]*\))*\))?\s+func\s+(\w+)', text)]
        missing = [name for name in names
                   if not re.search(rf"Test {re.escape(name if name.endswith('()') else chr(34) + name + chr(34))} passed", output)]
        if missing or not names:
            fail(module.block.where, f"marked run, but these tests did not pass or did not run: {', '.join(missing) or 'no @Test found'}")
            continue
        count += 1
        print(f"ran   {module.block.where} ({module.name}, {len(names)} test{'s' if len(names) != 1 else ''})")
    if ran is None or int(ran.group(1)) == 0:
        for module in modules:
            fail(module.block.where, "marked run, but no @Test function of it ran")
        return 0
    return count


# ----------------------------------------------------------------------------------------------


def expect_outcomes(blocks):
    """--self-test: each block of .ci/snippets/selftest/broken.md names the failure it must cause
    (`expect="regex"`); those failures are the test passing, a missing one is the test failing."""
    global failures
    expected = [b for b in blocks if b.options.get("expect")]
    unexplained = list(failures)
    banner(f"self-test: {len(expected)} blocks that must fail")
    for block in expected:
        pattern = re.compile(str(block.options["expect"]))
        mine = [f for f in unexplained if f[0] == block.where or f[0].startswith(block.where + " ")]
        if any(pattern.search("\n".join([location, *lines])) for location, lines in mine):
            print(f"caught {block.where}: /{pattern.pattern}/")
            unexplained = [f for f in unexplained if f not in mine]
        else:
            unexplained.append((block.where, [f"expected a failure matching /{pattern.pattern}/, got: "
                                              + ("; ".join(l[0] if l else "" for _, l in mine) or "none")]))
            print(f"MISSED {block.where}: /{pattern.pattern}/")
    failures = unexplained


def main():
    started = time.monotonic()
    os.makedirs(WORK, exist_ok=True)
    blocks = []
    for path in documentation_files():
        blocks += read_blocks(path)
    if FILTER:
        blocks = [b for b in blocks if re.search(FILTER, b.where)]
    print(f"check-snippets: {len(blocks)} ```swift blocks in {len(documentation_files())} files", flush=True)

    if not blocks and not FILTER:
        fail("check-snippets", "no ```swift block found: is the list of documentation files still right?")
        return 1
    root = root_package()
    skipped, manifests, modules = [], [], []
    for block in blocks:
        if block.options.get("skip"):
            skipped.append(block)
            print(f"skip  {block.where}: {block.options.get('reason')}")
            continue
        problems = lint(block)
        if problems:
            fail(block.where, *problems)
            continue
        preludes = [p for p in str(block.options.get("prelude", "")).split(",") if p] if block.options.get("prelude") not in (None, True) else []
        if block.is_doc_comment and not preludes:
            if MEMBER_START.match(block.first_code_line):
                preludes = ["doc", "doc-members"]
            elif re.search(r"#(expect|require)\b", block.text):
                preludes = ["doc", "doc-test"]
            else:
                preludes = ["doc"]
        composed = compose(block, preludes)
        if composed is None:
            continue
        if is_manifest(block):
            manifests.append((block, composed))
            continue
        kind = block.options.get("kind") or classify(composed)
        if kind not in ("exec", "lib", "test"):
            fail(block.where, f"kind={kind}: expected exec, lib or test")
            continue
        run = block.options.get("run")
        modules.append(Module(block, block.name, composed, kind, run is True))
        if isinstance(run, str) and run:
            alternative = compose(block, [p for p in run.split(",") if p])
            if alternative is None:
                continue
            modules.append(Module(block, block.name + "_run", alternative, block.options.get("kind") or classify(alternative), True))

    banner(f"manifests: {len(manifests)}")
    manifest_started = time.monotonic()
    manifests_ok = sum(1 for block, composed in manifests if check_manifest(block, composed, root))
    for block, _ in manifests:
        print(f"checked {block.where} (manifest)")
    manifest_seconds = time.monotonic() - manifest_started

    banner(f"compiling {len(modules)} modules ({sum(m.kind == 'exec' for m in modules)} executables, "
           f"{sum(m.kind == 'test' for m in modules)} test targets, {sum(m.kind == 'lib' for m in modules)} libraries) in {rel(PKG)}")
    build_started = time.monotonic()
    remaining = list(modules)
    typechecked = False
    while remaining:
        code, output = build(remaining, root)
        if code == 0:
            break
        failed, foreign = parse_diagnostics(output, remaining)
        if KEEP_GOING and not typechecked:
            typechecked = True
            each = typecheck_each(remaining)
            if each is not None:
                more, _ = parse_diagnostics(each, remaining)
                for name, lines in more.items():
                    failed.setdefault(name, lines)
        if not failed:
            print("\n".join(output.strip().splitlines()[-40:]))
            fail("swift build", "the scratch package failed to build for a reason no block explains "
                 f"(log: {rel(os.path.join(WORK, 'build.log'))})", *foreign[:20])
            remaining = []
            break
        for module in remaining:
            if module.name in failed:
                variant = ", run variant" if module.name.endswith("_run") else ""
                fail(f"{module.block.where} ({module.kind}{variant})", *failed[module.name])
        remaining = [m for m in remaining if m.name not in failed]
        if not KEEP_GOING:
            remaining = []
            break
        if remaining:
            print(f"rebuilding without the {len(failed)} failing module(s), to run the others", flush=True)
    build_seconds = time.monotonic() - build_started
    built = remaining
    compiled = sum(1 for m in built if not m.name.endswith("_run"))

    banner("running the blocks marked run")
    run_started = time.monotonic()
    ran = run_executables([m for m in built if m.run and m.kind == "exec"])
    ran += run_tests([m for m in built if m.run and m.kind == "test"])
    for module in built:
        if module.run and module.kind == "lib":
            fail(module.block.where, "marked run, but it is a library module (no top-level statements, no @Test): nothing to run")
    run_seconds = time.monotonic() - run_started

    if SELF_TEST:
        expect_outcomes(blocks)

    banner("summary")
    for block in skipped:
        print(f"skipped {block.where}: {block.options.get('reason')}")
    print(f"time: manifests {manifest_seconds:.1f} s, build {build_seconds:.1f} s, runs {run_seconds:.1f} s, total {time.monotonic() - started:.1f} s")
    print(f"snippets: {len(blocks)} blocks; {compiled} compiled, {ran} ran, {manifests_ok}/{len(manifests)} manifests, "
          f"{len(skipped)} skipped; {len(failures)} failure(s)")
    if failures:
        print("\nFailures:")
        for location, lines in failures:
            print(f"  {location}: {lines[0] if lines else ''}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
