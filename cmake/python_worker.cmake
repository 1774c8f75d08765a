# A Python runtime worker (workers/<runtime>/worker.py, on workers/python): nothing is compiled.
# pipette_python_worker(RUNTIME) writes its launcher, build/pipette-worker-RUNTIME, a sh script
# that runs the worker under the venv's interpreter (its pinned packages are installed there;
# PIPETTE_PYTHON in the environment overrides the interpreter at run time), and adds its unit
# tests (*_test.py beside it, standard library unittest, under the venv's interpreter) and the
# launcher's test.
# PIPETTE_VENV_PYTHON: the top-level CMakeLists.txt.

function(pipette_python_worker runtime)
  set(dir "${CMAKE_SOURCE_DIR}/workers/${runtime}")
  set(PIPETTE_WORKER_PROGRAM "pipette-worker-${runtime}")
  set(PIPETTE_WORKER_SCRIPT "${dir}/worker.py")
  configure_file("${CMAKE_SOURCE_DIR}/workers/python/launcher.sh.in"
                 "${CMAKE_BINARY_DIR}/${PIPETTE_WORKER_PROGRAM}" @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  add_test(NAME python_worker_${runtime}
           COMMAND ${PIPETTE_VENV_PYTHON} -B -m unittest discover -s ${dir} -t ${dir}
                   -p "*_test.py")
  set_tests_properties(python_worker_${runtime} PROPERTIES LABELS unit
                       ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/workers/python")
  add_test(NAME python_worker_${runtime}_launcher
           COMMAND sh ${CMAKE_SOURCE_DIR}/workers/python/launcher_test.sh
                   ${CMAKE_BINARY_DIR}/${PIPETTE_WORKER_PROGRAM} ${PIPETTE_VENV_PYTHON} ${runtime})
  set_tests_properties(python_worker_${runtime}_launcher PROPERTIES LABELS unit)
endfunction()
