#include "pipette/workload/task/task.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pipette/estimate/work.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/quality/ppl.h"
#include "pipette/sandbox/sandbox.h"
#include "pipette/util/command.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/gen/renderer.h"
#include "pipette/workload/task/answer.h"
#include "pipette/workload/task/derive.h"
#include "pipette/workload/task/judge.h"
#include "pipette/workload/task/spec.h"
#include "pipette/workload/timing.h"

namespace pipette::workload::task {
namespace {

using nlohmann::json;

size_t CommonPrefix(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

class Tasks : public Workload {
 public:
  std::string Name() const override { return "tasks"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    const TasksSpec* spec = TasksSpecOf(ex);
    if (!spec) return {};
    std::vector<std::string> ops = {protocol::op::kTokenize};
    auto any = [&](bool choice) {
      return std::any_of(spec->tasks.begin(), spec->tasks.end(),
                         [&](const TaskSpec& t) { return !Generates(t.kind) == choice; });
    };
    if (any(true)) ops.push_back(protocol::op::kScore);
    if (any(false)) ops.push_back(protocol::op::kChat);
    return {{"tasks", ops}};
  }

  // Tokens are known only once a model has tokenized the items, and a bound of one token a byte
  // would ask 12,717 tokens of MMLU 5-shot's longest item (about 3,000): the plan asks for
  // half the bytes of the longest item (natural text takes 3 to 5 bytes a token with the
  // bundled tokenizers). An item that still does not fit fails its cell, named (docs/tasks.md).
  int64_t ContextNeed(const config::Experiment& ex, int64_t) const override {
    const TasksSpec* spec = TasksSpecOf(ex);
    if (!spec) return 0;
    int64_t need = 0;
    for (const TaskSpec& t : spec->tasks) {
      need = std::max(need, t.max_bytes / 2 + 8 + t.max_new_tokens);
    }
    return need;
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t) const override {
    const TasksSpec* spec = TasksSpecOf(ex);
    if (!spec) return "";
    const TaskSpec* longest = nullptr;
    for (const TaskSpec& t : spec->tasks) {
      if (!longest || t.max_bytes > longest->max_bytes) longest = &t;
    }
    return longest ? fmt::format(
                         "item {} of task {}: {} bytes of context and choice, planned "
                         "at 2 bytes a token{}",
                         longest->max_item, longest->name, longest->max_bytes,
                         longest->max_new_tokens > 0
                             ? fmt::format(", and {} tokens to generate", longest->max_new_tokens)
                             : std::string())
                   : "";
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const TasksSpec* spec = TasksSpecOf(ex);
    if (!spec) return;
    double items = 0;
    for (const TaskSpec& t : spec->tasks) items += double(t.n_items);
    out->push_back({cell.Key(), "tasks", "tasks", items});
  }

  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    if (s.test.rfind("task:", 0) != 0) return std::nullopt;
    return ItemTimed(s.raw, "tasks");
  }

  metrics::Headlines Headlines() const override { return {TasksHeadline()}; }

  bool RowsCacheable(const std::vector<store::SampleRecord>&) const override { return true; }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById&, const store::EnvironmentRecord&,
                std::vector<metrics::ResultRow>* rows) const override {
    return DeriveTasks(base, cell.samples, rows);
  }

  void Finish() override { renderer_.Finish(); }

  // Resuming a run: the items each cut-short cell scored, by task, with the facts they were
  // scored under (its task_info), so that the cell measured again for it goes on from the last
  // stored item (docs/tasks.md "What is recorded").
  Result<json> ResumeState(store::Store& store, const config::Experiment& ex,
                           const ResumeInput& in) const override {
    const TasksSpec* spec = TasksSpecOf(ex);
    if (!spec || in.cut_short.empty()) return json();
    std::vector<std::string> tests = {kInfoTest};
    for (const TaskSpec& t : spec->tasks) tests.push_back(ItemTest(t.name));
    auto samples = store.SamplesOfRun(in.run_id, tests);
    if (!samples) return samples.error();
    std::map<int64_t, int> index_of;  // cut-short cell id -> its cell index
    for (const auto& [index, id] : in.cut_short) index_of[id] = index;
    json cells = json::object();
    for (store::SampleRecord& s : *samples) {
      auto at = index_of.find(s.cell_id);
      // A sample that does not read as one this workload stored is not taken up (its item is
      // scored again).
      if (at == index_of.end() || s.warmup || !s.raw.is_object()) continue;
      json& cell = cells[std::to_string(at->second)];
      cell["cell_id"] = s.cell_id;
      if (s.test == kInfoTest) {
        const auto task = s.raw.find("task");
        if (task != s.raw.end() && task->is_string() &&
            !task->get_ref<const std::string&>().empty()) {
          // The name first: json's assignment takes its value by copy, made (here: moved out of
          // raw) before the left side is looked up.
          const std::string name = task->get<std::string>();
          cell["tasks"][name]["info"] = std::move(s.raw);
        }
        continue;
      }
      const auto id = s.raw.find("id");
      if (id == s.raw.end() || !id->is_string()) continue;
      json& items = cell["tasks"][s.test.substr(5)]["items"];
      if (s.rep == int(items.size())) items.push_back(std::move(s.raw));
    }
    return cells.empty() ? json() : json{{"cells", std::move(cells)}};
  }

