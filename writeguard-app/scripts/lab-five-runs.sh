#!/usr/bin/env bash
# Five default `writeguard lab` runs in a row, the first straight after the README's build,
# then the table docs/lab.md shows ("How steady the figures are"): every guarded strategy's
# ratio to atomic in each run, its five-run median and farthest run, each run's spread of
# rounds, and the recommendation's first two choices. Checks the bar docs/lab.md holds the
# lab to: ratios within +-10% of their five-run median, the same first two choices in every
# run, and every strategy's rounds within +-15% of their median or marked unsteady by the lab.
#
# Usage (from the repository root): writeguard-app/scripts/lab-five-runs.sh [--no-build] [DIR]
#   --no-build  skip `mvn -B -q -DskipTests package` (the jar is already built)
#   DIR         where the runs' JSON and output go (default: a new directory under /tmp)
# Needs Java 17, Maven (unless --no-build) and python3. Exit 0 when the bar is met, 1 if not.
set -euo pipefail

build=1
if [[ "${1:-}" == "--no-build" ]]; then
  build=0
  shift
fi
out="${1:-$(mktemp -d /tmp/writeguard-lab-runs.XXXXXX)}"
mkdir -p "$out"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

if [[ $build == 1 ]]; then
  echo "building: mvn -B -q -DskipTests package" >&2
  mvn -B -q -DskipTests package
fi
jar=writeguard-app/target/writeguard.jar
for i in 1 2 3 4 5; do
  echo "run $i of 5: java -jar $jar lab --json $out/run-$i.json" >&2
  start=$(date +%s)
  java -jar "$jar" lab --json "$out/run-$i.json" > "$out/run-$i.txt" 2> "$out/run-$i.err" || {
    echo "run $i failed (exit $?); see $out/run-$i.err" >&2
    exit 1
  }
  echo $(( $(date +%s) - start )) > "$out/run-$i.seconds"
done

python3 - "$out" <<'PY'
import json, re, statistics, sys
out = sys.argv[1]
runs = []
for i in range(1, 6):
    report = json.load(open(f"{out}/run-{i}.json"))
    text = open(f"{out}/run-{i}.txt").read()
    seconds = int(open(f"{out}/run-{i}.seconds").read())
    rec = next((l for l in text.splitlines() if l.startswith("recommendation:")), "")
    # "recommendation: atomic fits ...; optimistic if you must read (...)": the first two names.
    first = re.match(r"recommendation: (\S+)", rec)
    second = re.search(r";\s*(\S+) if you must read", rec)
    choices = (first.group(1) if first else "-", second.group(1) if second else "-")
    runs.append((report, choices, seconds))

def by_name(report):
    return {r["strategy"]: r for r in report["results"]}

names = [r["strategy"] for r in runs[0][0]["results"]]
guarded = [n for n in names if n not in ("naive", "atomic")]
ok = True
print("| run | seconds | " + " | ".join(f"{n} x atomic" for n in guarded)
      + " | first two choices |")
print("|---|--:|" + "--:|" * len(guarded) + "---|")
ratios = {n: [] for n in guarded}
for i, (report, choices, seconds) in enumerate(runs, 1):
    rs = by_name(report)
    atomic = rs["atomic"]["throughput_ops_s"]
    cells = []
    for n in guarded:
        x = rs[n]["throughput_ops_s"] / atomic
        ratios[n].append(x)
        cells.append(f"{x:.2f}" + ("*" if rs[n].get("unsteady") else ""))
    print(f"| {i} | {seconds} | " + " | ".join(cells) + f" | {choices[0]}, {choices[1]} |")
medians = {n: statistics.median(v) for n, v in ratios.items()}
print("| median | | " + " | ".join(f"{medians[n]:.2f}" for n in guarded) + " | |")
far = {n: max(abs(x / medians[n] - 1) for x in ratios[n]) * 100 for n in guarded}
print("| farthest run | | " + " | ".join(f"{far[n]:+.0f}%".replace("+", "+-") for n in guarded)
      + " | |")
print()
print("Spread of each strategy's rounds around their median (`throughput_spread_pct`),"
      " * = marked unsteady:")
print()
print("| run | " + " | ".join(names) + " |")
print("|---|" + "--:|" * len(names))
for i, (report, _, _) in enumerate(runs, 1):
    rs = by_name(report)
    cells = []
    for n in names:
        spread = rs[n].get("throughput_spread_pct", 0.0)
        unsteady = rs[n].get("unsteady", False)
        cells.append(f"{spread:.0f}%" + ("*" if unsteady else ""))
        if spread > 15.0 and not unsteady:
            ok = False
            print(f"# run {i}: {n} spread {spread}% but not marked unsteady", file=sys.stderr)
    print(f"| {i} | " + " | ".join(cells) + " |")
print()
for n in guarded:
    if far[n] > 10.0:
        ok = False
        print(f"# {n}: a run's ratio is {far[n]:.1f}% off its five-run median (bar: 10%)",
              file=sys.stderr)
choices = {c for _, c, _ in runs}
if len(choices) > 1:
    ok = False
    print(f"# the first two choices differ between runs: {sorted(choices)}", file=sys.stderr)
print(("bar met" if ok else "bar NOT met") + f" (runs in {out})")
sys.exit(0 if ok else 1)
PY
