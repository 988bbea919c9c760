#!/usr/bin/env bash
# Installs what building and testing OpenACLNN needs, from Debian 12's archive. Run as root.
# Usage: scripts/install-deps.sh [build|test|arm64]   (build: compiler and libraries only)
set -euo pipefail

# python3-dev and pybind11-dev: the Python package (built whenever they are present).
packages=(g++ cmake ninja-build pkg-config libhwy-dev nlohmann-json3-dev python3-dev pybind11-dev)
if [[ "${1:-test}" == "test" ]]; then
  # python3-venv, -pip, -setuptools, -wheel: the Python package built and installed as a wheel
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev python3 python3-numpy python3-torch
             python3-pytest python3-mpmath python3-hypothesis python3-venv python3-pip
             python3-setuptools python3-wheel
             libgmp-dev  # the kernels' exact rational oracle (tests/unit/kernels/rational_oracle.h)
             libmpfr-dev  # the oracle beyond binary128 (tests/unit/kernels/triple_double_test.cc)
             clang libclang-rt-14-dev)  # clang + its runtime: the libFuzzer stage
fi
# arm64: the aarch64 cross compiler, qemu-user, and the arm64 libraries the cross-built tests
# link. Debian multiarch puts those in /usr/lib/aarch64-linux-gnu, where qemu-aarch64 finds them
# (and the arm64 loader) without -L.
if [[ "${1:-test}" == "arm64" ]]; then
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  packages+=(g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64
             libgmock-dev:arm64 libgmp-dev:arm64 libmpfr-dev:arm64)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
