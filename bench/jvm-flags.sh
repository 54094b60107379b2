#!/usr/bin/env bash
# JVM flags for the rank JVMs, compared by measurement: every flag set runs the same jobs, flag set
# after flag set, round after round (A B C A B C ...), and the table shows medians (min-max).
#
#   short ring   RingBench -x 200 -l 2000 at np 2, 4, 8 (a short job: mostly cold code), us/hop
#   long ring    RingBench -x 20000 -l 20000 at np 2 and 8 (steady state), us/hop
#   latency      OsuLatency -m 8:8 (JIT warm-up, then 10000 round trips), one-way us
#   warm-up      WarmupCurve at np 2: 100000 round trips of 8 B from MPI.Init on, per-1000 medians;
#                steady_at = messages until every later bucket median is within 20% of the final
#                one; mean = mean one-way latency over all 100000 (stalls included)
#   hello        wall time of a whole shmrun -np 8 Hello job, ms
#
# np 2 binds each rank to its own CPU, np > 2 binds nothing (shmrun's default on 2 CPUs).
# Each flag set runs with shmrun's own JVM defaults switched off (--jvm-defaults none), so
# "default" means the JVM's defaults; the flags "@shmrun" mean shmrun's defaults as they ship
# (its JVM flags, the JNA path and the class-data archive).
#
# Usage: ROUNDS=5 bench/jvm-flags.sh
#   FLAGSETS='default=;c1=-XX:TieredStopAtLevel=1;...'  (name=flags, ';' between sets)
#   TESTS="short long lat warm hello"   DIST=shmrun/target/shmpi   OUT=bench/target/jvm-flags/<time>
#   bench/jvm-flags.sh --summary DIR    the table of a finished or interrupted run, from DIR/raw.csv
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
# summary CSV: median (min-max) per flag set and test, grouped by test, sets in run order.
summary() {
  awk -F, 'NR > 1 && $5 != "" { k = $2 SUBSEP $3 " np" $4; n[k]++; v[k, n[k]] = $5 + 0; if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
  END {
    for (i = 1; i <= no; i++) {
      k = order[i]; m = n[k]
      for (j = 1; j <= m; j++) a[j] = v[k, j]
      for (j = 2; j <= m; j++) { x = a[j]; l = j - 1; while (l > 0 && a[l] > x) { a[l + 1] = a[l]; l-- } a[l + 1] = x }
      med = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
      split(k, p, SUBSEP)
      printf "%-18s %-22s %10.3f (%.3f-%.3f) n=%d\n", p[1], p[2], med, a[1], a[m], m
    }
  }' "$1" | sort -s -b -k2,3
}
if [ "${1:-}" = --summary ]; then summary "$2/raw.csv"; exit 0; fi
rounds="${ROUNDS:-3}"
tests="${TESTS:-short long lat warm}"
flagsets="${FLAGSETS:-default=;c1=-XX:TieredStopAtLevel=1;cts0.1=-XX:CompileThresholdScaling=0.1;serial=-XX:+UseSerialGC;serial+c1=-XX:+UseSerialGC -XX:TieredStopAtLevel=1;serial+cts0.1=-XX:+UseSerialGC -XX:CompileThresholdScaling=0.1}"
out="${OUT:-$here/target/jvm-flags/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out/logs"
# A private copy of the distribution and the bench jar, so a rebuild meanwhile changes nothing.
src_dist="${DIST:-$root/shmrun/target/shmpi}"
cp -r "$src_dist" "$out/shmpi"
rm -rf "$out/shmpi/lib/cds"
cp "$(ls "$here"/target/shmpi-bench-*.jar | head -1)" "$out/bench.jar"
shmrun="$out/shmpi/bin/shmrun"
jar="$out/bench.jar"
hello_cp="$out/shmpi/examples/shmpi-examples.jar"
nodefaults=()
if "$shmrun" --help | grep -q -- '--jvm-defaults'; then
  nodefaults=(--jvm-defaults none)
  # Build the copy's class-data archive now, for the "@shmrun" set (it lives in the copy's lib/cds).
  "$shmrun" -np 1 -cp "$hello_cp" Hello > /dev/null
  for i in $(seq 1 300); do ls "$out"/shmpi/lib/cds/*.jsa > /dev/null 2>&1 && break; sleep 0.1; done
fi

IFS=';' read -r -a sets <<< "$flagsets"
csv="$out/raw.csv"
echo "round,flags,test,np,value" > "$csv"

# job NAME ROUND NP TEST BIND FLAGS... -- ARGS...: one shmrun job, its output in logs/.
job() {
  local name="$1" round="$2" np="$3" test="$4" bind="$5"; shift 5
  local -a jargs=("${nodefaults[@]}")
  while [ "$1" != -- ]; do
    if [ "$1" = @shmrun ]; then jargs=(); else jargs+=(--jvm-arg "$1"); fi
    shift
  done
  shift
  timeout 300 "$shmrun" -np "$np" --bind-to "$bind" "${jargs[@]}" "$@" \
    > "$out/logs/$test-np$np-$name-$round.txt" 2>&1 || echo "jvm-flags: $test np $np $name round $round FAILED" >&2
}
value() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | head -1; }

for round in $(seq 1 "$rounds"); do
  for set in "${sets[@]}"; do
    name="${set%%=*}"; flags="${set#*=}"
    # shellcheck disable=SC2206
    f=($flags)
    for t in $tests; do
      case "$t" in
        short)
          for np in 2 4 8; do
            b=none; [ "$np" -le 2 ] && b=core
            job "$name" "$round" "$np" short "$b" "${f[@]}" -- -cp "$jar" org.shmpi.bench.RingBench -x 200 -l 2000
            echo "$round,$name,short,$np,$(value us_per_hop "$out/logs/short-np$np-$name-$round.txt")" >> "$csv"
          done ;;
        long)
          for np in 2 8; do
            b=none; [ "$np" -le 2 ] && b=core
            job "$name" "$round" "$np" long "$b" "${f[@]}" -- -cp "$jar" org.shmpi.bench.RingBench -x 20000 -l 20000
            echo "$round,$name,long,$np,$(value us_per_hop "$out/logs/long-np$np-$name-$round.txt")" >> "$csv"
          done ;;
        lat)
          job "$name" "$round" 2 lat core "${f[@]}" -- -cp "$jar" org.shmpi.bench.OsuLatency -m 8:8
          echo "$round,$name,lat,2,$(awk '/^8 /{print $2}' "$out/logs/lat-np2-$name-$round.txt")" >> "$csv" ;;
        warm)
          job "$name" "$round" 2 warm core "${f[@]}" -- -cp "$jar" org.shmpi.bench.WarmupCurve -q
          l="$out/logs/warm-np2-$name-$round.txt"
          echo "$round,$name,warm-steady-at,2,$(value steady_at "$l")" >> "$csv"
          echo "$round,$name,warm-final,2,$(value final_us "$l")" >> "$csv"
          echo "$round,$name,warm-mean,2,$(value mean_us "$l")" >> "$csv" ;;
        hello)
          local_s=$(date +%s%N)
          job "$name" "$round" 8 hello none "${f[@]}" -- -cp "$hello_cp" Hello
          local_e=$(date +%s%N)
          echo "$round,$name,hello,8,$(( (local_e - local_s) / 1000000 ))" >> "$csv" ;;
      esac
    done
    echo "jvm-flags: round $round/$rounds $name done" >&2
  done
done

echo "# rank JVM flags, $rounds interleaved rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(java -version 2>&1 | head -1)"
echo "# short ring/long ring: us per hop; lat: one-way us 8 B; warm-*: WarmupCurve np 2 (steady-at in messages)"
summary "$csv" | tee "$out/summary.txt"
echo "# raw: $csv"
