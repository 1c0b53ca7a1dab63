#!/usr/bin/env bash
# Measures `shardlab analyze` (release build) against `jq -c . FILE > /dev/null` on the
# same NDJSON sample of N documents (default 300,000) with 4 candidate keys, in one run,
# and prints both times (wall and CPU), their ratios and analyze's peak memory
# (`/usr/bin/time -v`).
#
#   scripts/measure-analyze.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-300000}"
file="$(mktemp -t shardlab-measure-XXXXXX.ndjson)"
trap 'rm -f "$file"' EXIT
command -v jq >/dev/null || { echo "jq is missing (apt-get install -y jq)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install -y time)" >&2; exit 2; }
cargo build --release --bin shardlab >&2
# ts grows (%.0f: awk's %d stops at 2^31 - 1),  tenant has 8 values, user is scattered, city 500 values; about 150 bytes each.
awk -v n="$n" 'BEGIN {
  for (i = 0; i < n; i++) {
    printf "{\"ts\": {\"$date\": {\"$numberLong\": \"%.0f\"}}, \"tenant\": \"t%d\", \"user\": %.0f, \"city\": \"c%d\", \"note\": \"%s\"}\n",
      1700000000000 + i * 1000, i % 8, (i * 2654435761) % 1000003, (i * 7919) % 500, "lorem ipsum dolor sit amet"
  }
}' > "$file"
echo "sample: $n documents, $(du -h "$file" | cut -f1)"
# Both run under `/usr/bin/time`: wall time (%e), and the CPU time (%U + %S) each took,
# which drifts less than wall time when other work shares the cores.
/usr/bin/time -f '%e %U %S' -o /tmp/shardlab-measure-jq.txt jq -c . "$file" > /dev/null
/usr/bin/time -v -o /tmp/shardlab-measure-time.txt target/release/shardlab analyze "$file" \
  --key '{ts: 1}' --key '{ts: "hashed"}' --key '{tenant: 1, user: 1}' --key '{user: 1}' > /dev/null
read -r jq_s jq_u jq_k < /tmp/shardlab-measure-jq.txt
field() { grep -F "$1" /tmp/shardlab-measure-time.txt | awk -F': ' '{print $2}'; }
an_s=$(field 'Elapsed (wall clock)' | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
an_cpu=$(echo "$(field 'User time') + $(field 'System time')" | bc -l)
jq_cpu=$(echo "$jq_u + $jq_k" | bc -l)
printf 'jq -c:            %.2f s (CPU %.2f s)\n' "$jq_s" "$jq_cpu"
printf 'shardlab analyze: %.2f s (CPU %.2f s)\n' "$an_s" "$an_cpu"
printf 'ratio:            %.2f (analyze / jq, wall); CPU %.2f\n' \
  "$(echo "$an_s / $jq_s" | bc -l)" "$(echo "$an_cpu / $jq_cpu" | bc -l)"
grep -E 'Maximum resident set size' /tmp/shardlab-measure-time.txt
