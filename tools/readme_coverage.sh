#!/bin/sh
# Splices the generated coverage table (tools/coverage.sh's output) into README.md between the
# lines `<!-- coverage:begin -->` and `<!-- coverage:end -->`.
#
# Usage: readme_coverage.sh coverage.md README.md
set -eu
table=$1
readme=$2
grep -q '^<!-- coverage:begin -->$' "$readme" && grep -q '^<!-- coverage:end -->$' "$readme" || {
  echo "readme_coverage: markers missing in $readme" >&2
  exit 1
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
awk -v table="$table" '
  /^<!-- coverage:begin -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- coverage:end -->$/ { skip = 0 }
  !skip { print }
' "$readme" > "$tmp"
cat "$tmp" > "$readme"