  void Resume(const json& state) override { resumed_ = state.value("cells", json::object()); }

  RunStatus Run(Context& ctx, size_t) override {
    const TasksSpec& spec = *TasksSpecOf(ctx.Experiment());
    for (size_t t = 0; t < spec.tasks.size(); ++t) {
      if (auto st = RunTask(ctx, spec.tasks[t], int(t)); !st) return st;
    }
    return {};
  }

 private:
  // The task's items, made once per run; a task changed since the experiment was resolved is
  // refused (its items' hash is the run's record of what it scored).
  Result<const TaskItems*, RunError> ItemsOf(const TaskSpec& t) {
    auto it = items_.find(t.name);
    if (it != items_.end()) return &it->second;
    auto def = LoadTaskDef(t.definition);
    if (!def) return Failed(def.error().message);
    auto items = LoadTaskItems(*def, t.data_dir, t.selection);
    if (!items) return Failed(items.error().message);
    if (items->sha256 != t.items_sha256 || def->sha256 != t.definition_sha256) {
      return Failed(
          fmt::format("task {} changed since the experiment was read (its items' "
                      "SHA-256 is {} now, {} then)",
                      t.name, items->sha256, t.items_sha256));
    }
    metrics_[t.name] = def->headline;
    defs_.emplace(t.name, std::move(*def));
    return &items_.emplace(t.name, std::move(*items)).first->second;
  }

  RunStatus RunTask(Context& ctx, const TaskSpec& t, int index) {
    auto items = ItemsOf(t);
    if (!items) return items.error();
    const std::vector<Item>& all = (*items)->items;
    json info = {{"task", t.name},
                 {"definition", t.definition},
                 {"definition_sha256", t.definition_sha256},
                 {"data", t.data_dir},
                 {"items_sha256", t.items_sha256},
                 {"metric", metrics_[t.name]},
                 {"metrics", defs_.at(t.name).Metrics()},
                 {"n_items", all.size()},
                 {"n_available", t.n_available},
                 {"limit", t.selection.limit},
                 {"per_group", t.selection.per_group},
                 {"rotate", t.selection.rotate}};
    if (t.selection.sample > 0) {
      info["sample"] = t.selection.sample;
      info["seed"] = t.selection.seed;
    }
    json files = json::array();
    for (const auto& [file, sha] : (*items)->files)
      files.push_back({{"file", file}, {"sha256", sha}});
    info["files"] = std::move(files);
    const TaskDef& def = defs_.at(t.name);
    if (Generates(def.kind)) {
      info["max_tokens"] = def.gen.max_tokens;
      info["stop"] = def.gen.stop;
    }
    if (def.kind == Kind::kExecute) {
      auto sandbox = SandboxFor(def);
      if (!sandbox) return sandbox.error();
      info["sandbox"] = {{"argv", (*sandbox)->Argv()}, {"timeout_s", def.gen.timeout_s}};
    }
    chat_ = t.chat;
    info["prompt_format"] = t.chat ? "chat_template" : "raw";
    if (t.chat) {
      // The template is the model's; recorded from the first item's rendering.
      auto first = AsChat(ctx, all.front());
      if (!first) return first.error();
      info["chat_template"] = {{"origin", template_origin_}, {"sha256", Sha256Hex(template_text_)}};
    }
    // What a cut-short cell of a resumed run stored for this task, when it was scored exactly
    // so: its items are kept in order as long as they are these items.
    const json* prior = Prior(ctx, t, info);
    size_t reused = 0;
    if (prior) {
      const json& stored = prior->at("items");
      while (reused < stored.size() && reused < all.size() && stored[reused].is_object() &&
             stored[reused].contains("id") && stored[reused]["id"] == all[reused].id) {
        ++reused;
      }
      info["resumed"] = {{"cell_id", resumed_[std::to_string(ctx.Cell().index)]["cell_id"]},
                         {"items", reused}};
    }
    if (auto st = ctx.Keep(kInfoTest, index, false, info); !st) return st;
    for (size_t i = 0; i < reused; ++i) {
      if (auto st = ctx.Keep(ItemTest(t.name), int(i), false, prior->at("items")[i]); !st) {
        return st;
      }
    }
    if (reused > 0) {
      ctx.Step(fmt::format("task {}: {} of {} items taken from the cut-short cell", t.name, reused,
                           all.size()));
    }
    for (size_t i = reused; i < all.size(); ++i) {
      if (ctx.Stopped()) return Failed("interrupted");
      Item chat_item;
      if (t.chat) {
        auto made = AsChat(ctx, all[i]);
        if (!made) return made.error();
        chat_item = std::move(*made);
      }
      const Item& item = t.chat ? chat_item : all[i];
      auto raw = def.kind == Kind::kChoice   ? ScoreItem(ctx, item, t.name)
                 : def.kind == Kind::kGreedy ? GreedyItem(ctx, item, def)
                                             : GenerateItem(ctx, item, def);
      if (!raw) return raw.error();
      if (auto st = ctx.Keep(ItemTest(t.name), int(i), false, std::move(*raw)); !st) return st;
      ctx.Step(fmt::format("task {} item {}/{}", t.name, i + 1, all.size()));
    }
    return {};
  }

