#!/bin/sh
# Runs every benchmark against two HIP runtimes on the same emulated GPU, alternating
# A B A B within one run, and prints per-benchmark medians and ratios.
#
#   bench/compare.sh [BUILD_DIR]
#
# A = ours (BUILD_DIR/src/libamdhip64.so), B = AMD's (Debian's libamdhip64.so.5, ROCm 5.2.3).
# Both run under kfdsim with the gfx90a profile (ROCm 5.2.3 predates gfx942). Environment:
#   HIPKFD_BENCH_ROUNDS   rounds of A B (default 2)
#   HIPKFD_BENCH_AMD_LIB  AMD's library (default /usr/lib/x86_64-linux-gnu/libamdhip64.so.5)
#   HIPKFD_BENCH_ITERS    iterations per benchmark (each binary has its default)
set -u
build=$(cd "${1:-build}" && pwd)
ours=$build/src/libamdhip64.so
amd=${HIPKFD_BENCH_AMD_LIB:-/usr/lib/x86_64-linux-gnu/libamdhip64.so.5}
rounds=${HIPKFD_BENCH_ROUNDS:-2}
kfdsim=$build/sim/kfdsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# kfdsim options a benchmark needs beyond the profile: bench_ipc_pingpong runs two processes on
# two GPUs of one emulated node. (AMD's ROCm 5.2.3 cannot run it: its hipIpcGetMemHandle needs
# IPC_EXPORT_HANDLE, an ioctl of AMD's DKMS driver that upstream amdkfd, and so kfdsim, lacks.)
sim_args() { # bench label
  case $1 in
    bench_ipc_pingpong) echo "--gpus 2 --node compare-$$-$2" ;;
  esac
}

run_one() { # bench label lib round
  log=$out/$2.$1.$4
  # shellcheck disable=SC2046 # sim_args is a list of words
  if HIPKFD_BENCH_LIB=$3 timeout 600 "$kfdsim" --profile gfx90a $(sim_args "$1" "$2") -- \
      "$build/bench/$1" >"$log.out" 2>"$log.err"; then
    grep '^{' "$log.out" | grep -v skipped | sed "s/^/$2 /" >>"$out/results"
  else
    echo "$2 $1 FAILED: $(tail -n 1 "$log.err")" >>"$out/failures"
  fi
}

for b in bench_startup bench_memory bench_sync bench_launch bench_graph bench_threads \
         bench_ipc_pingpong; do
  r=1
  while [ "$r" -le "$rounds" ]; do
    run_one "$b" ours "$ours" "$r"
    run_one "$b" amd "$amd" "$r"
    r=$((r + 1))
  done
done

echo "hipkfd vs AMD ROCm 5.2.3, both on kfdsim (gfx90a), $(date -u +%Y-%m-%d), $(nproc) cores"
echo "ratio = AMD / ours for times (higher is better for ours); ours / AMD for GB/s"
touch "$out/results"
awk '
  {
    who = $1; line = $0
    name = line; sub(/.*"name": "/, "", name); sub(/".*/, "", name)
    med = line; sub(/.*"median": /, "", med); sub(/,.*/, "", med)
    unit = line; sub(/.*"unit": "/, "", unit); sub(/".*/, "", unit)
    key = name; units[key] = unit
    if (!(key in seen)) { seen[key] = 1; order[n++] = key }
    # median of the per-round medians: keep them all, pick the middle later
    vals[who, key, ++cnt[who, key]] = med + 0
  }
  function mid(who, key,   k, i, j, t, a) {
    k = cnt[who, key]; if (!k) return -1
    for (i = 1; i <= k; i++) a[i] = vals[who, key, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((k + 1) / 2)]
  }
  END {
    printf "%-40s %14s %14s %10s %s\n", "benchmark", "hipkfd", "AMD", "ratio", "unit"
    for (i = 0; i < n; i++) {
      key = order[i]; a = mid("ours", key); b = mid("amd", key)
      if (a < 0 || b < 0) r = "n/a"
      else if (units[key] == "GB/s") r = (b > 0 ? sprintf("%.2fx", a / b) : "n/a")
      else r = (a > 0 ? sprintf("%.1fx", b / a) : "n/a")
      printf "%-40s %14s %14s %10s %s\n", key, (a < 0 ? "-" : a), (b < 0 ? "-" : b), r, units[key]
    }
  }' "$out/results"
if [ -s "$out/failures" ]; then
  echo
  echo "Benchmarks that did not run:"
  sed 's/^/  /' "$out/failures"
fi
