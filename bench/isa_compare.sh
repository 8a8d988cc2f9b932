#!/bin/sh
# Compares kfdsim's interpreter in two builds (an older commit's and this one, say): runs each
# build's isa_throughput in turn, A B A B ..., on the same measurements, and prints every
# round's figures and their ratio, then the median ratio of each measurement. On a machine whose
# speed drifts from minute to minute (a shared VM), only figures taken alternately compare.
#
#   bench/isa_compare.sh BUILD_A BUILD_B [ROUNDS [NAME ...]]
#
# NAME: a part of the names of isa_throughput's measurements (default: the three large grids),
# passed as its name filter (a substring, which builds from before `=` also take; `vadd` also
# selects grid_vadd_64M). Each run measures
# with one thread and with every core (3 repetitions, their median). Ratio: A / B for times
# (ms, us: B faster when above 1), B / A for lane operations per second. Environment:
#   HIPKFD_ISA_ARCH   gfx942 (default) or gfx90a
set -u
[ $# -ge 2 ] || { echo "usage: $0 BUILD_A BUILD_B [ROUNDS [NAME ...]]" >&2; exit 2; }
a=$(cd "$1" && pwd) || exit 2
b=$(cd "$2" && pwd) || exit 2
rounds=${3:-5}
if [ $# -ge 3 ]; then shift 3; else shift $#; fi
[ $# -gt 0 ] || set -- grid_vadd_64M grid_stride_32M grid_lds_reduce_64K
arch=${HIPKFD_ISA_ARCH:-gfx942}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # build label name: "label measurement median unit" lines
  "$1/tests/isa/isa_throughput" "$1/tests/isa/kernels" "$arch" 3 "$3" |
    awk -v l="$2" '/^isa_/ && NF == 6 && ($6 == "ms" || $6 == "us" || $6 == "op/s") { print l, $1, $2, $6 }'
}

i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  for name in "$@"; do
    run "$a" A "$name" >"$out.a"
    run "$b" B "$name" >"$out.b"
    join -j 2 -o 0,1.3,2.3,1.4 "$(sort -k2 "$out.a" >"$out.as"; echo "$out.as")" \
      "$(sort -k2 "$out.b" >"$out.bs"; echo "$out.bs")" |
      awk -v r="$i" -v t="$(date +%T)" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{
        ratio = $4 == "ms" || $4 == "us" ? $2 / $3 : $3 / $2
        printf "round %d %s load %s  %-36s A %10.4g  B %10.4g %-6s ratio %.2f\n", r, t, load, $1, $2, $3, $4, ratio
      }' | tee -a "$out"
  done
done
rm -f "$out.a" "$out.b" "$out.as" "$out.bs"
echo "median ratio over $rounds rounds (A / B for times, B / A for rates):"
awk '{ print $6, $NF }' "$out" | sort -k1,1 -k2,2n | awk '
  { v[$1, ++n[$1]] = $2 }
  END { for (k in n) { m = n[k]; med = m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2
                       printf "  %-36s %.2f (%d rounds, %.2f-%.2f)\n", k, med, m, v[k, 1], v[k, m] } }' |
  sort
