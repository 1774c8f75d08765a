#include "pipette/workload/task/items.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "pipette/util/field_reader.h"
#include "pipette/util/files.h"
#include "pipette/util/json_parse.h"
#include "pipette/util/sha256.h"
#include "pipette/util/utf8.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Error Bad(const std::string& file, int line, const std::string& problem) {
  return Place{.file = file, .line = line}.Fail(problem);
}

// Whether `name` matches `pattern`, where `*` stands for any characters.
bool Matches(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    for (size_t skip = 0; skip <= name.size(); ++skip) {
      if (Matches(pattern.substr(1), name.substr(skip))) return true;
    }
    return false;
  }
  return !name.empty() && pattern.front() == name.front() &&
         Matches(pattern.substr(1), name.substr(1));
}

// The files under `root` that `pattern` names (segments split on '/'), relative, sorted.
std::vector<std::string> Glob(const fs::path& root, const std::string& pattern) {
  std::vector<std::string> found = {""};
  size_t begin = 0;
  while (begin <= pattern.size()) {
    const size_t end = std::min(pattern.find('/', begin), pattern.size());
    const std::string segment = pattern.substr(begin, end - begin);
    const bool last = end == pattern.size();
    std::vector<std::string> next;
    for (const std::string& dir : found) {
      const fs::path at = root / dir;
      if (segment.find('*') == std::string::npos) {
        std::error_code ec;
        const fs::path p = at / segment;
        if (last ? fs::is_regular_file(p, ec) : fs::is_directory(p, ec)) {
          next.push_back((fs::path(dir) / segment).string());
        }
        continue;
      }
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(at, ec)) {
        const std::string name = entry.path().filename().string();
        if (!Matches(segment, name)) continue;
        if (last ? entry.is_regular_file(ec) : entry.is_directory(ec)) {
          next.push_back((fs::path(dir) / name).string());
        }
      }
    }
    std::sort(next.begin(), next.end());
    found = std::move(next);
    if (last) break;
    begin = end + 1;
  }
  return found;
}

// The most a request set may unpack to: the largest shipped, HellaSwag 5-shot's, is 174 MB.
constexpr size_t kMaxUnpacked = size_t{1} << 30;
// The longest line (one row or request): a 5-shot request is a few KB.
constexpr size_t kMaxLineBytes = size_t{16} << 20;

// Whether a path written in a definition or made from a row stays in the data folder.
bool Inside(const std::string& rel) {
  const fs::path p(rel);
  if (p.is_absolute()) return false;
  for (const auto& part : p) {
    if (part == "..") return false;
  }
  return true;
}

// A small file's bytes (an OLMES set's config.json); a file that cannot be read is bad input.
Result<std::string> ReadData(const std::string& path) {
  auto text = ReadFileToString(path);
  if (!text) {
    Error e = text.error();
    e.exit_code = 2;
    return e;
  }
  return text;
}

struct Row {
  json object;
  std::string file;  // relative
  int line = 0;
};

