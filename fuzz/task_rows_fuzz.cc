// A task's data (docs/tasks.md): workload::task::LoadTaskItems on any bytes as a JSONL rows file
// (a choice task with templates, groups and a sample) and as an OLMES request set (a choice task
// and a generation task), written to a fresh folder; then the bytes as a model's completion, cut
// at stop sequences and read by GSM8K's answer extractors and normalisation.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "pipette/workload/task/answer.h"
#include "pipette/workload/task/definition.h"
#include "pipette/workload/task/items.h"

namespace {

namespace fs = std::filesystem;
namespace task = pipette::workload::task;

constexpr const char* kRows = R"yaml(title: t
convention: c
licence: l
data: d
items: {files: [r.jsonl], choices: choices, gold: answer, group: "{subject}", id: "{id}"}
prompt: "{question|strip}\n{choices|lettered}\nAnswer:"
continuation: " {letter}"
scoring: {kind: choice, metric: acc_sum}
)yaml";
constexpr const char* kOlmesChoice = R"yaml(title: t
convention: c
licence: l
data: d
items: {olmes: o}
scoring: {kind: choice, metric: acc_per_char}
)yaml";
constexpr const char* kOlmesGenerate = R"yaml(title: t
convention: c
licence: l
data: d
items: {olmes: o}
target: "{doc.answer}"
scoring:
  kind: generate
  max_tokens: 8
  stop: ["Question:", "\n\n"]
  extract:
    strict: {regex: "the answer is (\\-?[0-9\\.\\,]+)", select: first}
    flexible: {regex: "(-?[$0-9.,]{2,})|(-?[0-9]+)", select: last}
  ignore: [",", "\\$", "(?s).*#### ", "\\.$"]
  ignore_case: true
  metric: exact_match_flexible
)yaml";

struct Folder {
  fs::path dir;
  Folder() {
    std::string tmpl = (fs::temp_directory_path() / "pipette-fuzz-rows-XXXXXX").string();
    if (mkdtemp(tmpl.data())) dir = tmpl;
    fs::create_directories(dir / "d/o");
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Folder folder;  // one folder for the process, its files rewritten per input
  if (folder.dir.empty()) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::ofstream(folder.dir / "d/r.jsonl", std::ios::binary | std::ios::trunc) << bytes;
  std::ofstream(folder.dir / "d/o/requests.jsonl.gz", std::ios::binary | std::ios::trunc) << bytes;
  std::ofstream(folder.dir / "d/o/config.json", std::ios::trunc)
      << R"({"task_config": {"metric_kwargs": {"uncond_docid_offset": 1000}}})";
  for (const char* yaml : {kRows, kOlmesChoice, kOlmesGenerate}) {
    auto def = task::ParseTaskDef(yaml, (folder.dir / "t.yaml").string());
    if (!def) __builtin_trap();  // the definitions are fixed: they must read
    for (const task::Selection sel :
         {task::Selection{}, task::Selection{.limit = 2, .per_group = 1},
          task::Selection{.sample = 3, .seed = 7}}) {
      auto items = task::LoadTaskItems(*def, (folder.dir / "d").string(), sel);
      (void)items;
    }
    if (def->kind == task::Kind::kGenerate) {
      const std::string completion = task::CutAtStop(bytes, def->gen.stop);
      for (const task::Extractor& x : def->gen.answer.extract) {
        (void)task::Normalise(def->gen.answer, task::Extract(x, completion));
      }
    }
  }
  return 0;
}
