#!/usr/bin/env python3
"""Turns `Benchmarks/load`'s results.jsonl into issue 41's table.

Every ratio is taken inside one round (the two sides ran back to back), then the median over the
rounds is shown with its min-max. Throughput ratios are library / other (above 1: the library
answers more requests per second); latencies are the median over the rounds of each process's
p50 and p99 (per request, microseconds or milliseconds).

Usage: load-table.py results.jsonl
       (with side raw-curl-events among the results, first a table of it against raw-curl)
       load-table.py --compare results.jsonl BEFORE_NAME AFTER_NAME   (`Benchmarks/load --compare`:
       per scenario, the throughput ratio after / before of each round and its median, and each
       revision's p50 and p99, medians over the rounds)
"""
import collections
import functools
import json
import os
import statistics
import sys

# aggregate.py sits beside this script: importable whatever the current directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aggregate  # noqa: E402

spread = functools.partial(aggregate.spread, empty="–")

PROTOCOLS = {"plain": "plain HTTP/1.1", "tls": "TLS HTTP/1.1", "h2": "TLS HTTP/2"}
SCENARIOS = ["seq-small", "seq-post", "seq-list100", "conc64-small", "conc256-small", "paced-small"]


def latency(values):
    if not values:
        return "–"
    median = statistics.median(values)
    return f"{median / 1000:.2f} ms" if median >= 1000 else f"{median:.0f} µs"


def field(by_round, side, name):
    """`side`'s value of `name` in each round that has it (`side`: a revision in `--compare`)."""
    return [r[side][name] for r in by_round.values() if name in r.get(side, {})]


def read(path, key):
    """The results in `path` as (protocol, scenario) -> round -> key(entry) -> result, and the
    sides they ran: `key` tells apart the results of one round (the side, or the revision in
    `--compare`, where every result is the same side's)."""
    table = collections.defaultdict(lambda: collections.defaultdict(dict))
    sides = set()
    with open(path) as f:
        for line in f:
            entry = json.loads(line)
            result = entry["result"]
            table[(entry["protocol"], result["scenario"])][entry["round"]][key(entry)] = result
            sides.add(result["side"])
    return table, sides


def main(path):
    table, sides = read(path, lambda entry: entry["result"]["side"])
    if "raw-curl-events" in sides:
        events(table)
    if "library" not in sides:
        return
    rounds = max((len(r) for r in table.values()), default=0)
    print(f"Medians over {rounds} round(s); min–max in brackets. Ratios: library ÷ other, requests per second.")
    print()
    print("| protocol | scenario | library req/s | ÷ ahc-tuned | ÷ raw-curl | ÷ urlsession "
          "| p50 library / ahc-tuned / raw-curl | p99 library / ahc-tuned / raw-curl | CPU µs/req library / ahc-tuned "
          "| minor faults/req library / ahc-tuned |")
    print("|---|---|---:|---:|---:|---:|---|---|---|---|")
    for protocol in PROTOCOLS:
        for scenario in SCENARIOS:
            by_round = table.get((protocol, scenario))
            if not by_round:
                continue

            def ratios(other):
                return [r["library"]["requestsPerSecond"] / r[other]["requestsPerSecond"]
                        for r in by_round.values() if "library" in r and other in r]

            rps = field(by_round, "library", "requestsPerSecond")
            p50 = " / ".join(latency(field(by_round, s, "p50Microseconds")) for s in ("library", "ahc-tuned", "raw-curl"))
            p99 = " / ".join(latency(field(by_round, s, "p99Microseconds")) for s in ("library", "ahc-tuned", "raw-curl"))
            cpu = " / ".join(spread(field(by_round, s, "cpuMicrosecondsPerRequest"), 0) for s in ("library", "ahc-tuned"))
            faults = " / ".join(spread(field(by_round, s, "minorFaultsPerRequest"), 2) for s in ("library", "ahc-tuned"))
            print(f"| {PROTOCOLS[protocol]} | {scenario} | {statistics.median(rps):,.0f} | {spread(ratios('ahc-tuned'))} "
                  f"| {spread(ratios('raw-curl'))} | {spread(ratios('urlsession'))} | {p50} | {p99} | {cpu} | {faults} |")