// Calls `visit` with every non-blank line of a JSONL file (gzipped or not: zlib reads both) as
// an object, in order; stops at the first problem. Streamed, a line at a time: the controller
// never holds a whole request set (HellaSwag 5-shot's unpacks to 174 MB). `sha256`: of the
// (unpacked) bytes.
Status ForEachRow(const std::string& path, const std::string& rel,
                  const std::function<Status(Row&&)>& visit, std::string* sha256) {
  struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return InputError(fmt::format("cannot read {}", path));
  std::unique_ptr<gzFile_s, GzCloser> gz(gzopen(path.c_str(), "rb"));
  if (!gz) return InputError(fmt::format("cannot open {}", path));
  Sha256 hash;
  std::string pending;  // the bytes of the line being read
  size_t total = 0, line_start = 0;
  int line = 0;
  auto take = [&](std::string_view s) -> Status {
    ++line;
    if (auto bad = FirstInvalidUtf8(s)) return NotUtf8Error(path, s, *bad, line, line_start);
    if (s.find_first_not_of(" \t\r") == std::string_view::npos) return {};
    auto j = ParseJsonBounded(s, fmt::format("{}:{}", path, line));
    if (!j) return j.error();
    if (!j->is_object()) return Bad(path, line, "a row is a JSON object");
    return visit({std::move(*j), rel, line});
  };
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(gz.get(), buf, sizeof buf);
    if (n < 0) return InputError(fmt::format("{}: not a readable file", path));
    if (n == 0) break;
    hash.Update(std::string_view(buf, size_t(n)));
    total += size_t(n);
    if (total > kMaxUnpacked) {
      return InputError(fmt::format("{}: more than {} bytes unpacked", path, kMaxUnpacked));
    }
    size_t begin = 0;
    for (;;) {
      const void* nl = std::memchr(buf + begin, '\n', size_t(n) - begin);
      if (!nl) break;
      const size_t end = size_t(static_cast<const char*>(nl) - buf);
      pending.append(buf + begin, end - begin);
      if (auto st = take(pending); !st) return st;
      line_start += pending.size() + 1;
      pending.clear();
      begin = end + 1;
    }
    pending.append(buf + begin, size_t(n) - begin);
    if (pending.size() > kMaxLineBytes) {
      return Bad(path, line + 1, fmt::format("a line of more than {} bytes", kMaxLineBytes));
    }
  }
  // A file cut short reads as a short one: zlib says so only when asked.
  int err = Z_OK;
  const char* why = gzerror(gz.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) {
    return InputError(fmt::format("{}: a broken gzip file ({})", path, why ? why : "zlib error"));
  }
  if (!pending.empty()) {
    if (auto st = take(pending); !st) return st;
  }
  *sha256 = hash.Hex();
  return {};
}

Status ReadRows(const std::string& path, const std::string& rel, std::vector<Row>* rows,
                std::string* sha256) {
  return ForEachRow(
      path, rel,
      [&](Row&& row) -> Status {
        rows->push_back(std::move(row));
        return {};
      },
      sha256);
}

const json* FieldAt(const json& object, const std::string& path) {
  const json* v = &object;
  size_t begin = 0;
  while (begin <= path.size()) {
    const size_t end = std::min(path.find('.', begin), path.size());
    const std::string key = path.substr(begin, end - begin);
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
    if (end == path.size()) break;
    begin = end + 1;
  }
  return v;
}

// FieldAt of an object the caller may change.
json* MutableFieldAt(json& object, const std::string& path) {
  return const_cast<json*>(FieldAt(object, path));
}

