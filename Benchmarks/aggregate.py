#!/usr/bin/env python3
"""Turns the JMH exports of several `swift package benchmark` runs into the results table.

Usage: aggregate.py RESULTS_DIR   (RESULTS_DIR/run-*/*.jmh.json, one folder per run)

Every ratio is computed inside one run (library and baseline measured in the same run), then the
median over the runs is shown with the min-max spread. Time ratios are library / baseline (below
1 = the library is faster); throughput ratios are baseline time / library time (above 1 = the
library is faster).
"""
import glob
import json
import os
import statistics
import sys

SCALED = ("build/", "middleware/")   # 1,000 operations per measured iteration
BATCH = 256                          # requests per iteration of e2e/conc-small (BenchmarkFixtures.batchSize)
STREAM_EVENTS = 100_000              # events in nginx.sh's events.sse: one stream per iteration


def fixture_bytes(results_dir):
    """The size of events.sse: recorded by `run` in the results folder, else nginx's fixture folder."""
    recorded = os.path.join(results_dir, "events-sse-bytes")
    if os.path.exists(recorded):
        with open(recorded) as f:
            return int(f.read().strip())
    fixture = os.path.join(results_dir, "..", "..", "nginx", "www", "events.sse")
    return os.path.getsize(fixture) if os.path.exists(fixture) else None


def load(run_dir):
    """{benchmark name: {metric: {"mean": x, "p50": y, "p99": z}}} of one run."""
    results = {}
    for path in glob.glob(os.path.join(run_dir, "*.jmh.json")):
        with open(path) as f:
            elements = json.load(f)
        for element in elements:
            # "package.benchmark.<Target>.<name>"; names contain dots only in our prefix-free form
            name = element["benchmark"].split(".", 3)[3]
            metrics = {"throughput": element["primaryMetric"]}
            metrics.update(element.get("secondaryMetrics", {}))
            scale = 1000.0 if name.startswith(SCALED) else 1.0
            parsed = {}
            for metric, value in metrics.items():
                percentiles = value.get("scorePercentiles", {})
                factor = 1.0 if metric == "throughput" else scale
                parsed[metric] = {
                    "mean": value["score"] / factor,
                    "p50": percentiles.get("50.0", value["score"]) / factor,
                    "p99": percentiles.get("99.0", value["score"]) / factor,
                }
            results[name] = parsed
    return results


def metric_key(metrics, *candidates):
    for candidate in candidates:
        for key in metrics:
            if key.lower().replace(" ", "").replace("(", "").replace(")", "") == candidate:
                return key
    return None


def value(run, name, metric_names, field):
    metrics = run.get(name)
    if not metrics:
        return None
    key = metric_key(metrics, *metric_names)
    return None if key is None else metrics[key][field]


TIME = ("timewallclock", "wallclock", "time(wall clock)".replace(" ", "").replace("(", "").replace(")", ""))
CPU = ("timetotalcpu", "cputotal", "time(totalcpu)".replace("(", "").replace(")", ""))
MALLOC = ("mallocstotal", "malloctotal", "malloc(total)".replace("(", "").replace(")", ""), "malloccounttotal")
RSS = ("memoryresidentpeak", "peakmemoryresident", "memory(residentpeak)".replace("(", "").replace(")", ""))
RSS_DELTA = ("memoryδresidentpeak", "memoryresidentpeakdelta", "peakmemoryresidentdelta", "memory(residentpeakdelta)".replace("(", "").replace(")", ""))


def spread(values, digits=2, empty="n/a"):
    """The median of `values` (None left out) with its min-max in brackets, or `empty` if none."""
    values = [v for v in values if v is not None]
    if not values:
        return empty
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:.{digits}f}"
    return f"{median:.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def ratio(runs, numerator, denominator, metric, field):
    out = []
    for run in runs:
        a, b = value(run, numerator, metric, field), value(run, denominator, metric, field)
        out.append(a / b if a is not None and b else None)
    return out


