#!/usr/bin/env bash
# Installs what building and testing OpenACLNN needs, from Debian 12's archive. Run as root.
# Usage: scripts/install-deps.sh [build|test]   (build: compiler and libraries only)
set -euo pipefail

# python3-dev and pybind11-dev: the Python package (built whenever they are present).
packages=(g++ cmake ninja-build pkg-config libhwy-dev python3-dev pybind11-dev)
if [[ "${1:-test}" == "test" ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev python3 python3-numpy python3-torch
             python3-pytest python3-mpmath)
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