std::string TextOf(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// A row's variables for its templates: its fields, and @file and @line.
json VarsOf(const Row& row) {
  json vars = row.object;
  vars["@file"] = row.file;
  vars["@line"] = row.line;
  return vars;
}

Result<std::vector<std::string>> ChoicesOf(const RowSource& src, const Row& row,
                                           const std::string& path) {
  std::vector<std::string> out;
  auto text = [&](const json* v, const std::string& name) -> Status {
    if (!v) return Bad(path, row.line, fmt::format("the row has no field '{}'", name));
    if (!v->is_string() && !v->is_number()) {
      return Bad(path, row.line,
                 fmt::format("choice field '{}' is {}, not text", name, JsonKind(*v)));
    }
    out.push_back(TextOf(*v));
    return {};
  };
  if (!src.choices_list.empty()) {
    const json* list = FieldAt(row.object, src.choices_list);
    if (!list || !list->is_array()) {
      return Bad(path, row.line,
                 fmt::format("field '{}' must be a list of choices{}", src.choices_list,
                             list ? ", got " + JsonKind(*list) : ", and the row has none"));
    }
    for (size_t k = 0; k < list->size(); ++k) {
      if (auto st = text(&(*list)[k], fmt::format("{}[{}]", src.choices_list, k)); !st) {
        return st.error();
      }
    }
  } else {
    for (const std::string& f : src.choice_fields) {
      if (auto st = text(FieldAt(row.object, f), f); !st) return st.error();
    }
  }
  if (out.size() < 2 || out.size() > 26) {
    return Bad(path, row.line, fmt::format("an item has 2 to 26 choices, this has {}", out.size()));
  }
  return out;
}

Result<int> GoldOf(const RowSource& src, const Row& row, const std::string& path,
                   size_t n_choices) {
  const json* v = FieldAt(row.object, src.gold_field);
  if (!v) return Bad(path, row.line, fmt::format("the row has no field '{}'", src.gold_field));
  int64_t index = -1;
  if (!src.gold_labels.empty()) {
    const json* labels = FieldAt(row.object, src.gold_labels);
    if (!labels || !labels->is_array()) {
      return Bad(path, row.line,
                 fmt::format("field '{}' must be a list of labels", src.gold_labels));
    }
    for (size_t k = 0; k < labels->size(); ++k) {
      if ((*labels)[k] == *v) index = int64_t(k);
    }
    if (index < 0) {
      return Bad(
          path, row.line,
          fmt::format("gold '{}' is not one of the labels in '{}'", TextOf(*v), src.gold_labels));
    }
  } else {
    std::optional<int64_t> n;
    if (v->is_number_integer()) {
      n = v->get<int64_t>();
    } else if (v->is_string()) {
      const std::string s = v->get<std::string>();
      if (!s.empty() && s.size() < 4 && std::all_of(s.begin(), s.end(), ::isdigit)) {
        n = std::stoll(s);
      }
    }
    if (!n) {
      return Bad(path, row.line,
                 fmt::format("gold field '{}' must be a choice's index, got {}", src.gold_field,
                             TextOf(*v)));
    }
    index = *n - src.gold_base;
  }
  if (index < 0 || index >= int64_t(n_choices)) {
    return Bad(path, row.line,
               fmt::format("gold field '{}' is {}, out of the {} choices{}", src.gold_field,
                           TextOf(*v), n_choices, src.gold_base ? " (1-based)" : " (0-based)"));
  }
  return int(index);
}

// A row's prompt and its gold continuation: one few-shot example.
Result<std::string> Example(const TaskDef& def, const Row& row, const std::string& path) {
  const RowSource& src = *def.rows;
  if (def.kind != Kind::kChoice) {
    const json vars = VarsOf(row);
    auto prompt = def.prompt.Render(vars);
    if (!prompt) return Bad(path, row.line, "prompt: " + prompt.error().message);
    auto target = def.target.Render(vars);
    if (!target) return Bad(path, row.line, "target: " + target.error().message);
    return *prompt + *target;
  }
  auto choices = ChoicesOf(src, row, path);
  if (!choices) return choices.error();
  auto gold = GoldOf(src, row, path, choices->size());
  if (!gold) return gold.error();
  json vars = VarsOf(row);
  vars["choice"] = (*choices)[size_t(*gold)];
  vars["letter"] = Letter(size_t(*gold));
  vars["index"] = *gold;
  auto prompt = def.prompt.Render(vars);
  if (!prompt) return Bad(path, row.line, "prompt: " + prompt.error().message);
  auto cont = def.continuation.Render(vars);
  if (!cont) return Bad(path, row.line, "continuation: " + cont.error().message);
  return *prompt + *cont;
}

// A generation item's target and program, rendered from its row (or OLMES request).
Status GenerationParts(const TaskDef& def, const json& vars, const std::string& path, int line,
                       Item* item) {
  if (!def.target.empty()) {
    auto t = def.target.Render(vars);
    if (!t) return Bad(path, line, "target: " + t.error().message);
    item->target = *t;
  }
  if (def.kind == Kind::kExecute) {
    auto before = def.gen.program_before.Render(vars);
    if (!before) return Bad(path, line, "scoring.program.before: " + before.error().message);
    auto after = def.gen.program_after.Render(vars);
    if (!after) return Bad(path, line, "scoring.program.after: " + after.error().message);
    item->program_before = *before;
    item->program_after = *after;
  }
  return {};
}

// How a loading pass selects: by position (Selection's limit and per_group), or the items
// `chosen` marks (by position in the task's order), or none, only listing every item's id and
// group into `keys` (a sample's first pass).
struct Pass {
  const Selection& sel;
  const std::vector<bool>* chosen = nullptr;
  std::vector<std::pair<std::string, std::string>>* keys = nullptr;
  // Whether the item at `index` of group `group` is made; `taken` counts per group.
  bool Takes(size_t index, const std::string& group, size_t made,
             std::map<std::string, int>* taken) const {
    if (keys) return false;
    if (chosen) return index < chosen->size() && (*chosen)[index];
    if (sel.limit > 0 && made >= size_t(sel.limit)) return false;
    return !(sel.per_group > 0 && (*taken)[group]++ >= sel.per_group);
  }
};

class RowItems {
 public:
  RowItems(const TaskDef& def, fs::path root, bool rotates = false)
      : def_(def), root_(std::move(root)), src_rotates_(rotates) {}

  Status Load(const Pass& pass, TaskItems* out) {
    const RowSource& src = *def_.rows;
    std::map<std::string, int> taken;  // items taken by group
    size_t made = 0;                   // items made (not counting their rotations)
    // Row by row, each selected one made into its item at once: the rows are not kept.
    auto visit = [&](Row&& row) -> Status {
      const size_t index = size_t(out->n_available++);
      if (!pass.keys && !pass.chosen && pass.sel.limit > 0 && made >= size_t(pass.sel.limit)) {
        return {};
      }
      const std::string path = (root_ / row.file).string();
      std::string group;
      if (src.group) {
        auto g = src.group->Render(VarsOf(row));
        if (!g) return Bad(path, row.line, "group: " + g.error().message);
        group = *g;
      }
      if (pass.keys) {
        auto id = IdOf(row, path);
        if (!id) return id.error();
        pass.keys->emplace_back(std::move(*id), group);
        return {};
      }
      if (!pass.Takes(index, group, made, &taken)) return {};
      ++made;
      auto item = Make(row, group, path, 0);
      if (!item) return item.error();
      const size_t k = item->choices.size();
      out->items.push_back(std::move(*item));
      for (size_t r = 1; pass.sel.rotate && r < k; ++r) {
        auto rotated = Make(row, group, path, r);
        if (!rotated) return rotated.error();
        out->items.push_back(std::move(*rotated));
      }
      return {};
    };
    for (const std::string& pattern : src.files) {
      if (!Inside(pattern)) {
        return InputError(
            fmt::format("{}: items.files '{}' leaves the data folder", def_.path, pattern));
      }
      const std::vector<std::string> files = Glob(root_, pattern);
      if (files.empty()) {
        return InputError(
            fmt::format("{}: no file under {} matches '{}'", def_.path, root_.string(), pattern));
      }
      for (const std::string& rel : files) {
        std::string sha;
        if (auto st = ForEachRow((root_ / rel).string(), rel, visit, &sha); !st) return st;
        out->files.emplace_back(rel, sha);
      }
    }
    return {};
  }

 private:
  // The row's item, its choices in rotation `rotation` (0: as the row has them).
  Result<Item> Make(const Row& row, const std::string& group, const std::string& path,
                    size_t rotation) {
    const RowSource& src = *def_.rows;
    Item item;
    item.group = group;
    item.file = row.file;
    item.line = row.line;
    json vars = VarsOf(row);
    auto id = IdOf(row, path);
    if (!id) return id.error();
    item.id = std::move(*id);
    if (def_.kind == Kind::kChoice && src_rotates_) {
      item.base_id = item.id;
      item.rotation = int(rotation);
      if (rotation > 0) item.id += fmt::format("#r{}", rotation);
    }
    std::string prefix;
    if (!def_.description.empty()) {
      auto d = def_.description.Render(vars);
      if (!d) return Bad(path, row.line, "description: " + d.error().message);
      prefix = *d;
    }
    if (def_.fewshot) {
      auto shots = Shots(vars, path, row.line);
      if (!shots) return shots.error();
      prefix += *shots;
    }
    if (def_.kind != Kind::kChoice) {
      auto prompt = def_.prompt.Render(vars);
      if (!prompt) return Bad(path, row.line, "prompt: " + prompt.error().message);
      item.contexts.push_back(prefix + *prompt);
      if (auto st = GenerationParts(def_, vars, path, row.line, &item); !st) return st.error();
      if (def_.kind == Kind::kGreedy && item.target.empty()) {
        return Bad(path, row.line, "a greedy task's target is empty: nothing to score");
      }
      return item;
    }
    auto choices = ChoicesOf(src, row, path);
    if (!choices) return choices.error();
    auto gold = GoldOf(src, row, path, choices->size());
    if (!gold) return gold.error();
    item.gold = *gold;
    if (rotation > 0) {
      // Slot j holds the original choice (j + r) mod k, in the row's own fields too, so that a
      // prompt listing them ({choices|lettered}) lists them rotated.
      const size_t n = choices->size();
      std::vector<std::string> rotated(n);
      for (size_t j = 0; j < n; ++j) rotated[j] = (*choices)[(j + rotation) % n];
      item.gold = int((size_t(*gold) + n - rotation % n) % n);
      if (!src.choices_list.empty()) {
        json* list = MutableFieldAt(vars, src.choices_list);
        for (size_t j = 0; list && j < n; ++j) (*list)[j] = rotated[j];
      } else {
        for (size_t j = 0; j < n; ++j) {
          if (json* f = MutableFieldAt(vars, src.choice_fields[j])) *f = rotated[j];
        }
      }
      *choices = std::move(rotated);
    }
    for (size_t k = 0; k < choices->size(); ++k) {
      json cvars = vars;
      cvars["choice"] = (*choices)[k];
      cvars["letter"] = Letter(k);
      cvars["index"] = k;
      auto prompt = def_.prompt.Render(cvars);
      if (!prompt) return Bad(path, row.line, "prompt: " + prompt.error().message);
      auto cont = def_.continuation.Render(cvars);
      if (!cont) return Bad(path, row.line, "continuation: " + cont.error().message);
      if (cont->empty())
        return Bad(path, row.line, fmt::format("choice {} continues with nothing", k));
      const std::string context = prefix + *prompt;
      auto same = std::find(item.contexts.begin(), item.contexts.end(), context);
      const size_t at = size_t(same - item.contexts.begin());
      if (same == item.contexts.end()) item.contexts.push_back(context);
      item.choices.push_back({at, *cont});
    }
    return item;
  }

  Result<std::string> IdOf(const Row& row, const std::string& path) const {
    if (!def_.rows->id) return fmt::format("{}:{}", row.file, row.line);
    auto id = def_.rows->id->Render(VarsOf(row));
    if (!id) return Bad(path, row.line, "id: " + id.error().message);
    return *id;
  }

  // The few-shot examples for an item with `vars`, joined and followed by the separator.
  Result<std::string> Shots(const json& vars, const std::string& path, int line) {
    const FewShot& fs = *def_.fewshot;
    auto rel = fs.files.Render(vars);
    if (!rel) return Bad(path, line, "fewshot.files: " + rel.error().message);
    if (!Inside(*rel)) {
      return Bad(path, line, fmt::format("fewshot.files: '{}' leaves the data folder", *rel));
    }
    if (auto it = shots_.find(*rel); it != shots_.end()) return it->second;
    const fs::path file = root_ / *rel;
    std::vector<Row> rows;
    std::string sha;
    if (auto st = ReadRows(file.string(), *rel, &rows, &sha); !st) return st.error();
    if (rows.size() < size_t(fs.n)) {
      return InputError(fmt::format("{}: {} few-shot examples are wanted, the file has {}",
                                    file.string(), fs.n, rows.size()));
    }
    std::string text;
    for (int k = 0; k < fs.n; ++k) {
      auto ex = Example(def_, rows[size_t(k)], file.string());
      if (!ex) return ex.error();
      text += *ex + fs.separator;
    }
    shot_files_.emplace_back(*rel, sha);
    return shots_.emplace(*rel, text).first->second;
  }

 public:
  std::vector<std::pair<std::string, std::string>> shot_files_;

 private:
  const TaskDef& def_;
  fs::path root_;
  bool src_rotates_ = false;                  // the items are made in every rotation
  std::map<std::string, std::string> shots_;  // few-shot file -> its examples' text
};

Status LoadOlmes(const TaskDef& def, const fs::path& root, const Pass& pass, TaskItems* out) {
  const Selection& sel = pass.sel;
  const fs::path folder = root / def.olmes->folder;
  const std::string requests = (folder / "requests.jsonl.gz").string();
  const std::string config = (folder / "config.json").string();
  int64_t uncond = -1;
  if (!Inside(def.olmes->folder)) {
    return InputError(
        fmt::format("{}: items.olmes '{}' leaves the data folder", def.path, def.olmes->folder));
  }
  {  // required: it says which documents are the unconditioned requests
    auto text = ReadData(config);
    if (!text) return text.error();
    auto j = ParseJsonBounded(*text, config);
    if (!j) return j.error();
    const json* off = FieldAt(*j, "task_config.metric_kwargs.uncond_docid_offset");
    if (off && off->is_number_integer()) uncond = off->get<int64_t>();
    out->files.emplace_back((fs::path(def.olmes->folder) / "config.json").string(),
                            Sha256Hex(*text));
  }
  std::string sha;
  const std::string rel = (fs::path(def.olmes->folder) / "requests.jsonl.gz").string();
  constexpr size_t kNotKept = static_cast<size_t>(-1);
  std::map<int64_t, size_t> at;  // doc_id -> index in items (kNotKept: past the selection)
  std::vector<Item> items;
  // A generation task's document: one request, its context (or the task's own prompt over the
  // request's fields) the prompt, its target and program from the task's templates.
  auto Generation = [&](Row&& row, const std::string& type, int64_t doc) -> Status {
    const bool greedy = def.kind == Kind::kGreedy;
    if (greedy ? type != "loglikelihood" : type.rfind("generate_until", 0) != 0) {
      return Bad(requests, row.line,
                 fmt::format("request_type '{}': a {} task reads {} requests", type,
                             greedy ? "greedy" : "generation",
                             greedy ? "loglikelihood" : "generate_until"));
    }
    if (at.count(doc)) {
      return Bad(requests, row.line, fmt::format("document {} has a second request", doc));
    }
    const json* native = FieldAt(row.object, "native_id");
    const std::string id = native && !native->is_null() ? TextOf(*native) : std::to_string(doc);
    if (pass.keys) pass.keys->emplace_back(id, "");
    if (pass.keys || (pass.chosen && !pass.Takes(at.size(), "", 0, nullptr)) ||
        (!pass.chosen && sel.limit > 0 && items.size() >= size_t(sel.limit))) {
      at.emplace(doc, kNotKept);
      return {};
    }
    at.emplace(doc, items.size());
    Item item;
    item.id = id;
    item.file = rel;
    item.line = row.line;
    if (def.prompt.empty()) {
      const json* ctx = FieldAt(row.object, "request.context");
      if (!ctx || !ctx->is_string() || ctx->get_ref<const std::string&>().empty()) {
        return Bad(requests, row.line, "request.context must be text, not empty");
      }
      item.contexts.push_back(ctx->get<std::string>());
    } else {
      auto prompt = def.prompt.Render(row.object);
      if (!prompt) return Bad(requests, row.line, "prompt: " + prompt.error().message);
      item.contexts.push_back(*prompt);
    }
    if (auto st = GenerationParts(def, row.object, requests, row.line, &item); !st) return st;
    if (greedy && def.target.empty()) {
      const json* cont = FieldAt(row.object, "request.continuation");
      if (!cont || !cont->is_string()) {
        return Bad(requests, row.line, "request.continuation must be text");
      }
      item.target = cont->get<std::string>();
    }
    if (greedy && item.target.empty()) {
      return Bad(requests, row.line, "a greedy task's continuation is empty");
    }
    items.push_back(std::move(item));
    return {};
  };
  // Row by row: a request set of 5-shot contexts unpacks to hundreds of MB of JSON.
  auto visit = [&](Row&& row) -> Status {
    FieldReader f(row.object, Place{.file = requests, .line = row.line});
    const std::string type = f.String("request_type");
    const int64_t doc = f.Int("doc_id", 0, FieldReader::kNoMax);
    if (!f.ok()) return f.status();
    if (def.kind != Kind::kChoice) return Generation(std::move(row), type, doc);
    const int64_t label = f.Int("label", 0, 25);
    const int64_t idx = f.Int("idx", 0, 25);
    if (!f.ok()) return f.status();
    if (type != "loglikelihood") {
      return Bad(
          requests, row.line,
          fmt::format("request_type '{}': a choice task reads loglikelihood requests", type));
    }
    if (uncond >= 0 && doc >= uncond) return {};
    const json* ctx = FieldAt(row.object, "request.context");
    const json* cont = FieldAt(row.object, "request.continuation");
    if (!ctx || !ctx->is_string() || !cont || !cont->is_string() ||
        cont->get_ref<const std::string&>().empty()) {
      return Bad(requests, row.line,
                 "request.context and request.continuation must be text, "
                 "the continuation not empty");
    }
    const size_t doc_index = at.size();  // this document's place, if it is new
    auto [it, fresh] = at.emplace(doc, items.size());
    if (fresh && pass.keys) {
      const json* native = FieldAt(row.object, "native_id");
      pass.keys->emplace_back(native && !native->is_null() ? TextOf(*native) : std::to_string(doc),
                              "");
    }
    if (fresh && (pass.keys || (pass.chosen && !pass.Takes(doc_index, "", 0, nullptr)) ||
                  (!pass.chosen && sel.limit > 0 && items.size() >= size_t(sel.limit)))) {
      it->second = kNotKept;  // counted, not kept
    }
    if (it->second == kNotKept) return {};
    if (fresh) {
      Item item;
      const json* native = FieldAt(row.object, "native_id");
      item.id = native && !native->is_null() ? TextOf(*native) : std::to_string(doc);
      item.gold = int(label);
      item.file = rel;
      item.line = row.line;
      items.push_back(std::move(item));
    }
    Item& item = items[it->second];
    if (idx != int64_t(item.choices.size())) {
      return Bad(requests, row.line,
                 fmt::format("document {}'s request idx {} comes where choice {} is due", doc, idx,
                             item.choices.size()));
    }
    if (item.gold != int(label)) {
      return Bad(requests, row.line,
                 fmt::format("document {}'s requests disagree on its label", doc));
    }
    const std::string& context = ctx->get_ref<const std::string&>();
    auto same = std::find(item.contexts.begin(), item.contexts.end(), context);
    const size_t index = size_t(same - item.contexts.begin());
    if (same == item.contexts.end()) item.contexts.push_back(context);
    item.choices.push_back({index, cont->get<std::string>()});
    return {};
  };
  if (auto st = ForEachRow(requests, rel, visit, &sha); !st) return st;
  out->files.emplace_back(rel, sha);
  out->n_available = int64_t(at.size());
  for (Item& item : items) {
    if (def.kind == Kind::kChoice &&
        (item.choices.size() < 2 || item.gold >= int(item.choices.size()))) {
      return Bad(requests, item.line,
                 fmt::format("document '{}' has {} choices and label {}", item.id,
                             item.choices.size(), item.gold));
    }
    if (!pass.chosen && sel.limit > 0 && out->items.size() >= size_t(sel.limit)) break;
    out->items.push_back(std::move(item));
  }
  return {};
}

void HashItems(TaskItems* out) {
  Sha256 h;
  for (const Item& item : out->items) {
    json j = {{"id", item.id}, {"group", item.group}, {"gold", item.gold}};
    json choices = json::array();
    for (const Choice& c : item.choices) {
      choices.push_back({item.contexts[c.context], c.continuation});
    }
    j["choices"] = std::move(choices);
    if (item.choices.empty()) {  // a generation task's
      j["prompt"] = item.contexts.at(0);
      j["target"] = item.target;
      j["program"] = {item.program_before, item.program_after};
    }
    h.Update(j.dump());
    h.Update("\n");
  }
  out->sha256 = h.Hex();
}

}  // namespace

