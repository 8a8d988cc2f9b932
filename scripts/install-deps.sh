#!/bin/sh
# Installs every Debian 12 package hipkfd needs to build, test and run on kfdsim.
# Runs apt-get as root (through sudo when not root). Idempotent.
set -eu

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The KFD 1.17 UAPI header lives in the -common part of Debian's 6.12 kernel headers. Installing
# only that part avoids pulling a kernel image (and an initramfs rebuild) onto the machine.
export DEBIAN_FRONTEND=noninteractive
as_root apt-get update -q
flavour=$(apt-cache depends linux-headers-6.12-amd64 | awk '/Depends: linux-headers-6\.12\..*-amd64$/ {print $2; exit}')
uapi_pkg=$(apt-cache depends "$flavour" | awk '/Depends: linux-headers-6\.12\..*-common$/ {print $2; exit}')
[ -n "$uapi_pkg" ] || { echo "no linux-headers-6.12 -common package found" >&2; exit 1; }

as_root apt-get install -y -q --no-install-recommends \
  build-essential cmake pkg-config ca-certificates \
  clang-19 clang-tools-19 lld-19 llvm-19 libclang-rt-19-dev \
  hipcc rocm-device-libs libamdhip64-dev rocminfo libhsa-runtime-dev libhsakmt-dev \
  libdrm-dev libnuma-dev libcriterion-dev libelf-dev libmsgpack-dev libzstd-dev \
  valgrind python3 openmpi-bin libopenmpi-dev "$uapi_pkg"