def events(table):
    """Issue 41, eighth pass: the raw loop on libcurl's event API (`raw-curl-events`) against the
    same loop on `curl_multi_poll` (`raw-curl`), each round's ratio taken between the two."""
    print("raw-curl-events ÷ raw-curl, requests per second; median over the rounds (min–max).")
    print()
    print("| protocol | scenario | events ÷ poll | p99 poll / events | CPU µs/req poll / events |")
    print("|---|---|---:|---|---|")
    for protocol in PROTOCOLS:
        for scenario in SCENARIOS:
            by_round = table.get((protocol, scenario))
            if not by_round:
                continue
            ratios = [r["raw-curl-events"]["requestsPerSecond"] / r["raw-curl"]["requestsPerSecond"]
                      for r in by_round.values() if "raw-curl" in r and "raw-curl-events" in r]
            if not ratios:
                continue
            p99 = " / ".join(latency(field(by_round, s, "p99Microseconds")) for s in ("raw-curl", "raw-curl-events"))
            cpu = " / ".join(spread(field(by_round, s, "cpuMicrosecondsPerRequest"), 0) for s in ("raw-curl", "raw-curl-events"))
            print(f"| {PROTOCOLS[protocol]} | {scenario} | {spread(ratios)} | {p99} | {cpu} |")
    print()


def compare(path, before_name, after_name):
    # Each round's results by revision: "before" and "after".
    table, sides = read(path, lambda entry: entry["revision"])
    rounds = max((len(r) for r in table.values()), default=0)
    print(f"before: {before_name}  \nafter: {after_name}  \nside: {', '.join(sorted(sides))}; {rounds} round(s), "
          "the two revisions in alternating turns. Ratio: after ÷ before, requests per second, within each round; "
          "p50 and p99: medians over the rounds.")
    print()
    print("| protocol | scenario | after ÷ before, per round | median (min–max) | p50 before / after | p99 before / after "
          "| CPU µs/req before / after | minor faults/req before / after |")
    print("|---|---|---|---:|---|---|---|---|")
    for protocol in PROTOCOLS:
        for scenario in SCENARIOS:
            by_round = table.get((protocol, scenario))
            if not by_round:
                continue
            ratios = [by_round[n]["after"]["requestsPerSecond"] / by_round[n]["before"]["requestsPerSecond"]
                      for n in sorted(by_round) if {"before", "after"} <= by_round[n].keys()]
            p50 = " / ".join(latency(field(by_round, r, "p50Microseconds")) for r in ("before", "after"))
            p99 = " / ".join(latency(field(by_round, r, "p99Microseconds")) for r in ("before", "after"))
            cpu = " / ".join(spread(field(by_round, r, "cpuMicrosecondsPerRequest"), 0) for r in ("before", "after"))
            faults = " / ".join(spread(field(by_round, r, "minorFaultsPerRequest"), 2) for r in ("before", "after"))
            print(f"| {PROTOCOLS[protocol]} | {scenario} | {' '.join(f'{x:.2f}' for x in ratios) or '–'} "
                  f"| {spread(ratios)} | {p50} | {p99} | {cpu} | {faults} |")


def usage():
    sys.exit("usage: load-table.py results.jsonl   (Benchmarks/load's .build-bench/load/<time>/results.jsonl)\n"
             "       load-table.py --compare results.jsonl BEFORE_NAME AFTER_NAME   (Benchmarks/load --compare's)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--compare" and os.path.isfile(sys.argv[2]):
        compare(*sys.argv[2:])
    elif len(sys.argv) == 2 and os.path.isfile(sys.argv[1]):
        main(sys.argv[1])
    else:
        usage()