def absolute(runs, name, metric, field, factor=1.0):
    return [None if value(r, name, metric, field) is None else value(r, name, metric, field) * factor for r in runs]


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: aggregate.py RESULTS_DIR   (RESULTS_DIR/run-*/*.jmh.json, one folder per run)")
    results_dir = sys.argv[1]
    run_dirs = sorted(glob.glob(os.path.join(results_dir, "run-*")))
    runs = [load(d) for d in run_dirs]
    runs = [r for r in runs if r]
    if not runs:
        print(f"no results under {results_dir}")
        return 1
    print(f"{len(runs)} run(s); median over runs (min–max). Ratios are computed within each run.\n")

    names = set().union(*[set(r) for r in runs])

    print("### 1. Request building (per build; ratios = library ÷ baseline, below 1 = the library is faster)\n")
    print("CPU time is the primary figure here: on a loaded machine a thread waiting for a core inflates")
    print("wall-clock time, not CPU time.\n")
    print("| request | baseline | CPU ratio | wall p50 ratio | library CPU µs | baseline CPU µs | mallocs library / baseline |")
    print("|---|---|---:|---:|---:|---:|---:|")
    pairs = [
        ("build/post-dictionary/library", "build/post/manual-jsonserialization", "POST [String: Any] body"),
        ("build/post-dictionary/library", "build/post/manual-jsonencoder", "POST [String: Any] body"),
        ("build/post-encodable/library", "build/post/manual-jsonencoder", "POST Encodable body"),
        ("build/post-encodable/library", "build/post/manual-jsonserialization", "POST Encodable body"),
        ("build/get-5-query/library", "build/get-5-query/manual", "GET 5 query items"),
        ("build/post-dictionary/library-makeRequest", "build/post/manual-jsonserialization", "POST [String: Any], makeRequest()"),
        ("build/post-encodable/library-makeRequest", "build/post/manual-jsonencoder", "POST Encodable, makeRequest()"),
        ("build/get-5-query/library-makeRequest", "build/get-5-query/manual", "GET 5 query, makeRequest()"),
    ]
    for lib, base, label in pairs:
        if lib not in names or base not in names:
            continue
        lib_mallocs = spread(absolute(runs, lib, MALLOC, "mean"), 1)
        base_mallocs = spread(absolute(runs, base, MALLOC, "mean"), 1)
        print(f"| {label} | {base.split('/')[-1]} | **{spread(ratio(runs, lib, base, CPU, 'mean'))}** | "
              f"{spread(ratio(runs, lib, base, TIME, 'p50'))} | {spread(absolute(runs, lib, CPU, 'mean'), 1)} | "
              f"{spread(absolute(runs, base, CPU, 'mean'), 1)} | {lib_mallocs} / {base_mallocs} |")

    # Issue 23: every scenario on five sides, each named explicitly: the library on CurlTransport
    # (library-curl) and on URLSessionTransport (library-urlsession), raw URLSession.shared
    # (urlsession), a raw libcurl multi loop (raw-curl), Get-style on URLSession (get-style).
    scenarios = ("e2e/seq-small", "e2e/conc-small", "e2e/seq-list100", "e2e/seq-list5000", "e2e/post-small")
    targets = {"e2e/seq-small": 2.0, "e2e/conc-small": 2.0, "e2e/post-small": 2.0, "e2e/seq-list100": 1.4,
               "e2e/seq-list5000": 1.05}
    per_request = lambda scenario: BATCH if scenario.startswith("e2e/conc-") else 1
    present = [s for s in scenarios if all(f"{s}/{side}" in names for side in ("library-curl", "urlsession", "raw-curl"))]
    if present:
        print("\n### 2 and 4. End to end against nginx (issue 23: the library on CurlTransport and on URLSessionTransport)\n")
        print("Throughput ratios = baseline time ÷ library time (above 1 = the library is faster); CPU ratio = "
              "library ÷ raw URLSession CPU time per request (below 1 = less CPU). Targets: library on curl vs raw "
              "URLSession ≥ 2 (small calls), ≥ 1.4 (100-item list), ≥ 1.05 (5,000-item list); vs the raw libcurl "
              "loop ≥ 0.9; CPU ≤ 0.5 on small calls.\n")
        print("| scenario | library-curl vs raw URLSession (target) | library-curl vs raw libcurl (≥ 0.9) | "
              "CPU library-curl ÷ raw URLSession | library-urlsession vs raw URLSession | raw libcurl vs raw URLSession | "
              "CPU µs per request: library-curl / library-urlsession / raw URLSession / raw libcurl | "
              "p50 ms library-curl / raw URLSession / raw libcurl | p99 ms library-curl / raw libcurl |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for scenario in present:
            curl, onsession, raw, rawcurl = (f"{scenario}/{side}" for side in
                                             ("library-curl", "library-urlsession", "urlsession", "raw-curl"))
            n = per_request(scenario)
            us = lambda name: spread(absolute(runs, name, CPU, "mean", 1 / n), 0) if name in names else "—"
            ms = lambda name, field: spread(absolute(runs, name, TIME, field, 1 / 1000), 2)
            vs_session = spread(ratio(runs, raw, onsession, TIME, "mean")) if onsession in names else "—"
            print(f"| {scenario} | **{spread(ratio(runs, raw, curl, TIME, 'mean'))}** (≥ {targets[scenario]}) | "
                  f"**{spread(ratio(runs, rawcurl, curl, TIME, 'mean'))}** | {spread(ratio(runs, curl, raw, CPU, 'mean'))} | "
                  f"{vs_session} | {spread(ratio(runs, raw, rawcurl, TIME, 'mean'))} | "
                  f"{us(curl)} / {us(onsession)} / {us(raw)} / {us(rawcurl)} | "
                  f"{ms(curl, 'p50')} / {ms(raw, 'p50')} / {ms(rawcurl, 'p50')} | {ms(curl, 'p99')} / {ms(rawcurl, 'p99')} |")
        print("\nCPU per request = the process's user + system time (ordo-one/benchmark's `cpuTotal`, read from the "
              "kernel around each iteration) averaged over the iterations, divided by 256 for `conc-small` (one "
              "iteration = one batch of 256). p50/p99 of `conc-small` are per batch.")
        ruled = [s for s in present if f"{s}/raw-curl-rules" in names]
        if ruled:
            print("\nA diagnostic, not a target: the raw libcurl loop rewritten to keep the transport's rules "
                  "(`raw-curl-rules`: one thread calls libcurl, the POST body from a read callback, headers to a "
                  "callback, decompression asked for). Throughput ratios = baseline time ÷ the other's time.\n")
            print("| scenario | library-curl vs raw-curl-rules | raw-curl-rules vs raw-curl | library-curl vs raw-curl |")
            print("|---|---:|---:|---:|")
            for scenario in ruled:
                curl, rules, rawcurl = (f"{scenario}/{side}" for side in ("library-curl", "raw-curl-rules", "raw-curl"))
                print(f"| {scenario} | **{spread(ratio(runs, rules, curl, TIME, 'mean'))}** | "
                      f"{spread(ratio(runs, rawcurl, rules, TIME, 'mean'))} | {spread(ratio(runs, rawcurl, curl, TIME, 'mean'))} |")

    downloads = [side for side in ("library-curl", "library-urlsession") if f"download/100mb/{side}" in names]
    if downloads and "download/100mb/urlsession" in names:
        seconds = lambda name: spread(absolute(runs, name, TIME, "mean", 1 / 1_000_000), 3)
        rss = lambda name: spread(absolute(runs, name, RSS, "p99", 1 / 1_000_000), 1)
        parts = [f"{side} {seconds('download/100mb/' + side)} s (vs raw "
                 f"{spread(ratio(runs, 'download/100mb/urlsession', 'download/100mb/' + side, TIME, 'mean'))}, "
                 f"peak RSS {rss('download/100mb/' + side)} MB)" for side in downloads]
        print(f"\n100 MB download to a file, seconds per download (mean): {'; '.join(parts)}; raw download task "
              f"{seconds('download/100mb/urlsession')} s (peak RSS {rss('download/100mb/urlsession')} MB).")

    # Issue 15: the same scenarios against a Get-style hand-written client on the same transport
    # (GetStyleClient: one URLSession of its own, data(for:), a 2xx check, one shared decoder).
    get_style = [s for s in ("e2e/seq-small", "e2e/conc-small", "e2e/seq-list100", "e2e/seq-list5000", "e2e/post-small")
                 if f"{s}/library-urlsession" in names and f"{s}/get-style" in names]
    if get_style:
        print("\n#### The library on URLSessionTransport against Get-style hand-written code on URLSession (`…/get-style`)\n")
        print("Throughput ratios = baseline time ÷ library time (above 1 = the library is faster); CPU = library ÷ get-style.\n")
        print("| scenario | library ÷ get-style throughput | get-style ÷ raw URLSession throughput | CPU library ÷ get-style | "
              "library / get-style p50 ms | library / get-style CPU µs | mallocs library / get-style |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for scenario in get_style:
            lib, get, raw = f"{scenario}/library-urlsession", f"{scenario}/get-style", f"{scenario}/urlsession"
            ms = lambda name: spread(absolute(runs, name, TIME, "p50", 1 / 1000), 2)
            us = lambda name: spread(absolute(runs, name, CPU, "mean"), 0)
            vs_raw = spread(ratio(runs, raw, get, TIME, "mean")) if raw in names else "n/a"
            print(f"| {scenario} | **{spread(ratio(runs, get, lib, TIME, 'mean'))}** | {vs_raw} | "
                  f"{spread(ratio(runs, lib, get, CPU, 'mean'))} | {ms(lib)} / {ms(get)} | {us(lib)} / {us(get)} | "
                  f"{spread(absolute(runs, lib, MALLOC, 'mean'), 0)} / {spread(absolute(runs, get, MALLOC, 'mean'), 0)} |")

    ahc_scenarios = [s for s in ("ahc/seq-small", "ahc/conc-small", "ahc/seq-list100", "ahc/seq-list5000", "ahc/post-small")
                     if all(f"{s}/{side}" in names for side in ("library", "ahc", "urlsession"))]
    if ahc_scenarios:
        print("\n### 5. AsyncHTTPClient transport (library on AsyncHTTPClientTransport vs raw HTTPClient.shared vs raw URLSession.shared)\n")
        print("Throughput ratios = baseline time ÷ library time (above 1 = the library is faster). Target: library ÷ raw AHC ≥ 0.9.\n")
        print("| scenario | library vs raw AHC | library vs raw URLSession | raw AHC vs raw URLSession | CPU library ÷ raw AHC | "
              "library / raw AHC / raw URLSession p50 ms | library / raw AHC p99 ms | library / raw AHC CPU µs | mallocs library / raw AHC |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for scenario in ahc_scenarios:
            lib, ahc, raw = f"{scenario}/library", f"{scenario}/ahc", f"{scenario}/urlsession"
            ms = lambda name, field: spread(absolute(runs, name, TIME, field, 1 / 1000), 2)
            us = lambda name: spread(absolute(runs, name, CPU, "mean"), 0)
            print(f"| {scenario} | **{spread(ratio(runs, ahc, lib, TIME, 'mean'))}** | {spread(ratio(runs, raw, lib, TIME, 'mean'))} | "
                  f"{spread(ratio(runs, raw, ahc, TIME, 'mean'))} | {spread(ratio(runs, lib, ahc, CPU, 'mean'))} | "
                  f"{ms(lib, 'p50')} / {ms(ahc, 'p50')} / {ms(raw, 'p50')} | {ms(lib, 'p99')} / {ms(ahc, 'p99')} | "
                  f"{us(lib)} / {us(ahc)} | {spread(absolute(runs, lib, MALLOC, 'mean'), 0)} / {spread(absolute(runs, ahc, MALLOC, 'mean'), 0)} |")

    # Issue 14: one iteration = one whole stream of events.sse (STREAM_EVENTS events).
    stream_pairs = [("URLSession", "stream/events/library-urlsession", "stream/events/raw-urlsession"),
                    ("AsyncHTTPClient", "stream/events/library-ahc", "stream/events/raw-ahc"),
                    ("CurlTransport (raw: a libcurl multi loop)", "stream/events/library-curl", "stream/events/raw-curl")]
    stream_pairs = [p for p in stream_pairs if p[1] in names and p[2] in names]
    if stream_pairs or "stream/parser" in names:
        print("\n### Issue 14: streaming (Server-Sent Events, 100,000 events a stream)\n")
        print("Throughput ratio = raw time ÷ library time per stream (above 1 = the library is faster; target ≥ 0.9); "
              "CPU = library ÷ raw.\n")
        print("| transport | library ÷ raw events/s | CPU library ÷ raw | library events/s | raw events/s | "
              "library / raw CPU s per stream | mallocs per event library / raw | peak RSS MB library / raw |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        per_second = lambda name: spread([None if t is None else STREAM_EVENTS / (t / 1e6)
                                          for t in absolute(runs, name, TIME, "mean")], 0)
        cpu_s = lambda name: spread(absolute(runs, name, CPU, "mean", 1 / 1e6), 3)
        per_event = lambda name: spread(absolute(runs, name, MALLOC, "mean", 1 / STREAM_EVENTS), 1)
        rss = lambda name: spread(absolute(runs, name, RSS, "p99", 1 / 1_000_000), 1)
        for label, lib, raw in stream_pairs:
            print(f"| {label} | **{spread(ratio(runs, raw, lib, TIME, 'mean'))}** | {spread(ratio(runs, lib, raw, CPU, 'mean'))} | "
                  f"{per_second(lib)} | {per_second(raw)} | {cpu_s(lib)} / {cpu_s(raw)} | {per_event(lib)} / {per_event(raw)} | "
                  f"{rss(lib)} / {rss(raw)} |")
        if "stream/parser" in names:
            size = fixture_bytes(results_dir)
            if size is None:
                print("\nParser: events-sse-bytes not found, MB/s not computed.")
            else:
                mbps = [None if t is None else size / 1e6 / (t / 1e6) for t in absolute(runs, "stream/parser", TIME, "mean")]
                cpu_mbps = [None if t is None else size / 1e6 / (t / 1e6) for t in absolute(runs, "stream/parser", CPU, "mean")]
                print(f"\nParser alone (`ServerSentEventParser.parse(_: Data)`, 16 KiB pieces, {size / 1e6:.1f} MB a pass; "
                      f"target ≥ 200 MB/s): **{spread(mbps, 1)} MB/s** wall clock, {spread(cpu_mbps, 1)} MB/s of CPU time, "
                      f"{spread(absolute(runs, 'stream/parser', MALLOC, 'mean', 1 / STREAM_EVENTS), 1)} mallocs per event.")

    if "middleware/none" in names and "middleware/four-no-op" in names:
        print("\n### 3. Middleware cost (stub transport, no I/O; µs per request)\n")
        added = []
        for run in runs:
            a = value(run, "middleware/four-no-op", CPU, "mean")
            b = value(run, "middleware/none", CPU, "mean")
            added.append(None if a is None or b is None else a - b)
        print("| none CPU µs | four no-op CPU µs | added CPU µs | four ÷ none (CPU) | four ÷ none (wall p50) | mallocs none / four |")
        print("|---:|---:|---:|---:|---:|---:|")
        print(f"| {spread(absolute(runs, 'middleware/none', CPU, 'mean'), 1)} | "
              f"{spread(absolute(runs, 'middleware/four-no-op', CPU, 'mean'), 1)} | **{spread(added, 1)}** | "
              f"{spread(ratio(runs, 'middleware/four-no-op', 'middleware/none', CPU, 'mean'))} | "
              f"{spread(ratio(runs, 'middleware/four-no-op', 'middleware/none', TIME, 'p50'))} | "
              f"{spread(absolute(runs, 'middleware/none', MALLOC, 'mean'), 1)} / "
              f"{spread(absolute(runs, 'middleware/four-no-op', MALLOC, 'mean'), 1)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
