# llama.cpp, built by this project's CMake from the pinned source: the llama.cpp tree that the
# pinned PyPI sdist llama-cpp-python carries (scripts/setup.sh fetches it, checks its SHA-256 and
# unpacks it into .deps/). One build gives the worker its libraries (llama, ggml and llama.cpp's
# `common`, which holds the Jinja chat-template engine) and the reference tools that the
# agreement tests and benchmarks run beside Pipette: llama-perplexity, llama-bench, llama-server.
#
# CPU options as llama-cpp-python builds them by default: native CPU features and OpenMP.

set(PIPETTE_LLAMA_SOURCE "" CACHE PATH
    "llama.cpp source tree (default: .deps/llama-cpp-python-<version>/vendor/llama.cpp)")
set(PIPETTE_LLAMA_CPP_PYTHON_VERSION "" CACHE STRING
    "version of the llama-cpp-python sdist that carries the llama.cpp source")

if(NOT PIPETTE_LLAMA_SOURCE)
  file(GLOB _pipette_llama_candidates LIST_DIRECTORIES true
       "${CMAKE_SOURCE_DIR}/.deps/llama-cpp-python-*/vendor/llama.cpp")
  list(LENGTH _pipette_llama_candidates _pipette_llama_count)
  if(NOT _pipette_llama_count EQUAL 1)
    message(FATAL_ERROR
      "Found ${_pipette_llama_count} llama.cpp source trees under .deps/ (expected one: "
      ".deps/llama-cpp-python-<version>/vendor/llama.cpp). Run scripts/setup.sh, which fetches "
      "the pinned source, or pass -DPIPETTE_LLAMA_SOURCE=/path/to/llama.cpp.")
  endif()
  set(PIPETTE_LLAMA_SOURCE "${_pipette_llama_candidates}")
endif()
if(NOT EXISTS "${PIPETTE_LLAMA_SOURCE}/include/llama.h")
  message(FATAL_ERROR "PIPETTE_LLAMA_SOURCE=${PIPETTE_LLAMA_SOURCE} has no include/llama.h. "
                      "Run scripts/setup.sh to fetch the pinned llama.cpp source.")
endif()
if(NOT PIPETTE_LLAMA_CPP_PYTHON_VERSION)
  string(REGEX MATCH "llama-cpp-python-([^/]+)/vendor/llama.cpp$" _pipette_match
               "${PIPETTE_LLAMA_SOURCE}")
  set(PIPETTE_LLAMA_CPP_PYTHON_VERSION "${CMAKE_MATCH_1}")
endif()
if(NOT PIPETTE_LLAMA_CPP_PYTHON_VERSION)
  set(PIPETTE_LLAMA_CPP_PYTHON_VERSION "unknown")
endif()

# The commit, as it is. The sdist ships llama.cpp as a git submodule whose index holds the stat
# data of the machine that packed it, so `git diff-index` (what ggml's CMake asks) reports every
# file changed until the index is refreshed. Refresh it, then record the truth: the commit, and
# when the tree differs from it, which files differ.
find_package(Git QUIET)
set(PIPETTE_LLAMA_COMMIT "unknown")
set(PIPETTE_LLAMA_TREE "unknown (no git metadata)")
if(Git_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} update-index -q --refresh
                  WORKING_DIRECTORY "${PIPETTE_LLAMA_SOURCE}" OUTPUT_QUIET ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD
                  WORKING_DIRECTORY "${PIPETTE_LLAMA_SOURCE}" RESULT_VARIABLE _pipette_rc
                  OUTPUT_VARIABLE _pipette_commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_pipette_rc EQUAL 0)
    set(PIPETTE_LLAMA_COMMIT "${_pipette_commit}")
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${PIPETTE_LLAMA_SOURCE}"
                    OUTPUT_VARIABLE _pipette_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_pipette_status)
      string(REPLACE "\n" "; " _pipette_status "${_pipette_status}")
      set(PIPETTE_LLAMA_TREE "modified: ${_pipette_status}")
    else()
      set(PIPETTE_LLAMA_TREE "clean")
    endif()
  endif()
endif()
message(STATUS "llama.cpp: ${PIPETTE_LLAMA_SOURCE} (llama-cpp-python "
               "${PIPETTE_LLAMA_CPP_PYTHON_VERSION} sdist), commit ${PIPETTE_LLAMA_COMMIT}, "
               "tree ${PIPETTE_LLAMA_TREE}")

# llama.cpp's own options. Static libraries: one self-contained worker binary.
set(BUILD_SHARED_LIBS OFF)
# A cross build (PIPETTE_WORKERS_ONLY with a toolchain of cmake/toolchains/) targets the
# instruction set its toolchain names (GGML_CPU_ARM_ARCH), not this machine's, and builds the
# worker alone: no reference tools, no HTTPS.
# The cross-built worker is linked statically, and GCC's OpenMP runtime is not: it uses ggml's own
# thread pool (as llama.cpp's Android builds do).
if(CMAKE_CROSSCOMPILING)
  set(GGML_NATIVE OFF CACHE BOOL "" FORCE)
  set(GGML_OPENMP OFF CACHE BOOL "" FORCE)
else()
  set(GGML_NATIVE ON CACHE BOOL "" FORCE)
  set(GGML_OPENMP ON CACHE BOOL "" FORCE)
endif()
set(LLAMA_BUILD_COMMON ON CACHE BOOL "" FORCE)
if(PIPETTE_WORKERS_ONLY)
  set(LLAMA_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
  set(LLAMA_BUILD_SERVER OFF CACHE BOOL "" FORCE)
  set(LLAMA_OPENSSL OFF CACHE BOOL "" FORCE)
else()
  set(LLAMA_BUILD_TOOLS ON CACHE BOOL "" FORCE)
  set(LLAMA_BUILD_SERVER ON CACHE BOOL "" FORCE)
endif()
set(LLAMA_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_APP OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_UI OFF CACHE BOOL "" FORCE)
set(LLAMA_USE_PREBUILT_UI OFF CACHE BOOL "" FORCE)  # no network at build time
set(LLAMA_TOOLS_INSTALL OFF CACHE BOOL "" FORCE)
set(LLAMA_ALL_WARNINGS OFF CACHE BOOL "" FORCE)
add_subdirectory("${PIPETTE_LLAMA_SOURCE}" "${CMAKE_BINARY_DIR}/llama.cpp" EXCLUDE_FROM_ALL SYSTEM)

# The reference tools, built by default into build/bin/ (not in a cross build of the worker).
if(NOT PIPETTE_WORKERS_ONLY)
  add_custom_target(llama_reference_tools ALL DEPENDS llama-perplexity llama-bench llama-server)
endif()