  // The task's items a cut-short cell stored, when that cell scored the same items the same way
  // (its task_info's definition, items, prompt format and settings equal this run's); else null.
  const json* Prior(Context& ctx, const TaskSpec& t, const json& info) const {
    const std::string cell = std::to_string(ctx.Cell().index);
    if (!resumed_.contains(cell) || !resumed_[cell].contains("tasks")) return nullptr;
    const json& tasks = resumed_[cell]["tasks"];
    if (!tasks.contains(t.name)) return nullptr;
    const json& prior = tasks[t.name];
    if (!prior.is_object() || !prior.contains("info") || !prior.contains("items") ||
        !prior["info"].is_object() || !prior["items"].is_array()) {
      return nullptr;
    }
    const json& then = prior["info"];
    for (const char* key : {"definition_sha256", "items_sha256", "metric", "n_items",
                            "prompt_format", "max_tokens", "stop", "chat_template"}) {
      if (then.value(key, json()) != info.value(key, json())) return nullptr;
    }
    return &prior;
  }

  // The item with each of its contexts given through the model's chat template, as one user
  // message with the assistant's turn opened after it (lm-evaluation-harness's
  // --apply_chat_template, examples and all in the one message); what is scored or generated
  // follows it. Rendered by llama.cpp's engine (workload/gen/renderer.h), as llama-server would.
  Result<Item, RunError> AsChat(Context& ctx, const Item& item) {
    Item out = item;
    for (std::string& c : out.contexts) {
      auto r = renderer_.Render(ctx, {{"user", c}}, json::object());
      if (!r) return r.error();
      c = r->prompt;
      template_origin_ = r->template_origin;
      template_text_ = r->template_text;
    }
    return out;
  }

  // Tokens of text as the task's prompts are made: a chat-templated prompt has its special
  // tokens parsed (as `chat` tokenizes a rendered prompt), a raw one does not.
  Result<std::vector<int64_t>, RunError> Tok(Context& ctx, const std::string& text) {
    return Tokenize(ctx, text, /*add_special=*/true, nullptr, /*parse_special=*/chat_);
  }

