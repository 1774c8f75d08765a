#include "pipette/workload/task/definition.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "pipette/config/yaml_helpers.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/utf8.h"

namespace pipette::workload::task {
namespace {

namespace fs = std::filesystem;
using config::Where;
using config::YamlMapping;

// A template field of `m`, parsed, its problem placed at the field.
Result<Template> TemplateField(const YamlMapping& m, const std::string& key,
                               const std::string& text, const DefinedFilters& filters) {
  auto t = Template::Parse(text, filters);
  if (!t) return m.At(key, fmt::format("field '{}': {}", key, t.error().message));
  return t;
}

Result<DefinedFilters> ParseFilters(const Where& w, const YAML::Node& node) {
  DefinedFilters out;
  auto m = YamlMapping::Read(w, node, "filters",
                             "filters: takes a mapping of filter names to lists of steps");
  if (!m) return m.error();
  for (const std::string& name : m->keys()) {
    const auto& builtin = TemplateFilters();
    if (std::find(builtin.begin(), builtin.end(), name) != builtin.end()) {
      return m->AtKey(name, fmt::format("filter '{}' is built in; name yours otherwise", name));
    }
    const YAML::Node steps = m->Node(name);
    if (!steps.IsSequence() || steps.size() == 0) {
      return m->At(name, fmt::format("filter '{}' takes a list of steps (strip, {{replace: x, "
                                     "with: y}}, {{regex: x, with: y}})",
                                     name));
    }
    std::vector<Rewrite>& rewrites = out[name];
    for (size_t i = 0; i < steps.size(); ++i) {
      const std::string step = fmt::format("filters.{}[{}]", name, i);
      if (steps[i].IsScalar()) {
        if (steps[i].Scalar() != "strip") {
          return w.At(steps[i], fmt::format("{}: a step is strip, {{replace: x, with: y}} or "
                                            "{{regex: x, with: y}}",
                                            step));
        }
        rewrites.push_back({.strip = true});
        continue;
      }
      auto s = YamlMapping::Read(w, steps[i], step,
                                 step +
                                     ": a step is strip, {replace: x, with: y} or "
                                     "{regex: x, with: y}");
      if (!s) return s.error();
      const bool regex = s->Has("regex");
      if (auto st = s->OnlyKeys({regex ? "regex" : "replace", "with"}, " in " + step); !st) {
        return st.error();
      }
      Rewrite r;
      r.regex = regex;
      r.find = s->fields().String(regex ? "regex" : "replace");
      r.with = s->fields().String("with");
      if (auto st = s->status(); !st) return st.error();
      if (r.find.empty()) return s->Here(step + ": nothing to find");
      if (regex) {
        try {
          std::regex check(r.find, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          return s->At("regex", fmt::format("{}: not a regular expression: {}", step, e.what()));
        }
      }
      rewrites.push_back(std::move(r));
    }
  }
  return out;
}

Status ParseRows(const Where& w, const YAML::Node& node, const DefinedFilters& filters,
                 TaskDef* def) {
  auto m = YamlMapping::Read(w, node, "items", "items: takes a mapping");
  if (!m) return m.error();
  if (m->Has("olmes")) {
    if (auto st = m->OnlyKeys({"olmes"}, " in items (an OLMES request set)"); !st) return st;
    def->olmes = OlmesSource{m->fields().Text("olmes")};
    return m->status();
  }
  if (auto st = m->OnlyKeys({"files", "choices", "gold", "id", "group"}, " in items"); !st) {
    return st;
  }
  RowSource rows;
  FieldReader& f = m->fields();
  rows.files = f.Strings("files");
  if (f.ok() && rows.files.empty()) f.FailAt("files", "field 'items.files' names no file");
  const bool choices = def->kind == Kind::kChoice;
  if (!choices) {
    for (const char* key : {"choices", "gold"}) {
      if (m->Has(key)) {
        return m->AtKey(key, fmt::format("'items.{}' is for choice tasks: a generation task's "
                                         "answer is its 'target:'",
                                         key));
      }
    }
  } else if (m->Has("choices") && m->json().at("choices").is_array()) {
    rows.choice_fields = f.Strings("choices");
    if (f.ok() && rows.choice_fields.size() < 2) {
      f.FailAt("choices", "field 'items.choices' must name at least 2 fields");
    }
  } else {
    rows.choices_list = f.Text("choices");
  }
  if (!choices) {
  } else if (m->Has("gold") && m->json().at("gold").is_object()) {
    auto g = YamlMapping::Read(w, m->Node("gold"), "items.gold", "");
    if (!g) return g.error();
    if (auto st = g->OnlyKeys({"field", "labels", "base"}, " in items.gold"); !st) return st;
    rows.gold_field = g->fields().Text("field");
    rows.gold_labels = g->fields().String("labels", "");
    rows.gold_base = int(g->fields().Int("base", 0, 1, 0));
    if (auto st = g->status(); !st) return st;
  } else {
    rows.gold_field = f.Text("gold");
  }
  if (auto st = m->status(); !st) return st;
  for (const char* key : {"id", "group"}) {
    if (!m->Has(key)) continue;
    auto t = TemplateField(*m, key, f.Text(key), filters);
    if (!t) return t.error();
    (std::string(key) == "id" ? rows.id : rows.group) = std::move(*t);
  }
  if (auto st = m->status(); !st) return st;
  def->rows = std::move(rows);
  return {};
}

// A list of regular expressions (scoring.ignore) or one (an extractor's), compiled.
Result<Pattern> PatternAt(const YamlMapping& m, const char* key, const std::string& text,
                          const std::string& what) {
  auto p = Pattern::Compile(text);
  if (!p) return m.At(key, fmt::format("{}: {}", what, p.error().message));
  return p;
}

Status ParseScoring(const Where& w, const YamlMapping& top, TaskDef* def) {
  if (!top.Has("scoring")) return top.Here("missing required field 'scoring'");
  auto s = YamlMapping::Read(w, top.Node("scoring"), "scoring", "scoring: takes a mapping");
  if (!s) return s.error();
  FieldReader& f = s->fields();
  const std::string kind = f.Text("kind");
  if (auto st = s->status(); !st) return st;
  if (kind == "choice") {
    if (auto st = s->OnlyKeys({"kind", "metric"}, " in scoring (a choice task)"); !st) return st;
    const std::string metric = f.Text("metric");
    if (auto st = s->status(); !st) return st;
    auto n = NormalisationNamed(metric);
    if (!n) {
      std::vector<std::string> names;
      for (Normalisation each : Normalisations()) names.push_back(MetricName(each));
      return s->At("metric", fmt::format("field 'scoring.metric' is '{}'; it is one of {}", metric,
                                         fmt::join(names, ", ")));
    }
    def->kind = Kind::kChoice;
    def->metric = *n;
    def->headline = MetricName(*n);
    return {};
  }
  if (kind == "greedy") {
    if (auto st = s->OnlyKeys({"kind", "metric"}, " in scoring (a greedy task)"); !st) return st;
    const std::string metric = f.Text("metric");
    if (auto st = s->status(); !st) return st;
    if (metric != kAccGreedy) {
      return s->At("metric", fmt::format("field 'scoring.metric' is '{}'; a greedy task's is {}",
                                         metric, kAccGreedy));
    }
    def->kind = Kind::kGreedy;
    def->headline = kAccGreedy;
    return {};
  }
  if (kind != "generate" && kind != "execute") {
    return s->At("kind", fmt::format("field 'scoring.kind' is '{}'; the kinds are: choice "
                                     "(log-likelihood of each choice), greedy (a continuation "
                                     "that is the greedy choice), generate (an answer "
                                     "extracted and matched), execute (a program run: pass@1)",
                                     kind));
  }
  const bool generate = kind == "generate";
  def->kind = generate ? Kind::kGenerate : Kind::kExecute;
  if (auto st = generate
                    ? s->OnlyKeys({"kind", "metric", "max_tokens", "stop", "extract", "ignore",
                                   "ignore_case"},
                                  " in scoring (a generation task)")
                    : s->OnlyKeys({"kind", "metric", "max_tokens", "stop", "program", "timeout"},
                                  " in scoring (an executed task)");
      !st) {
    return st;
  }
  Generation& g = def->gen;
  g.max_tokens = int(f.Int("max_tokens", 1, 4096));
  if (s->Has("stop")) g.stop = f.Strings("stop");
  const std::string metric = f.Text("metric");
  if (auto st = s->status(); !st) return st;
  if (g.stop.size() > 16) return s->At("stop", "field 'scoring.stop' holds more than 16 sequences");
  for (const std::string& stop : g.stop) {
    if (stop.empty() || stop.size() > 256) {
      return s->At("stop", "field 'scoring.stop': each sequence is 1 to 256 bytes");
    }
  }
  if (!generate) {
    if (s->Has("timeout")) g.timeout_s = f.Number("timeout", 1, 60, "s");
    if (auto st = s->status(); !st) return st;
    if (!s->Has("program")) return s->Here("missing required field 'scoring.program'");
    auto p = YamlMapping::Read(w, s->Node("program"), "scoring.program",
                               "scoring.program: takes a mapping (before:, after:)");
    if (!p) return p.error();
    if (auto st = p->OnlyKeys({"before", "after"}, " in scoring.program"); !st) return st;
    for (const char* key : {"before", "after"}) {
      auto t = TemplateField(*p, key, p->fields().String(key, ""), def->filters);
      if (!t) return t.error();
      (std::string(key) == "before" ? g.program_before : g.program_after) = std::move(*t);
    }
    if (metric != kPassAt1) {
      return s->At("metric", fmt::format("field 'scoring.metric' is '{}'; an executed task's is {}",
                                         metric, kPassAt1));
    }
    def->headline = kPassAt1;
    return {};
  }
  if (!s->Has("extract")) return s->Here("missing required field 'scoring.extract'");
  auto e = YamlMapping::Read(w, s->Node("extract"), "scoring.extract",
                             "scoring.extract: takes a mapping of extractors (strict:, flexible:)");
  if (!e) return e.error();
  if (auto st = e->OnlyKeys(ExtractorNames(), " in scoring.extract"); !st) return st;
  for (const std::string& name : ExtractorNames()) {
    if (!e->Has(name)) continue;
    const std::string where = "scoring.extract." + name;
    auto x = YamlMapping::Read(w, e->Node(name), where,
                               where + ": takes a mapping (regex:, select: first|last)");
    if (!x) return x.error();
    if (auto st = x->OnlyKeys({"regex", "select"}, " in " + where); !st) return st;
    const std::string regex = x->fields().Text("regex");
    const std::string select = x->fields().String("select", "first");
    if (auto st = x->status(); !st) return st;
    if (select != "first" && select != "last") {
      return x->At("select",
                   fmt::format("field '{}.select' is '{}'; it is first or last", where, select));
    }
    auto pattern = PatternAt(*x, "regex", regex, where + ".regex");
    if (!pattern) return pattern.error();
    g.answer.extract.push_back({name, std::move(*pattern), select == "last"});
  }
  if (g.answer.extract.empty()) return s->At("extract", "scoring.extract names no extractor");
  if (s->Has("ignore")) {
    const std::vector<std::string> ignore = f.Strings("ignore");
    if (auto st = s->status(); !st) return st;
    for (size_t i = 0; i < ignore.size(); ++i) {
      auto pattern = PatternAt(*s, "ignore", ignore[i], fmt::format("scoring.ignore[{}]", i));
      if (!pattern) return pattern.error();
      g.answer.ignore.push_back(std::move(*pattern));
    }
  }
  g.answer.ignore_case = f.Bool("ignore_case", false);
  if (auto st = s->status(); !st) return st;
  std::vector<std::string> metrics;
  for (const Extractor& x : g.answer.extract) metrics.push_back(ExactMatchMetric(x.name));
  if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) {
    return s->At("metric", fmt::format("field 'scoring.metric' is '{}'; this task's are {}", metric,
                                       fmt::join(metrics, ", ")));
  }
  def->headline = metric;
  return {};
}
}  // namespace

const std::vector<Normalisation>& Normalisations() {
  static const std::vector<Normalisation> kAll = {Normalisation::kSum, Normalisation::kPerToken,
                                                  Normalisation::kPerChar, Normalisation::kPerByte,
                                                  Normalisation::kLlamaCpp};
  return kAll;
}

std::string MetricName(Normalisation n) {
  switch (n) {
    case Normalisation::kSum:
      return "acc_sum";
    case Normalisation::kPerToken:
      return "acc_per_token";
    case Normalisation::kPerChar:
      return "acc_per_char";
    case Normalisation::kPerByte:
      return "acc_per_byte";
    case Normalisation::kLlamaCpp:
      return "acc_llama";
  }
  return "";
}

std::string ExactMatchMetric(const std::string& extractor) { return "exact_match_" + extractor; }

std::vector<std::string> TaskDef::Metrics() const {
  std::vector<std::string> out;
  switch (kind) {
    case Kind::kChoice:
      for (Normalisation n : Normalisations()) out.push_back(MetricName(n));
      break;
    case Kind::kGenerate:
      for (const Extractor& x : gen.answer.extract) out.push_back(ExactMatchMetric(x.name));
      break;
    case Kind::kExecute:
      out.push_back(kPassAt1);
      break;
    case Kind::kGreedy:
      out.push_back(kAccGreedy);
      break;
  }
  return out;
}

std::optional<Normalisation> NormalisationNamed(std::string_view metric) {
  for (Normalisation n : Normalisations()) {
    if (MetricName(n) == metric) return n;
  }
  return std::nullopt;
}

Result<TaskDef> ParseTaskDef(std::string_view text, const std::string& path) {
  const Where w(path);
  if (auto bad = FirstInvalidUtf8(text)) {
    return NotUtf8Error(path, text, *bad);
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    return w.At(config::PlaceAt(e.mark.line, e.mark.column), "not YAML: " + e.msg);
  }
  if (auto st = config::CheckTree(w, root); !st) return st.error();
  auto m = YamlMapping::Read(w, root, "", "a task definition is a mapping (title:, items:, ...)");
  if (!m) return m.error();
  if (auto st =
          m->OnlyKeys({"title", "convention", "compare_with", "licence", "data", "items", "fewshot",
                       "description", "prompt", "continuation", "target", "filters", "scoring"},
                      "");
      !st) {
    return st.error();
  }
  TaskDef def;
  def.path = path;
  def.name = fs::path(path).stem().string();
  def.sha256 = Sha256Hex(std::string(text));
  FieldReader& f = m->fields();
  def.title = f.Text("title");
  def.convention = f.Text("convention");
  def.compare_with = f.String("compare_with", "");
  def.licence = f.Text("licence");
  def.data = f.Text("data");
  if (auto st = m->status(); !st) return st.error();
  if (m->Has("filters")) {
    auto filters = ParseFilters(w, m->Node("filters"));
    if (!filters) return filters.error();
    def.filters = std::move(*filters);
  }
  if (auto st = ParseScoring(w, *m, &def); !st) return st.error();
  if (!m->Has("items")) return m->Here("missing required field 'items'");
  if (auto st = ParseRows(w, m->Node("items"), def.filters, &def); !st) return st.error();
  const bool choices = def.kind == Kind::kChoice;
  if (def.rows) {
    for (const char* key : {"prompt", choices ? "continuation" : "target"}) {
      if (!m->Has(key)) {
        return m->Here(
            fmt::format("missing required field '{}' (items read from rows are made "
                        "into prompts by templates)",
                        key));
      }
    }
  } else {
    // An OLMES set comes with its prompts; a generation task may give its own over the request's
    // fields ({doc.prompt}), and takes its target from them.
    for (const char* key : {"fewshot", "description", "continuation"}) {
      if (m->Has(key)) {
        return m->AtKey(key, fmt::format("'{}' is for items read from rows: an OLMES request set "
                                         "comes with its prompts",
                                         key));
      }
    }
    if (choices && m->Has("prompt")) {
      return m->AtKey("prompt",
                      "'prompt' is for items read from rows or generation tasks: an OLMES "
                      "request set of choices comes with its prompts");
    }
    if (def.kind == Kind::kGenerate && !m->Has("target")) {
      return m->Here("missing required field 'target' (the answer, e.g. \"{doc.answer}\")");
    }
  }
  if (choices && m->Has("target")) {
    return m->AtKey("target",
                    "'target' is for generation tasks: a choice task's answer is its gold");
  }
  if (!choices && m->Has("continuation")) {
    return m->AtKey("continuation", "'continuation' is for choice tasks");
  }
  for (const char* key : {"description", "prompt", "continuation", "target"}) {
    if (!m->Has(key)) continue;
    auto t = TemplateField(*m, key, f.String(key), def.filters);
    if (!t) return t.error();
    const std::string k = key;
    (k == "description" ? def.description
     : k == "prompt"    ? def.prompt
     : k == "target"    ? def.target
                        : def.continuation) = std::move(*t);
  }
  if (m->Has("fewshot")) {
    auto s = YamlMapping::Read(w, m->Node("fewshot"), "fewshot", "fewshot: takes a mapping");
    if (!s) return s.error();
    if (auto st = s->OnlyKeys({"files", "n", "separator"}, " in fewshot"); !st) return st.error();
    FewShot shots;
    auto files = TemplateField(*s, "files", s->fields().Text("files"), def.filters);
    if (!files) return files.error();
    shots.files = std::move(*files);
    shots.n = int(s->fields().Int("n", 1, 64));
    shots.separator = s->fields().String("separator", shots.separator);
    if (auto st = s->status(); !st) return st.error();
    def.fewshot = std::move(shots);
  }
  return def;
}

Result<TaskDef> LoadTaskDef(const std::string& path) {
  auto text = ReadFileToString(path);
  if (!text) {
    Error e = text.error();
    e.exit_code = 2;
    return e;
  }
  return ParseTaskDef(*text, path);
}

}  // namespace pipette::workload::task
