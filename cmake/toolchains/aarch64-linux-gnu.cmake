# Cross build of the llama.cpp worker for aarch64 Linux with Debian's g++-aarch64-linux-gnu
# (scripts/build-worker.sh aarch64). The worker is linked statically: one file to stage on a
# board, which runs it as it is or under qemu-aarch64 (Debian's qemu-user) without a sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# The instruction set the kernels are built for: ARMv8.2-A with the dot-product and half-precision
# extensions, as in the Cortex-A76/A78 of current boards (Raspberry Pi 5) and phones.
set(GGML_CPU_ARM_ARCH "armv8.2-a+dotprod+fp16" CACHE STRING "" FORCE)
