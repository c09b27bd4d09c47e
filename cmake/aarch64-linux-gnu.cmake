# Cross-compile vred for aarch64 Linux with Debian's gcc-aarch64-linux-gnu, and run the tests
# under qemu-aarch64 (see tests/cross/CMakeLists.txt):
#
#   cmake -S . -B build-a64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build-a64 -j && ctest --test-dir build-a64
#
# Override the compiler prefix, sysroot or emulator with -DVRED_CROSS_PREFIX=...,
# -DVRED_CROSS_SYSROOT=..., -DVRED_QEMU=...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(VRED_CROSS_PREFIX "aarch64-linux-gnu-" CACHE STRING "cross compiler prefix")
set(VRED_CROSS_SYSROOT "/usr/aarch64-linux-gnu" CACHE PATH
    "target root: its lib/ holds the aarch64 libc the qemu runs use (qemu -L)")
set(CMAKE_C_COMPILER ${VRED_CROSS_PREFIX}gcc)

# Libraries and headers come from the target tree only; programs (qemu, python) from the host.
set(CMAKE_FIND_ROOT_PATH ${VRED_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# try_run and add_test run target binaries through this.
find_program(VRED_QEMU qemu-aarch64)
if(VRED_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${VRED_QEMU};-L;${VRED_CROSS_SYSROOT})
endif()
