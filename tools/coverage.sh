#!/bin/sh
# hipkfd: API coverage table.
#
# Usage: coverage.sh hip_api_functions.tsv out.md object.o...
#
# A name counts as implemented when one of the runtime's objects (other than the generated
# hip_stubs.c.o and the gate's wrappers) holds a strong global definition of it (`nm` type T); otherwise the exported
# symbol is the generated weak stub that returns hipErrorNotSupported. Names that exist only as
# header templates are listed as "header". A name in tools/coverage_unsupported.tsv is defined only
# to check its arguments (every valid call answers hipErrorNotSupported, as AMD's Linux release
# does): it counts as not implemented, with that file's reason. Writes a Markdown table per TSV category to out.md
# and prints it.
set -eu
table=$1
out=$2
shift 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

: > "$tmp/strong"
for obj in "$@"; do
  case "$obj" in
    *hip_stubs.c.o|*gate_wrappers.c.o) continue ;;
  esac
  # The gate compiles each implementation as hipkfd_impl_<name> (tools/gate).
  nm -g --defined-only "$obj" | awk '$2 == "T" { n = $3; sub(/^hipkfd_impl_/, "", n); print n }' >> "$tmp/strong"
done

unsupported=$(dirname "$0")/coverage_unsupported.tsv
awk -F'\t' -v strongfile="$tmp/strong" -v unsupfile="$unsupported" '
BEGIN {
  while ((getline s < strongfile) > 0) strong[s] = 1
  while ((getline s < unsupfile) > 0) {
    if (s ~ /^#/ || s == "") continue
    split(s, f, "\t")
    why[f[1]] = f[2]
  }
}
NR == 1 { next }
{
  name = $1; cat = $2; kind = $5
  if (!(cat in total)) { ncat++; cats[ncat] = cat }
  total[cat]++
  if (kind ~ /template only/) { header[cat]++; next }
  lookup = (name == "hip_init") ? "_ZN8hip_impl8hip_initEv" : name
  if ((lookup in strong) && !(name in why)) impl[cat]++
  else {
    stub[cat]++
    note = (name in why) ? " (" why[name] ")" : ""
    stubs[cat] = stubs[cat] (stubs[cat] == "" ? "" : ", ") "`" name "`" note
  }
}
END {
  print "| API category | implemented | returns hipErrorNotSupported | header only | total |"
  print "|---|---:|---:|---:|---:|"
  for (i = 1; i <= ncat; i++) {
    c = cats[i]
    printf "| %s | %d | %d | %d | %d |\n", c, impl[c], stub[c], header[c], total[c]
    ti += impl[c]; ts += stub[c]; th += header[c]; tt += total[c]
  }
  printf "| **all** | **%d** | **%d** | **%d** | **%d** |\n", ti, ts, th, tt
  print ""
  print "Not implemented yet (the call returns hipErrorNotSupported; a reason in parentheses: the name checks its arguments first, and AMD'"'"'s Linux release does not support it either):"
  print ""
  for (i = 1; i <= ncat; i++) {
    c = cats[i]
    if (stub[c] > 0) printf "- %s: %s\n", c, stubs[c]
  }
}' "$table" > "$out"
cat "$out"
