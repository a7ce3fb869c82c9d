#!/usr/bin/env python3
"""Per-function difference of instructions per call between two revisions' callgrind profiles.

Usage: callgrind-diff.py [--calls N] [--top K] A_LOW A_HIGH B_LOW B_HIGH

Each argument is a callgrind output file, or the name given to `--callgrind-out-file` with
`--separate-threads=yes`, which writes FILE-01, FILE-02, ... (one per thread): they are summed. A_LOW and A_HIGH
are revision A's runs of the same work at two call counts, N calls apart (default 10,000:
`Benchmarks/instructions`' 2,000 and 12,000), so that a function's cost per call is
(HIGH - LOW) / N, start-up and tear-down cancelled out; the same for B. Prints the K functions
(default 40) whose self cost per call changed most, with their inclusive cost per call before and
after, and the total. Self = instructions in the function's own code; inclusive = with its callees.
Costs come from `callgrind_annotate` (valgrind); Swift names are demangled with `swift demangle`
when it is on the PATH. Functions are matched by name, so the same code in two worktrees matches; code without a symbol
(`???:0x<address>`, whose address moves between builds) is one line, whose inclusive figure counts
nested calls more than once.
`Benchmarks/instructions --diff A B` runs this on its profiles.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[[^\]]*\])?\s*$")
TOTALS = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+PROGRAM TOTALS")


def files(prefix):
    """The file itself, or the per-thread files PREFIX-01, PREFIX-02, ... of --separate-threads=yes."""
    found = [prefix] if os.path.isfile(prefix) and os.path.getsize(prefix) > 0 else []
    found += sorted(p for p in glob.glob(glob.escape(prefix) + "-*") if re.fullmatch(r"-\d+", p[len(prefix):]))
    if not found:
        sys.exit(f"callgrind-diff.py: no callgrind output at {prefix} (nor {prefix}-01, ...)")
    return found


def annotate(path, inclusive):
    """{function: instructions} and the program total of one callgrind output file."""
    run = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", f"--inclusive={'yes' if inclusive else 'no'}", path],
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"callgrind-diff.py: callgrind_annotate could not read {path}: {run.stderr.strip()[:300]}")
    text = run.stdout
    costs, total = collections.Counter(), 0
    section = False
    for line in text.splitlines():
        found = TOTALS.match(line)
        if found:
            total = int(found.group(1).replace(",", ""))
            continue
        if line.startswith("Ir") and "file:function" in line:
            section = True
            continue
        found = LINE.match(line) if section else None
        if found:
            where = found.group(2)
            # "file:function"; the file differs between worktrees, the function name does not. Code
            # without a symbol ("???:0x<address>") moves between builds: one bucket for all of it.
            function = where.split(":", 1)[1] if ":" in where else where
            if where.startswith("???:0x"):
                function = "(code without a symbol)"
            costs[function] += int(found.group(1).replace(",", ""))
    return costs, total


def profile(prefix):
    """(self costs, inclusive costs, total) summed over the files of prefix."""
    own, inclusive, total = collections.Counter(), collections.Counter(), 0
    for path in files(prefix):
        costs, count = annotate(path, False)
        own.update(costs)
        total += count
        # A thread's inclusive costs are summed too: a function running on two threads costs both.
        inclusive.update(annotate(path, True)[0])
    return own, inclusive, total


def per_call(low, high, calls):
    keys = set(low) | set(high)
    return {k: (high.get(k, 0) - low.get(k, 0)) / calls for k in keys}


def demangled(names):
    tool = shutil.which("swift")
    if not tool or not names:
        return {n: n for n in names}
    result = subprocess.run([tool, "demangle", "--simplified", "--compact"], input="\n".join(names) + "\n",
                            capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return dict(zip(names, lines)) if result.returncode == 0 and len(lines) == len(names) else {n: n for n in names}


def main(argv):
    calls, top = 10_000, 40
    args = list(argv)
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option in ("--calls", "--top") and args and args[0].isdigit():
            value = int(args.pop(0))
            if option == "--calls":
                calls = value
            else:
                top = value
        else:
            usage()
    if len(args) != 4 or calls <= 0:
        usage()
    (a_low, a_high, b_low, b_high) = [profile(p) for p in args]
    a_self, b_self = per_call(a_low[0], a_high[0], calls), per_call(b_low[0], b_high[0], calls)
    a_incl, b_incl = per_call(a_low[1], a_high[1], calls), per_call(b_low[1], b_high[1], calls)
    a_total, b_total = (a_high[2] - a_low[2]) / calls, (b_high[2] - b_low[2]) / calls
    names = set(a_self) | set(b_self)
    delta = {n: b_self.get(n, 0) - a_self.get(n, 0) for n in names}
    shown = sorted((n for n in names if round(delta[n]) != 0), key=lambda n: (-abs(delta[n]), n))[:top]
    pretty = demangled(shown)
    print(f"Instructions per unit of work, (HIGH - LOW) / {calls:,}, A -> B: "
          f"total {a_total:,.0f} -> {b_total:,.0f} ({b_total - a_total:+,.0f}).")
    print(f"{len([n for n in names if round(delta[n]) != 0])} function(s) changed their self cost; "
          f"the {len(shown)} largest changes:")
    print()
    print("| Δ self | self A | self B | Δ inclusive | inclusive A | inclusive B | function |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n in shown:
        ia, ib = a_incl.get(n, 0), b_incl.get(n, 0)
        print(f"| {delta[n]:+,.0f} | {a_self.get(n, 0):,.0f} | {b_self.get(n, 0):,.0f} | {ib - ia:+,.0f} | {ia:,.0f} "
              f"| {ib:,.0f} | `{pretty[n][:160]}` |")


def usage():
    sys.exit("usage: callgrind-diff.py [--calls N] [--top K] A_LOW A_HIGH B_LOW B_HIGH\n"
             "  (callgrind output files or prefixes; cost per call = (HIGH - LOW) / N, N default 10000)")


if __name__ == "__main__":
    main(sys.argv[1:])
