# Sourced by Benchmarks/compare, Benchmarks/load --compare and Benchmarks/instructions, not run: a
# git revision checked out in a detached worktree of its own, made once and reused, so that a
# script can build and measure several revisions side by side without touching the current
# checkout; and the benchmark package made the same on two checkouts.
#
#   source "$ROOT/Benchmarks/trees.sh"
#   tree=$(revision_tree HEAD~1 "$ROOT/Benchmarks/.build-something")   # .../tree-<short commit>
#   before=$(checkout_tree ../other-checkout "$ROOT/Benchmarks/.build-compare-trees")  # a folder as is

# Prints the worktree of revision $1 under folder $2 (tree-<short commit>), adding it if missing;
# exits with status 2 when $1 is not a revision.
revision_tree() {
    local commit
    commit=$(git rev-parse --short "$1^{commit}" 2>/dev/null) || { echo "not a revision: $1" >&2; exit 2; }
    local tree="$2/tree-$commit"
    [[ -d "$tree" ]] || git worktree add -q --detach "$tree" "$commit" >&2
    echo "$tree"
}

# Prints a checkout of the repository for $1: the folder itself when it is one (it has a
# Package.swift), else the worktree of the revision $1 under folder $2.
checkout_tree() {
    if [[ -d "$1" && -f "$1/Package.swift" ]]; then
        (cd "$1" && pwd)
        return
    fi
    git rev-parse -q --verify "$1^{commit}" >/dev/null || { echo "neither a checkout nor a revision: $1" >&2; exit 2; }
    revision_tree "$1" "$2"
}

# One line describing checkout $1: its commit and subject, or the folder.
describe_checkout() { git -C "$1" log -1 --format='%h %s' 2>/dev/null | cut -c1-80 || echo "$1"; }

# The files a build of a benchmark package reads (its Package.swift, Sources and Benchmarks; not
# its scripts or README), in package folder $1; and their checksums.
package_files() { (cd "$1" && find Package.swift Sources Benchmarks -type f | sort); }
package_sums() { (cd "$1" && package_files "$1" | xargs -r sha1sum); }

# The same benchmark code on two checkouts: package folder $1's build files copied over package
# folder $2's when they differ (build folders aside).
same_benchmark_package() {
    if [[ "$(package_sums "$1")" != "$(package_sums "$2")" ]]; then
        echo "copying $1's benchmark package into $2"
        mkdir -p "$2"
        package_files "$1" | (cd "$1" && tar -cf - -T -) | (cd "$2" && tar -xf -)
    fi
    fit_benchmark_package "$2/.." "$2"
}

# The benchmark transport's settings that checkout $1's library does not have, taken out of benchmark
# package $2 (a copy of a newer checkout's): a revision from before issue 41 has no `loopCount` (its
# one loop is what it measures), one from before `idleSpin` none to set (its loops never spin).
fit_benchmark_package() {
    local configuration="$1/Sources/EndpointRouter/Transport/Curl/CurlTransport+Configuration.swift"
    local fixture="$2/Sources/BenchmarkFixtures/NginxAPI.swift"
    grep -qs "public var loopCount" "$configuration" || sed -i '/BENCH_CURL_LOOPS/d' "$fixture"
    grep -qs "public var idleSpin" "$configuration" || sed -i '/BENCH_CURL_IDLE_SPIN_US"\]/,/^    }/d' "$fixture"
}
