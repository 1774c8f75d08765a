# Writes build_info.h with Pipette's version and the commit being built. Runs at every build
# (not only at configure time), and rewrites the header only when its content changes.
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
configure_file(${SOURCE_DIR}/src/pipette/build_info.h.in ${OUTPUT} @ONLY)
