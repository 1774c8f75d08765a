// Where the tests find the source folder, the build folder and the programs they run. Defined in
// one file that CMake generates (src/pipette/testing/paths.cc.in): only that file differs between
// two checkouts, so that every test's object is found in ccache from the other (a path given to
// each test as a compile definition would make every one of them differ).
#pragma once

#include <string>

namespace pipette::testing {

std::string SourceDir();      // the checkout: models/, datasets/, tests/data, docs/
std::string BinaryDir();      // the build folder (build/)
std::string PipetteBinary();  // build/pipette
std::string LlamaToolsDir();  // llama.cpp's reference tools (build/bin)
std::string WorkerLlama();    // build/pipette-worker-llama
std::string Python3();        // the system's python3 (the conformance suite's fixture worker)
std::string WorkerOnnxruntime();
std::string WorkerOpenvino();
std::string WorkerMnn();
std::string OnnxTestModel();  // the conformance suite's converted ONNX model folder
std::string MnnTestModel();   // ... and that converted to MNN

}  // namespace pipette::testing