std::vector<bool> StratifiedSample(const std::vector<std::pair<std::string, std::string>>& items,
                                   int n, int64_t seed) {
  std::vector<bool> out(items.size(), false);
  if (n <= 0) return out;
  if (size_t(n) >= items.size()) return std::vector<bool>(items.size(), true);
  std::vector<std::string> order;                      // groups, as first met
  std::map<std::string, std::vector<size_t>> members;  // group -> its items' positions
  for (size_t i = 0; i < items.size(); ++i) {
    auto [it, fresh] = members.try_emplace(items[i].second);
    if (fresh) order.push_back(items[i].second);
    it->second.push_back(i);
  }
  // Each group's share: the floor of its exact quota, then one more for the largest remainders.
  const double total = double(items.size());
  std::vector<size_t> share(order.size());
  std::vector<std::pair<double, size_t>> remainders;
  size_t given = 0;
  for (size_t g = 0; g < order.size(); ++g) {
    const double quota = double(n) * double(members[order[g]].size()) / total;
    share[g] = size_t(quota);
    given += share[g];
    remainders.emplace_back(quota - double(share[g]), g);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < size_t(n) && k < remainders.size(); ++k, ++given) {
    ++share[remainders[k].second];
  }
  for (size_t g = 0; g < order.size(); ++g) {
    std::vector<std::pair<std::string, size_t>> ranked;
    for (size_t i : members[order[g]]) {
      ranked.emplace_back(Sha256Hex(fmt::format("{}:{}:{}", seed, items[i].first, i)), i);
    }
    std::sort(ranked.begin(), ranked.end());
    for (size_t k = 0; k < share[g] && k < ranked.size(); ++k) out[ranked[k].second] = true;
  }
  return out;
}

