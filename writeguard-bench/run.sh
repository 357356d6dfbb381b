#!/usr/bin/env bash
# WriteGuard and its peers, side by side, on one hot document (see docs/bench.md).
# Builds the bench's jar when it is missing, then runs it with the arguments given, e.g.
#   writeguard-bench/run.sh --clients 64
#   writeguard-bench/run.sh --clients 64 --processes 2
#   writeguard-bench/run.sh --mongo-uri mongodb://host:27017 --redis-uri redis://host:6379
# Defaults: the embedded MongoDB and redis-server, 64 clients, 3 interleaved rounds of 2 s
# after a 1 s warm-up per contender: about a minute and a half.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/writeguard-bench/target/writeguard-bench.jar"
if [[ ! -f "$jar" || -n "${REBUILD:-}" ]]; then
  (cd "$root" && mvn -B -q -pl writeguard-bench -am package -DskipTests)
fi
args=("$@")
if [[ " $* " != *" --out "* && " $* " != *" --out="* ]]; then
  args+=(--out "$root/writeguard-bench/target/writeguard-bench.json") # keeps the work tree clean
fi
exec java -jar "$jar" "${args[@]}"
