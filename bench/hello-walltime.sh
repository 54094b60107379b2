#!/usr/bin/env bash
# Wall time of a whole "hello" job: shmrun + Java Hello versus mpirun + C hello (Debian's
# Open MPI), interleaved round by round, np 1, 4 and 8. Prints medians and min-max in ms, and
# the CPU time (user + system, all processes of the job) in ms.
#   shmrun          shmrun as it is (default binding, default rank JVM flags, class-data archive)
#   shmrun-bare     shmrun --bind-to none --jvm-defaults none: what shmrun did before it had defaults
#   mpirun          mpirun + C hello
# Needs a built distribution (mvn -B package -DskipTests) and, for the comparison, Open MPI:
#   apt-get install -y openmpi-bin libopenmpi-dev
# ROUNDS=5  NPS="1 4 8"  BARE=1 (0: leave out shmrun-bare)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
dist="$root/shmrun/target/shmpi"
rounds="${ROUNDS:-5}"
nps="${NPS:-1 4 8}"
bare="${BARE:-1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mpirun_root=()
[ "$(id -u)" = 0 ] && mpirun_root=(--allow-run-as-root)

have_ompi=0
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  mpicc -O2 -o "$work/hello" "$here/native/hello.c"
  have_ompi=1
fi
hello=(-cp "$dist/examples/shmpi-examples.jar" Hello)
# The first job after a build makes the class-data archive (in the background): not timed.
"$dist/bin/shmrun" -np 1 "${hello[@]}" > /dev/null
for i in $(seq 1 100); do ls "$dist"/lib/cds/*.jsa > /dev/null 2>&1 && break; sleep 0.1; done

# run SYSTEM NP COMMAND...: one timed job; "SYSTEM NP wall_ms cpu_ms" to the times file.
run() {
  local sys="$1" np="$2"; shift 2
  local s e
  s=$(date +%s%N)
  /usr/bin/time -o "$work/cpu" -f "%U %S" "$@" > /dev/null 2>&1
  e=$(date +%s%N)
  echo "$sys $np $(( (e - s) / 1000000 )) $(awk '{printf "%d", ($1 + $2) * 1000}' "$work/cpu")" >> "$work/times"
}

for round in $(seq 1 "$rounds"); do
  for np in $nps; do
    run shmrun "$np" "$dist/bin/shmrun" -np "$np" "${hello[@]}"
    if [ "$bare" = 1 ]; then
      run shmrun-bare "$np" "$dist/bin/shmrun" -np "$np" --bind-to none --jvm-defaults none "${hello[@]}"
    fi
    if [ "$have_ompi" = 1 ]; then
      run mpirun "$np" mpirun "${mpirun_root[@]}" --oversubscribe -np "$np" "$work/hello"
    fi
  done
done

stat() {
  awk -v s="$1" -v np="$2" -v c="$3" '$1 == s && $2 == np {print $c}' "$work/times" | sort -n |
    awk '{a[NR]=$1} END {if (NR == 0) {print "-"; exit} m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%d (%d-%d)", m, a[1], a[NR]}'
}
med() { echo "${1%% *}"; }
ratio() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; fi; }
echo "# hello job wall time and CPU time (user+sys), ms, median (min-max) of $rounds interleaved rounds," \
  "$(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-4s %-20s %-20s %-20s %-9s %-9s %-20s %-20s %s\n" np "shmrun wall" "shmrun-bare wall" "mpirun wall" \
  "shm/mpi" "bare/mpi" "shmrun cpu" "shmrun-bare cpu" "mpirun cpu"
for np in $nps; do
  sw=$(stat shmrun "$np" 3); bw=$(stat shmrun-bare "$np" 3); mw=$(stat mpirun "$np" 3)
  printf "%-4s %-20s %-20s %-20s %-9s %-9s %-20s %-20s %s\n" "$np" "$sw" "$bw" "$mw" \
    "$(ratio "$(med "$sw")" "$(med "$mw")")" "$(ratio "$(med "$bw")" "$(med "$mw")")" \
    "$(stat shmrun "$np" 4)" "$(stat shmrun-bare "$np" 4)" "$(stat mpirun "$np" 4)"
done