  Result<json, RunError> ScoreItem(Context& ctx, const Item& item, const std::string& task) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<int64_t>> contexts, full;
    for (const std::string& c : item.contexts) {
      auto tokens = Tok(ctx, c);
      if (!tokens) return tokens.error();
      contexts.push_back(std::move(*tokens));
    }
    for (size_t k = 0; k < item.choices.size(); ++k) {
      auto tokens = Tok(ctx, item.ContextOf(k) + item.choices[k].continuation);
      if (!tokens) return tokens.error();
      full.push_back(std::move(*tokens));
    }
    size_t shared = full[0].size();
    for (const auto& f : full) shared = std::min(shared, CommonPrefix(full[0], f));
    json choices = json::array();
    int64_t t_start_ns = 0, t_end_ns = 0;
    for (size_t k = 0; k < item.choices.size(); ++k) {
      const std::vector<int64_t>& tokens = full[k];
      const std::vector<int64_t>& context = contexts[item.choices[k].context];
      const size_t split = CommonPrefix(context, tokens);
      if (split == 0 || split >= tokens.size()) {
        return Failed(
            fmt::format("task {}: item {} ({}:{}): cannot separate choice {} from its "
                        "context in the model's tokens",
                        task, item.id, item.file, item.line, k));
      }
      const size_t from =
          std::clamp<size_t>(std::min({split, shared, context.size()}), 1, tokens.size() - 1);
      protocol::ScoreRequest req;
      req.tokens.assign(tokens.begin(), tokens.end());
      req.from = static_cast<int64_t>(from - 1);
      req.n_batch = ctx.NBatch();
      auto resp = ctx.Call(req.ToJson());
      if (!resp) {
        RunError e = resp.error();
        e.message = fmt::format("task {}: item {} ({}:{}), choice {} ({} tokens): {}", task,
                                item.id, item.file, item.line, k, tokens.size(), e.message);
        return e;
      }
      auto scored = protocol::ScoreResponse::FromJson(*resp);
      if (!scored) return Broken(scored.error().message);
      if (k == 0) t_start_ns = scored->t_start_ns;
      t_end_ns = scored->t_end_ns;
      const std::string& cont = item.choices[k].continuation;
      choices.push_back(json{{"from", from},
                             {"split", split},
                             {"n_context", context.size()},
                             {"n_tokens", tokens.size()},
                             {"bytes", cont.size()},
                             {"chars", quality::CountCodePoints(cont)},
                             {"logprob", scored->logprob}});
    }
    json raw = {{"id", item.id},
                {"group", item.group},
                {"gold", item.gold},
                {"shared", shared},
                {"one_context", item.contexts.size() == 1},
                {"t_start_ns", t_start_ns},
                {"t_end_ns", t_end_ns},
                {"choices", std::move(choices)}};
    if (!item.base_id.empty()) {  // a rotated task's (docs/tasks.md "Choice rotation")
      raw["base"] = item.base_id;
      raw["rotation"] = item.rotation;
    }
    // llama-perplexity's --winogrande, scoring after the shared tokens (a choice with 3 or fewer
    // tokens past them), takes the second option's first token's log-probability from the
    // logits after the whole first sequence (score.h): measured too, so acc_llama is its rule.
    bool skip_choice = true;
    for (const auto& f : full) skip_choice = skip_choice && f.size() - shared > 3;
    if (item.contexts.size() == 2 && item.choices.size() == 2 && !skip_choice &&
        full[1].size() > shared) {
      protocol::ScoreRequest req;
      req.tokens.assign(full[0].begin(), full[0].end());
      req.tokens.push_back(static_cast<int32_t>(full[1][shared]));
      req.from = static_cast<int64_t>(full[0].size() - 1);
      req.n_batch = ctx.NBatch();
      auto resp = ctx.Call(req.ToJson());
      if (!resp) return resp.error();
      auto scored = protocol::ScoreResponse::FromJson(*resp);
      if (!scored) return Broken(scored.error().message);
      if (scored->logprob.size() != 1) return Broken("a score of one position gave another count");
      raw["llama_second_first"] = scored->logprob[0];
      raw["t_end_ns"] = scored->t_end_ns;
    }
    ctx.Done("tasks", 1, SecondsSince(t0));
    return raw;
  }

  // A greedy item (LAMBADA): its prompt and target scored as one text, the target's tokens
  // counted from the prompt's token count (as lm-eval and OLMES split them); right when each of
  // them is the most likely token where it stands (lm-eval's is_greedy). Its log-likelihood is
  // stored too.
  Result<json, RunError> GreedyItem(Context& ctx, const Item& item, const TaskDef& def) {
    const auto t0 = std::chrono::steady_clock::now();
    auto context = Tok(ctx, item.contexts.at(0));
    if (!context) return context.error();
    auto tokens = Tok(ctx, item.contexts[0] + item.target);
    if (!tokens) return tokens.error();
    if (context->empty() || context->size() >= tokens->size()) {
      return Failed(
          fmt::format("task {}: item {} ({}:{}): its continuation adds no token to the "
                      "context's",
                      def.name, item.id, item.file, item.line));
    }
    protocol::ScoreRequest req;
    req.tokens.assign(tokens->begin(), tokens->end());
    req.from = static_cast<int64_t>(context->size() - 1);
    req.n_batch = ctx.NBatch();
    auto resp = ctx.Call(req.ToJson());
    if (!resp) {
      RunError e = resp.error();
      e.message = fmt::format("task {}: item {} ({}:{}), {} tokens: {}", def.name, item.id,
                              item.file, item.line, tokens->size(), e.message);
      return e;
    }
    auto scored = protocol::ScoreResponse::FromJson(*resp);
    if (!scored) return Broken(scored.error().message);
    if (scored->argmax.size() != tokens->size() - context->size()) {
      return Broken("a score gave another count of positions than asked");
    }
    bool greedy = true;
    double logprob = 0;
    for (size_t p = 0; p < scored->logprob.size(); ++p) {
      greedy = greedy && scored->argmax.at(p) == (*tokens)[context->size() + p];
      logprob += scored->logprob[p];
    }
    ctx.Done("tasks", 1, SecondsSince(t0));
    return json{{"id", item.id},
                {"group", item.group},
                {"n_context", context->size()},
                {"n_tokens", tokens->size()},
                {"logprob", logprob},
                {"target", item.target},
                {"t_start_ns", scored->t_start_ns},
                {"t_end_ns", scored->t_end_ns},
                {"ok", {{kAccGreedy, greedy}}}};
  }

