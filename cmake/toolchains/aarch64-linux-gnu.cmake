# Cross-builds OpenACLNN for 64-bit ARM Linux with Debian's cross compiler and the arm64
# multiarch libraries (scripts/install-deps.sh arm64 installs both). Built programs run under
# qemu-aarch64, which also runs the test binaries when ctest lists and runs their cases.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: the arm64 packages live in /usr/lib/aarch64-linux-gnu (libraries, CMake packages)
# and share /usr/include, so no sysroot; only programs come from the build machine.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# No -L: qemu then uses the arm64 loader and libraries Debian installs at their usual paths
# (/lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu). With -L /usr/aarch64-linux-gnu, the
# cross toolchain's loader with those libraries made pthread_create spin forever.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# A Python extension built here would be for the build machine's interpreter, which cannot load
# aarch64 code: leave the Python package out of a cross build.
set(CMAKE_DISABLE_FIND_PACKAGE_Python3 TRUE)
set(CMAKE_DISABLE_FIND_PACKAGE_pybind11 TRUE)
# Likewise the CUDA backend: the build machine's nvcc targets the build machine.
set(OPENACLNN_BUILD_CUDA OFF)
