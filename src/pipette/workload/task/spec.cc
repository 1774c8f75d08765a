#include "pipette/workload/task/spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "pipette/config/canonical.h"
#include "pipette/config/resolve_files.h"
#include "pipette/sandbox/sandbox.h"
#include "pipette/util/strings.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;
using config::Where;
using config::YamlMapping;
using nlohmann::json;

// A sample's seed when the experiment gives none (OLMES's random_subsample_seed).
constexpr int64_t kDefaultSeed = 1234;

// One task as written.
struct WrittenTask {
  std::string task;
  std::optional<int> limit, per_group, sample;
  std::optional<int64_t> seed;
  std::optional<bool> chat, rotate;
  Place place{};
};

struct WrittenTasks {
  std::vector<WrittenTask> tasks;
  int line = 0;
};

bool IsTaskName(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

class TasksDef : public config::SpecDef {
 public:
  std::string Name() const override { return "tasks"; }

  Result<std::any> Parse(const Where& w, const YAML::Node& node) const override {
    WrittenTasks out;
    out.line = config::Line(node);
    const std::vector<YAML::Node> list = config::AsList(node);
    if (node.IsNull() || list.empty()) {
      return w.At(node,
                  "tasks: takes a list of tasks (names such as mmlu_5shot, or "
                  "{task: NAME, limit: N, per_group: N})");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("tasks[{}]", i);
      WrittenTask t;
      t.place = w.PlaceOf(list[i]);
      if (list[i].IsMap()) {
        auto m = YamlMapping::Read(w, list[i], path, "");
        if (!m) return m.error();
        if (auto st = m->OnlyKeys(
                {"task", "limit", "per_group", "sample", "seed", "chat", "rotate"}, " in " + path);
            !st) {
          return st.error();
        }
        t.task = m->fields().Text("task");
        t.limit = m->fields().OptionalInt("limit", 1, 1 << 30);
        t.per_group = m->fields().OptionalInt("per_group", 1, 1 << 30);
        if (m->Has("chat")) t.chat = m->fields().Bool("chat");
        if (m->Has("rotate")) t.rotate = m->fields().Bool("rotate");
        t.sample = m->fields().OptionalInt("sample", 1, 1 << 30);
        t.seed = m->fields().OptionalInt("seed", 0, int64_t{1} << 53);
        if (auto st = m->status(); !st) return st.error();
        if (t.sample && (t.limit || t.per_group)) {
          return m->AtKey("sample", fmt::format("{}: sample: takes a seeded subset of all the "
                                                "items; it goes with neither limit: nor "
                                                "per_group:",
                                                path));
        }
        if (t.seed && !t.sample) {
          return m->AtKey("seed", fmt::format("{}: seed: goes with sample:", path));
        }
      } else {
        auto m = YamlMapping::Lone(w, list[i], path);
        if (!m) return m.error();
        t.task = m->fields().Text(path.c_str());
        if (auto st = m->status(); !st) return st.error();
      }
      for (const WrittenTask& before : out.tasks) {
        if (before.task == t.task && before.limit == t.limit && before.per_group == t.per_group &&
            before.sample == t.sample && before.seed == t.seed && before.chat == t.chat &&
            before.rotate == t.rotate) {
          return w.At(t.place, fmt::format("task '{}' is listed twice", t.task));
        }
      }
      out.tasks.push_back(std::move(t));
    }
    return std::any(std::move(out));
  }

  json Canonical(const std::any& written) const override {
    const auto& w = std::any_cast<const WrittenTasks&>(written);
    json list = json::array();
    for (const WrittenTask& t : w.tasks) {
      json j = {{"task", t.task}};
      config::PutWritten(j, "limit", t.limit);
      config::PutWritten(j, "per_group", t.per_group);
      config::PutWritten(j, "sample", t.sample);
      config::PutWritten(j, "seed", t.seed);
      config::PutWritten(j, "chat", t.chat);
      config::PutWritten(j, "rotate", t.rotate);
      list.push_back(std::move(j));
    }
    return list;
  }

  Result<std::any> Resolve(const Where& w, const std::any& any,
                           const config::ResolveOptions& opt) const override {
    const auto& written = std::any_cast<const WrittenTasks&>(any);
    TasksSpec spec;
    spec.line = written.line;
    for (const WrittenTask& t : written.tasks) {
      Result<std::string> file = DefinitionFile(t.task, opt.tasks_dir);
      if (!IsTaskName(t.task)) {
        file = config::ResolveDataPath(w, t.place, t.task, "task definition");
        if (!file) return file.error();
      } else if (!file) {
        return w.At(t.place, file.error().message);
      }
      if (!IsTaskName(fs::path(*file).stem().string())) {
        return w.At(t.place, fmt::format("task definition '{}': its file name names the task, in "
                                         "lower-case letters, digits and _",
                                         t.task));
      }
      auto def = LoadTaskDef(*file);
      if (!def) return def.error();
      TaskSpec r;
      r.name = def->name;
      r.definition = *file;
      r.definition_sha256 = def->sha256;
      r.selection = {t.limit.value_or(0), t.per_group.value_or(0), t.sample.value_or(0),
                     t.seed.value_or(kDefaultSeed), t.rotate.value_or(false)};
      r.chat = t.chat.value_or(false);
      if (r.selection.per_group > 0 && !(def->rows && def->rows->group)) {
        return w.At(t.place, fmt::format("task '{}' has no groups: per_group: is for a task "
                                         "whose definition groups its items (items.group)",
                                         t.task));
      }
      for (const TaskSpec& other : spec.tasks) {
        if (other.name == r.name) {
          return w.At(t.place, fmt::format("task '{}' is listed twice ({} and {})", r.name,
                                           other.definition, r.definition));
        }
      }
      auto dir = TaskDataDir(*def, opt.task_data_dir);
      if (!dir) return w.At(t.place, dir.error().message);
      auto items = LoadTaskItems(*def, *dir, r.selection);
      if (!items) return items.error();
      r.data_dir = items->data_dir;
      r.n_items = int64_t(items->items.size());
      r.n_available = items->n_available;
      r.items_sha256 = items->sha256;
      r.kind = def->kind;
      if (Generates(def->kind)) r.max_new_tokens = def->gen.max_tokens;
      if (def->kind == Kind::kExecute) {
        // Refused before anything runs: without the sandbox no program may run.
        if (auto tools = sandbox::FindTools(); !tools) {
          return w.At(t.place, fmt::format("task '{}': {}", t.task, tools.error().message));
        }
      }
      for (const Item& item : items->items) {
        const int64_t scored = int64_t(item.contexts.at(0).size() + item.target.size());
        if (item.choices.empty() && scored > r.max_bytes) {
          r.max_bytes = scored;
          r.max_item = item.id;
        }
        for (size_t k = 0; k < item.choices.size(); ++k) {
          const int64_t bytes =
              int64_t(item.ContextOf(k).size() + item.choices[k].continuation.size());
          if (bytes > r.max_bytes) {
            r.max_bytes = bytes;
            r.max_item = item.id;
          }
        }
      }
      spec.tasks.push_back(std::move(r));
    }
    return std::any(std::move(spec));
  }

  json Resolved(const std::any& resolved) const override {
    const auto& spec = std::any_cast<const TasksSpec&>(resolved);
    json list = json::array();
    for (const TaskSpec& t : spec.tasks) {
      list.push_back({{"task", t.name},
                      {"definition", t.definition},
                      {"definition_sha256", t.definition_sha256},
                      {"data", t.data_dir},
                      {"limit", t.selection.limit},
                      {"per_group", t.selection.per_group},
                      {"n_items", t.n_items},
                      {"items_sha256", t.items_sha256}});
      // Only when asked, so that a raw task's resolved form is as before.
      if (t.chat) list.back()["prompt_format"] = "chat_template";
      if (t.selection.rotate) list.back()["rotate"] = true;
      if (t.selection.sample > 0) {
        list.back()["sample"] = t.selection.sample;
        list.back()["seed"] = t.selection.seed;
      }
    }
    return list;
  }
};

}  // namespace

