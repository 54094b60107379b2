#!/usr/bin/env bash
# Token ring time per hop, shmpi (Java) vs Open MPI (C), interleaved, 5 rounds by default, at
# np 2, 4 and 8 (4 and 8 oversubscribe this 2-CPU machine). Prints medians, min-max and ratios.
# Needs: mvn -B -q install -DskipTests (for bench/target and shmrun/target/shmpi), Open MPI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
dist="$root/shmrun/target/shmpi"
jar="$(ls "$here"/target/shmpi-bench-*.jar | head -1)"
rounds="${ROUNDS:-5}"
laps="${LAPS:-20000}"
warm="${WARM:-30000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
command -v mpicc >/dev/null || { apt-get update -qq && apt-get install -y -qq openmpi-bin libopenmpi-dev; }
mpicc -O2 -o "$work/ring" "$here/native/ring_lite.c"
for round in $(seq 1 "$rounds"); do
  for np in 2 4 8; do
    s=$("$dist/bin/shmrun" -np "$np" -cp "$jar" org.shmpi.bench.RingBench -l "$laps" -x "$warm" | sed -n 's/.*us_per_hop=//p')
    echo "shmpi $np $s" >> "$work/times"
    c=$(mpirun --allow-run-as-root --oversubscribe -np "$np" "$work/ring" -l "$laps" -x "$warm" | sed -n 's/.*us_per_hop=//p')
    echo "ompi $np $c" >> "$work/times"
  done
done
echo "# token ring, us per hop (median of $rounds, min-max), $laps laps, $(date -u +%Y-%m-%d) on $(nproc) CPUs"
printf "%-4s %-26s %-26s %s\n" np "shmpi (Java)" "Open MPI (C)" "ratio shmpi/ompi"
for np in 2 4 8; do
  stat() { awk -v s="$1" -v np="$np" '$1==s && $2==np {print $3}' "$work/times" | sort -g |
    awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.2f %.2f-%.2f", m, a[1], a[NR]}'; }
  sv=$(stat shmpi); cv=$(stat ompi)
  printf "%-4s %-26s %-26s %.2f\n" "$np" "${sv% *} (${sv#* })" "${cv% *} (${cv#* })" \
    "$(awk -v a="${sv%% *}" -v b="${cv%% *}" 'BEGIN {print a/b}')"
done
