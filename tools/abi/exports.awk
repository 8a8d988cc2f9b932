# hipkfd: the exported symbol set of libamdhip64, one "name<TAB>node" line per symbol.
#
# Usage: awk -f exports.awk hip_api_functions.tsv rocm523_symbols.txt
#
# From the API table: every name except the C++ templates that live only in headers, under the
# node the table gives ("hip_6.4 (newest map)" -> hip_6.4). Names the newest headers declare but
# AMD's map does not yet list are exported under the newest node, hip_7.2, so that programs
# built against our headers link. hip_impl::hip_init is exported by its mangled name.
# From the ROCm 5.2.3 symbol list: every defined symbol the table lacks (C++-mangled entry
# points, hiprtc, activity callbacks, ...), under the node 5.2.3 exported it with, so that
# binaries built by Debian's hipcc resolve.
# From hiprtc_exports.tsv ("name<TAB>node"): the hiprtc names ROCm added after 5.2.3 (bitcode
# and linking), which libamdhip64 carries as 5.2.3 carried the rest of hiprtc.
BEGIN { FS = "\t"; newest = "hip_7.2" }

FNR == 1 { file++ }

file == 3 {
  if ($0 ~ /^#/ || NF < 2) next
  if (!($1 in seen)) { seen[$1] = 1; print $1 "\t" $2 }
  next
}

file == 1 {
  if (FNR == 1) next
  name = $1; kind = $5; node = $6
  if (kind ~ /template only/) next
  sub(/ .*/, "", node)
  if (node == "") node = newest
  if (name == "hip_init") name = "_ZN8hip_impl8hip_initEv"
  if (!(name in seen)) { seen[name] = 1; print name "\t" node }
  next
}

{
  # "address type name@@node" (nm -D --with-symbol-versions); skip the version-node entries.
  n = split($0, f, " ")
  if (n < 3 || f[2] == "A") next
  sym = f[3]
  at = index(sym, "@")
  if (at == 0) next
  name = substr(sym, 1, at - 1)
  node = substr(sym, at + 1)
  sub(/^@/, "", node)
  if (!(name in seen)) { seen[name] = 1; print name "\t" node }
}