Result<std::string> TaskDataDir(const TaskDef& def, const std::string& task_data_dir) {
  const fs::path data(def.data);
  std::error_code ec;
  if (data.is_absolute()) {
    if (fs::is_directory(data, ec)) return data.string();
  } else {
    const fs::path beside = fs::path(def.path).parent_path() / data;
    if (fs::is_directory(beside, ec)) return beside.lexically_normal().string();
    const fs::path under = fs::path(task_data_dir) / data;
    if (fs::is_directory(under, ec)) return under.lexically_normal().string();
  }
  return InputError(fmt::format(
      "task {}: its data folder '{}' is not in {}: scripts/setup.sh fetches the standard tasks' "
      "data (scripts/fetch-tasks.sh)",
      def.name, def.data, data.is_absolute() ? data.parent_path().string() : task_data_dir));
}

Result<TaskItems> LoadTaskItems(const TaskDef& def, const std::string& data_dir,
                                const Selection& selection) {
  TaskItems out;
  out.data_dir = data_dir;
  if (selection.rotate && (!def.rows || def.kind != Kind::kChoice)) {
    return InputError(fmt::format(
        "task {}: rotate: is for choice tasks made from rows (their choices re-lettered); {}",
        def.name,
        def.olmes ? "an OLMES request set comes with its prompts made"
                  : "this one has no choices"));
  }
  auto load = [&](const Pass& pass, TaskItems* into) -> Status {
    if (def.olmes) return LoadOlmes(def, data_dir, pass, into);
    RowItems rows(def, data_dir, selection.rotate);
    if (auto st = rows.Load(pass, into); !st) return st;
    for (auto& f : rows.shot_files_) into->files.push_back(std::move(f));
    return {};
  };
  std::vector<bool> chosen;
  if (selection.sample > 0) {
    // A sample: every item's id and group first (nothing made), then the chosen ones made.
    std::vector<std::pair<std::string, std::string>> keys;
    TaskItems listed;
    if (auto st = load(Pass{selection, nullptr, &keys}, &listed); !st) return st.error();
    chosen = StratifiedSample(keys, selection.sample, selection.seed);
  }
  if (auto st = load(Pass{selection, selection.sample > 0 ? &chosen : nullptr, nullptr}, &out);
      !st) {
    return st.error();
  }
  if (out.items.empty()) return InputError(fmt::format("task {}: no item to score", def.name));
  HashItems(&out);
  return out;
}

}  // namespace pipette::workload::task
