# A portable x86-64 worker for boards of this machine's architecture whose CPU or libraries differ
# (scripts/build-worker.sh x86_64): linked statically, its kernels built for x86-64-v3 (SSE4.2,
# AVX, AVX2, FMA, F16C, BMI2: every x86-64 CPU since 2015) instead of this machine's own CPU
# (GGML_NATIVE, the default build). Naming the system makes it a cross build, so ggml's native
# detection and OpenMP are off (cmake/llama_cpp.cmake).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
foreach(flag GGML_SSE42 GGML_AVX GGML_AVX2 GGML_FMA GGML_F16C GGML_BMI2)
  set(${flag} ON CACHE BOOL "" FORCE)
endforeach()
