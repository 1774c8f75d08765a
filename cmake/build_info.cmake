# Writes build_info.cc (src/pipette/build_info.cc.in) with Pipette's version and the commit being
# built. Runs at every build (not only at configure time), and rewrites the file only when its
# content changes: the one object that a new commit or another checkout recompiles.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE PIPETTE_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE PIPETTE_GIT_DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT PIPETTE_GIT_COMMIT)
  set(PIPETTE_GIT_COMMIT "unknown")
elseif(PIPETTE_GIT_DIRTY)
  set(PIPETTE_GIT_COMMIT "${PIPETTE_GIT_COMMIT}-dirty")
endif()
set(PROJECT_VERSION ${VERSION})
configure_file(${SOURCE_DIR}/src/pipette/build_info.cc.in ${OUTPUT} @ONLY)
