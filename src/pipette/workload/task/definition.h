// A task definition (docs/tasks.md): one YAML file that says which items a task reads, how each
// becomes a prompt and its choices, and how they are scored. Adding a task of an existing kind is
// one such file, no code. The shipped ones are in tasks/; a user's own is named by its path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"
#include "pipette/workload/task/answer.h"
#include "pipette/workload/task/template.h"

namespace pipette::workload::task {

// How one choice's log-likelihood is normalised before the choices are compared
// (docs/metrics.md "Task scoring").
enum class Normalisation {
  kSum,       // acc_sum: the summed log-probability of the continuation's tokens (lm-eval acc,
              // OLMES acc_raw)
  kPerToken,  // acc_per_token: per scored token
  kPerChar,   // acc_per_char: per Unicode character of the continuation, its leading space
              // included (OLMES acc_per_char; lm-eval's acc_norm leaves the space out)
  kPerByte,   // acc_per_byte: per UTF-8 byte of the continuation (OLMES acc_per_byte)
  kLlamaCpp,  // acc_llama: llama-perplexity's own rule (--multiple-choice, --hellaswag,
              // --winogrande)
};
// Every normalisation, in report order, and its metric name ("acc_sum").
const std::vector<Normalisation>& Normalisations();
std::string MetricName(Normalisation n);
std::optional<Normalisation> NormalisationNamed(std::string_view metric);

// The items of a task read from JSONL rows (one item a row) through the templates.
struct RowSource {
  // Files under the task's data folder; a `*` stands for one path segment's characters. Read in
  // sorted order, each file's rows in order.
  std::vector<std::string> files;
  // The item's choices: a field holding a list (`choices`, `choices.text`), or several fields,
  // one a choice (`[sol1, sol2]`).
  std::string choices_list;
  std::vector<std::string> choice_fields;
  // The gold choice: a field holding its 0-based index (a number or a numeric string), or with
  // `gold_base` 1 its 1-based one, or with `gold_labels` a label to find in that list field.
  std::string gold_field, gold_labels;
  int gold_base = 0;
  std::optional<Template> id, group;  // default id: "<file>:<line>"; default group: none
};

// Items from an OLMES request set (oe_eval's requests.jsonl.gz beside its config.json): each
// document's requests, in order, are its choices (context and continuation as OLMES rendered
// them), its `label` the gold; documents from the config's uncond_docid_offset on (the
// unconditioned requests of acc_uncond) are left out.
struct OlmesSource {
  std::string folder;  // under the task's data folder
};

// Examples put before each item: the first `n` rows of the files (a template of the item's
// fields, e.g. mmlu/{subject}/dev.jsonl), each as its prompt and its gold continuation, joined by
// `separator` and followed by it.
struct FewShot {
  Template files;
  int n = 0;
  std::string separator = "\n\n";
};

// How a task's items are scored (docs/tasks.md "Scoring").
enum class Kind {
  kChoice,    // the log-likelihood of each choice; the most likely is the pick
  kGenerate,  // greedy generation to a stop, an answer extracted and matched exactly
  kExecute,   // greedy generation to a stop, the program it completes run in the sandbox: pass@1
  kGreedy,    // one continuation: right when it is the model's greedy choice at every token
};

// Whether a kind generates text (a `chat` request per item) rather than scoring given text.
inline bool Generates(Kind k) { return k == Kind::kGenerate || k == Kind::kExecute; }

// A generation's settings (kGenerate and kExecute).
struct Generation {
  int max_tokens = 0;
  std::vector<std::string> stop;  // at most 16, each 1 to 256 bytes
  AnswerRule answer;              // kGenerate
  // kExecute: the program run is before + the completion + after, each rendered from the item.
  Template program_before, program_after;
  double timeout_s = 10;  // the program's wall-clock limit; its CPU limit is the same
};

// The metric of an executed task: the fraction of items whose one greedy program passes.
inline constexpr const char* kPassAt1 = "pass_at_1";
// The metric of a greedy task (LAMBADA): the fraction of items whose continuation is the model's
// greedy choice at every token (lm-evaluation-harness's acc of lambada, its is_greedy).
inline constexpr const char* kAccGreedy = "acc_greedy";
// A generation task's metric for an extractor: "exact_match_flexible".
std::string ExactMatchMetric(const std::string& extractor);

struct TaskDef {
  std::string name;    // the file's stem
  std::string path;    // the definition file
  std::string sha256;  // of its bytes
  std::string title, convention, compare_with, licence;
  std::string data;  // the data folder: under the task data folder, or relative to the file
  std::optional<RowSource> rows;
  std::optional<OlmesSource> olmes;
  std::optional<FewShot> fewshot;
  // With rows: the context before the few-shot examples, the prompt of an item (which may name
  // {choice}: each choice then has its own context, as in partial scoring) and the continuation
  // a choice is scored as ({choice}, {letter}, {index}).
  Template description, prompt, continuation;
  DefinedFilters filters;
  Kind kind = Kind::kChoice;
  Normalisation metric = Normalisation::kSum;  // kChoice: the task's headline accuracy
  // kGenerate, kExecute and kGreedy: the item's target ({doc.answer}; kGreedy: the continuation
  // scored, by default an OLMES request's; for rows, also each few-shot example's answer) and the
  // generation's settings.
  Template target;
  Generation gen;
  std::string headline;  // the metric `acc` stands for: "acc_sum", "exact_match_flexible", ...
  // Every metric the task gives besides `acc`.
  std::vector<std::string> Metrics() const;
};

// The definition in `text`; `path` names it in messages (file:line:column), its stem the task.
Result<TaskDef> ParseTaskDef(std::string_view text, const std::string& path);
// The file read and parsed.
Result<TaskDef> LoadTaskDef(const std::string& path);

}  // namespace pipette::workload::task
