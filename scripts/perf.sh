#!/usr/bin/env bash
# perf.sh regenerates the figures of docs/PERFORMANCE.md: it writes
# synthetic histories (internal/histgen: 8 keys, 16 processes, 40 lost
# writes and 50 duplicates planted), times `kafkachaos check --json` on
# them with /usr/bin/time -v (wall time, CPU time, peak RSS), times the EDN
# path against the JSONL one, and runs the reader and checker benchmarks.
#
#   scripts/perf.sh [OPS...]      default: 1000000 10000000
#
# BASE=path/to/old/kafkachaos adds the same timings of that binary, run by
# turns with this tree's, for before/after ratios. The histories go to a
# temporary directory (TMPDIR), about 170 bytes an op, deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$GO build -o "$work/kafkachaos" ./cmd/kafkachaos

# timed NAME CMD...: one run of CMD under /usr/bin/time -v, one line of figures.
timed() {
	local name=$1
	shift
	/usr/bin/time -v "$@" >"$work/out" 2>"$work/time" || true
	awk -v name="$name" -F': ' '
		/Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2] }
		/User time/ { user = $2 } /System time/ { sys = $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END { printf "%-34s wall %7.2f s  cpu %7.2f s  peak %6.0f MiB\n", name, wall, user + sys, rss }' "$work/time"
}

for n in "${sizes[@]}"; do
	h="$work/h$n.jsonl"
	$GO run ./internal/histgen/gen -ops "$n" -keys 8 -processes 16 -lost 40 -dup 50 -seed 1 \
		-trouble 100 -crash 10000 -o "$h" 2>"$work/planted"
	echo "== $n ops ($(du -m "$h" | cut -f1) MB), planted $(cat "$work/planted")"
	for run in 1 2 3; do
		timed "check --json (run $run)" "$work/kafkachaos" check --json "$h"
		if [ -n "${BASE:-}" ]; then
			timed "base check --json (run $run)" "$BASE" check --json "$h"
		fi
	done
	{ "$work/kafkachaos" check --json "$h" || true; } | $GO run ./scripts/perfcounts # exit 1: anomalies
	if [ "$n" -le 1000000 ]; then
		"$work/kafkachaos" export "$h" >"$work/h.edn"
		for run in 1 2 3; do
			timed "check --json, JSONL (run $run)" "$work/kafkachaos" check --json "$h"
			timed "check --json, EDN (run $run)" "$work/kafkachaos" check --json "$work/h.edn"
		done
		rm -f "$work/h.edn"
	fi
	rm -f "$h"
done

echo "== benchmarks (GOMAXPROCS 1 and 2)"
$GO test ./histories -run '^$' -bench 'Decode|EDNImport' -benchmem -cpu 1,2 -benchtime 5x
$GO test ./checkers -run '^$' -bench 'CheckSynthetic' -benchmem -cpu 1,2 -benchtime 2x
