#!/usr/bin/env bash
# Wall time of a whole "hello" job: shmrun + Java Hello versus mpirun + C hello (Debian's
# Open MPI), interleaved round by round, np 1, 4 and 8. Prints medians and min-max in ms.
# Needs a built distribution (mvn -B package -DskipTests) and, for the comparison, Open MPI:
#   apt-get install -y openmpi-bin libopenmpi-dev
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
dist="$root/shmrun/target/shmpi"
rounds="${ROUNDS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

have_ompi=0
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpicc -O2 -o "$work/hello" "$here/native/hello.c"
  have_ompi=1
fi

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

for round in $(seq 1 "$rounds"); do
  for np in 1 4 8; do
    echo "shmrun $np $(ms "$dist/bin/shmrun" -np "$np" -cp "$dist/examples/shmpi-examples.jar" Hello)" >> "$work/times"
    if [ "$have_ompi" = 1 ]; then
      echo "mpirun $np $(ms mpirun --allow-run-as-root --oversubscribe -np "$np" "$work/hello")" >> "$work/times"
    fi
  done
done

echo "# hello job wall time, ms (median of $rounds, min-max), $(date -u +%Y-%m-%d) on $(nproc) CPUs"
printf "%-4s %-24s %-24s %s\n" np "shmrun (Java Hello)" "mpirun (C hello)" "ratio shmrun/mpirun"
for np in 1 4 8; do
  s=$(awk -v np="$np" '$1=="shmrun" && $2==np {print $3}' "$work/times" | sort -n)
  m=$(awk -v np="$np" '$1=="mpirun" && $2==np {print $3}' "$work/times" | sort -n)
  med() { echo "$1" | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
  rng() { echo "$1" | awk 'NR==1{lo=$1} {hi=$1} END {if (NR) print lo "-" hi}'; }
  sm=$(med "$s"); mm=$(med "$m")
  ratio="-"; [ "$mm" != "-" ] && ratio=$(awk -v a="$sm" -v b="$mm" 'BEGIN {printf "%.2f", a/b}')
  printf "%-4s %-24s %-24s %s\n" "$np" "$sm ($(rng "$s"))" "$mm ($(rng "$m"))" "$ratio"
done
