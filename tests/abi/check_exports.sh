#!/bin/sh
# hipkfd ABI test: the built library's dynamic exports and version nodes against the reference
# data. Usage: check_exports.sh libamdhip64.so hip_api_functions.tsv rocm523_symbols.txt
#
# Checks, independently of the generators in tools/abi:
#  1. every name of the API table (except header-only templates) is exported as name@@node with
#     the table's node (names without a node: the newest node, hip_7.2);
#  2. every symbol Debian's ROCm 5.2.3 libamdhip64.so.5 exports is exported with 5.2.3's node,
#     and the newer hiprtc names of hiprtc_exports.tsv with theirs;
#  3. nothing else is exported (no internal symbol leaks);
#  4. the version nodes hip_4.2 ... hip_7.2 are defined, each depending on the previous one;
#  5. SONAME is libamdhip64.so.7.
set -eu
lib=$1
table=$2
syms5=$3
extra_rtc=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

nm -D --defined-only --with-symbol-versions "$lib" |
  awk '$2 != "A" { print $3 }' | sort > "$tmp/actual"

awk -F'\t' 'NR > 1 && $5 !~ /template only/ {
  node = $6; sub(/ .*/, "", node); if (node == "") node = "hip_7.2"
  name = ($1 == "hip_init") ? "_ZN8hip_impl8hip_initEv" : $1
  print name "@@" node
}' "$table" | sort -u > "$tmp/expected_table"
awk '$2 != "A" { sym = $3; if (sym !~ /@@/) sub(/@/, "@@", sym); print sym }' "$syms5" |
  sort -u > "$tmp/expected_rocm5"
: > "$tmp/expected_rtc"
if [ -n "$extra_rtc" ]; then
  awk -F'\t' '$0 !~ /^#/ && NF >= 2 { print $1 "@@" $2 }' "$extra_rtc" > "$tmp/expected_rtc"
fi
sort -u "$tmp/expected_table" "$tmp/expected_rocm5" "$tmp/expected_rtc" > "$tmp/expected"

missing=$(comm -23 "$tmp/expected" "$tmp/actual")
if [ -n "$missing" ]; then
  echo "FAIL: expected exports missing or under the wrong node:"
  echo "$missing" | sed 's/^/  /'
  fail=1
fi
extra=$(comm -13 "$tmp/expected" "$tmp/actual")
if [ -n "$extra" ]; then
  echo "FAIL: unexpected exports:"
  echo "$extra" | sed 's/^/  /'
  fail=1
fi

# Version definitions: "Name: hip_4.3" lines followed by "Parent 1: hip_4.2".
readelf -V --wide "$lib" | awk '
  /Version definition section/ { indef = 1; next }
  /Version needs section/ { indef = 0 }
  indef && /Name:/ { for (i = 1; i <= NF; i++) if ($i == "Name:") cur = $(i + 1); if (cur ~ /^hip_/) print "def " cur }
  indef && /Parent 1:/ { print "parent " cur " " $NF }
' > "$tmp/vd"
prev=""
for n in hip_4.2 hip_4.3 hip_4.4 hip_4.5 hip_5.0 hip_5.1 hip_5.2 hip_5.3 hip_5.5 hip_5.6 \
         hip_6.0 hip_6.1 hip_6.2 hip_6.3 hip_6.4 hip_6.5 hip_7.1 hip_7.2; do
  if ! grep -qx "def $n" "$tmp/vd"; then
    echo "FAIL: version node $n not defined"
    fail=1
  elif [ -n "$prev" ] && ! grep -qx "parent $n $prev" "$tmp/vd"; then
    echo "FAIL: version node $n does not inherit from $prev"
    fail=1
  fi
  prev=$n
done

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libamdhip64.so.7" ]; then
  echo "FAIL: SONAME is '$soname', expected libamdhip64.so.7"
  fail=1
fi

if [ "$fail" -eq 0 ]; then
  echo "OK: $(wc -l < "$tmp/actual") exports, all expected, 18 version nodes, SONAME $soname"
fi
exit "$fail"
