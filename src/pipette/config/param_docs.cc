#include "pipette/config/param_docs.h"

#include <fmt/format.h>

#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

std::string Quoted(const std::string& s, bool markdown) { return markdown ? "`" + s + "`" : s; }

std::string WithoutBackticks(std::string s) {
  std::erase(s, '`');
  return s;
}

// `text` wrapped at `width` columns, every line after `indent` spaces.
std::string Wrapped(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

}  // namespace

std::string ParamRuntimesText(const runtime::ParamDef& def) {
  if (def.runtimes.empty()) return "every (Pipette's)";
  std::string out;
  for (const auto& r : def.runtimes) out += (out.empty() ? "" : ", ") + r;
  return out;
}

std::string ParamTypeText(const runtime::ParamDef& def, bool markdown) {
  switch (def.kind) {
    case runtime::ParamKind::kInt:
      return fmt::format("int {}–{}", def.min, def.max);
    case runtime::ParamKind::kBool:
      return "bool";
    case runtime::ParamKind::kChoice: {
      std::string out;
      for (const auto& c : def.choices) out += (out.empty() ? "" : ", ") + Quoted(c, markdown);
      std::string also;
      for (const auto& [alias, choice] : def.value_aliases) {
        also += fmt::format("{}{} = {}", also.empty() ? "" : ", ", Quoted(alias, markdown),
                            Quoted(choice, markdown));
      }
      return also.empty() ? out : out + " (" + also + ")";
    }
  }
  return "";
}

std::string ParamTableMarkdown(const runtime::ParamRegistry& registry) {
  std::string out =
      "| parameter | runtimes | type | stage | default (when not set) | meaning |\n"
      "| --- | --- | --- | --- | --- | --- |\n";
  for (const runtime::ParamDef& d : registry.defs()) {
    out +=
        fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", d.name,
                    MarkdownCell(ParamRuntimesText(d)), MarkdownCell(ParamTypeText(d, true)),
                    runtime::StageName(d.scope), MarkdownCell(d.default_doc), MarkdownCell(d.help));
  }
  return out;
}

std::string ParamHelpText(const runtime::ParamRegistry& registry) {
  std::string out =
      "Parameters an experiment sets under params: (a list sweeps them). One left unset is not "
      "sent:\nthe runtime's own default applies, and the cell records what it applied. A "
      "parameter reaches\nonly the cells of the runtimes it belongs to.\n";
  for (const runtime::ParamDef& d : registry.defs()) {
    out += fmt::format("\n{} ({}; {} stage)\n", d.name, ParamTypeText(d, false),
                       runtime::StageName(d.scope));
    out += Wrapped("runtimes: " + ParamRuntimesText(d), 2, 100);
    out += Wrapped(d.help, 2, 100);
    out += Wrapped("unset: " + WithoutBackticks(d.default_doc), 2, 100);
    if (!d.aliases.empty()) {
      std::string names;
      for (const auto& a : d.aliases) names += (names.empty() ? "" : ", ") + a;
      out += Wrapped("other tools' names: " + names, 2, 100);
    }
  }
  return out;
}

}  // namespace pipette::config
