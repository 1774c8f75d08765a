// Build facts compiled into the binary: Pipette's version, the commit it was built from, the
// source folder and the Python of CMake's PIPETTE_VENV_PYTHON (the converter runs there). Defined
// in one generated file (src/pipette/build_info.cc.in, written by cmake/build_info.cmake at each
// build): a new commit or another checkout recompiles that file alone.
#pragma once

namespace pipette {

extern const char* const kPipetteVersion;
extern const char* const kPipetteCommit;
extern const char* const kPipetteSourceDir;   // converters/onnx is run from there
extern const char* const kPipetteVenvPython;  // the Python with the pinned packages

}  // namespace pipette