const config::SpecDef& TasksSpecDef() {
  static const TasksDef kDef;
  return kDef;
}

const TasksSpec* TasksSpecOf(const config::Experiment& ex) {
  return ex.quality.Get<TasksSpec>("tasks");
}

void SetTasksSpec(config::Experiment* ex, TasksSpec spec) {
  ex->quality.Set(TasksSpecDef(), std::move(spec));
}

Result<std::string> DefinitionFile(const std::string& written, const std::string& tasks_dir) {
  std::error_code ec;
  if (IsTaskName(written)) {
    const fs::path shipped = fs::path(tasks_dir) / (written + ".yaml");
    if (fs::is_regular_file(shipped, ec)) return fs::absolute(shipped).lexically_normal().string();
    std::string known = fmt::format("{}", fmt::join(ShippedTasks(tasks_dir), ", "));
    return InputError(fmt::format("no task '{}'{}; the shipped tasks are: {}", written,
                                  DidYouMean(written, ShippedTasks(tasks_dir)),
                                  known.empty() ? "(none in " + tasks_dir + ")" : known));
  }
  return InputError(
      fmt::format("task '{}' is not a name (lower-case letters, digits and _)", written));
}

std::vector<std::string> ShippedTasks(const std::string& tasks_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tasks_dir, ec)) {
    const fs::path p = entry.path();
    if (p.extension() == ".yaml" && IsTaskName(p.stem().string())) {
      names.push_back(p.stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pipette::workload::task