  // The sandbox an executed task's programs run in, checked once (a sandbox that cannot run
  // here fails the cell: no item is scored a failure for the sandbox's sake).
  Result<sandbox::Sandbox*, RunError> SandboxFor(const TaskDef& def) {
    // One a timeout: each task's programs run under its own limits.
    auto it = sandboxes_.find(def.gen.timeout_s);
    if (it != sandboxes_.end()) return it->second.get();
    auto tools = sandbox::FindTools();
    if (!tools) return Failed(tools.error().message);
    sandbox::Limits limits;
    limits.wall_s = def.gen.timeout_s;
    limits.cpu_s = int(def.gen.timeout_s + 0.999);
    auto made = std::make_unique<sandbox::Sandbox>(runner_, *tools, limits);
    if (auto st = made->Check(); !st) return Failed(st.error().message);
    return (sandboxes_[def.gen.timeout_s] = std::move(made)).get();
  }

  // A generation item: greedy generation from its prompt to a stop sequence or the cap, the
  // completion cut at the first stop; then its answers matched (kGenerate) or its program run
  // in the sandbox (kExecute). The verdicts are stored with the completion.
  Result<json, RunError> GenerateItem(Context& ctx, const Item& item, const TaskDef& def) {
    const auto t0 = std::chrono::steady_clock::now();
    auto tokens = Tok(ctx, item.contexts.at(0));
    if (!tokens) return tokens.error();
    protocol::ChatRequest req;
    req.prompt_tokens = TokenIds(tokens->begin(), tokens->end());
    req.max_tokens = def.gen.max_tokens;
    req.stop = def.gen.stop;
    req.n_batch = ctx.NBatch();
    auto resp = ctx.Call(req.ToJson());
    if (!resp) {
      RunError e = resp.error();
      e.message = fmt::format("task {}: item {} ({}:{}), {} prompt tokens: {}", def.name, item.id,
                              item.file, item.line, tokens->size(), e.message);
      return e;
    }
    auto chat = protocol::ChatResponse::FromJson(*resp);
    if (!chat) return Broken(chat.error().message);
    const std::string completion = CutAtStop(chat->text, def.gen.stop);
    json raw = {{"id", item.id},
                {"group", item.group},
                {"n_prompt", tokens->size()},
                {"n_generated", chat->tokens.size()},
                {"stop", chat->stop},
                {"completion", completion},
                {"t_start_ns", chat->t_start_ns},
                {"t_end_ns", chat->t_end_ns}};
    sandbox::Sandbox* box = nullptr;
    if (def.kind == Kind::kExecute) {
      auto made = SandboxFor(def);
      if (!made) return made.error();
      box = *made;
    }
    auto verdicts = Judge(def, item, completion, box);
    if (!verdicts) return Failed(verdicts.error().message);
    raw.update(*verdicts);
    ctx.Done("tasks", 1, SecondsSince(t0));
    return raw;
  }

  std::map<std::string, TaskItems> items_;       // by task name: made once per run
  std::map<std::string, std::string> metrics_;   // by task name: its headline metric
  std::map<std::string, TaskDef> defs_;          // by task name
  ProcessCommandRunner runner_;                  // the sandbox's commands
  ChatRenderer renderer_;                        // chat-templated prompts (a task's chat: true)
  bool chat_ = false;                            // the task being run is chat-templated
  std::string template_origin_, template_text_;  // the last rendering's
  json resumed_ = json::object();                // ResumeState's cells: index -> {cell_id, tasks}
  // By timeout: made at the first executed task that has it.
  std::map<double, std::unique_ptr<sandbox::Sandbox>> sandboxes_;
};

}  // namespace

std::unique_ptr<Workload> NewTasks() { return std::make_unique<Tasks>(); }

}  // namespace pipette::workload::task
