#include "pipette/config/yaml_helpers.h"

#include <algorithm>

#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::config {

namespace {

using nlohmann::json;

constexpr int kMaxDepth = 64;
constexpr int64_t kMaxValues = 10000;

Error TooDeep(const Where& w, const YAML::Node& node) {
  return w.At(node, fmt::format("nested more than {} levels deep (an alias that holds itself?)",
                                kMaxDepth));
}

// A plain or quoted scalar as the JSON scalar it spells: a quoted scalar is a string; a plain one
// is null (null, Null, NULL, ~), a boolean (true/True/TRUE, false/False/FALSE), a JSON number, or
// else a string.
json ScalarJson(const YAML::Node& node) {
  const std::string& t = node.Scalar();
  if (node.Tag() == "!") return json(t);  // quoted: always a string
  if (t == "null" || t == "Null" || t == "NULL" || t == "~") return json();
  if (t == "true" || t == "True" || t == "TRUE") return json(true);
  if (t == "false" || t == "False" || t == "FALSE") return json(false);
  // A JSON number starts with a digit or '-'; anything else is text without asking the JSON
  // parser, whose refusal (it writes its message even when asked not to throw) cost 150 µs a
  // scalar under the fuzzer's sanitizers: a file of 90,000 aliased words took 14 s.
  if (t.empty() || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9'))) return json(t);
  const json number = json::parse(t, nullptr, /*allow_exceptions=*/false);
  if (number.is_number()) return number;
  return json(t);
}

std::string In(const std::string& path) { return path.empty() ? "" : "in " + path + " "; }

struct MapParts {  // what a mapping read as fields keeps of each key
  FieldSpots* spots;
  std::map<std::string, YAML::Node>* nodes;
  std::vector<std::string>* keys;
};

Status Convert(const Where& w, const YAML::Node& node, const std::string& path, int depth,
               json* out, FieldSpot* spot);

// `node`, a mapping, as a JSON object into `out`, with each key's parts into `parts` if given.
Status ConvertMap(const Where& w, const YAML::Node& node, const std::string& path, int depth,
                  json* out, const MapParts* parts) {
  *out = json::object();
  std::map<std::string, int> lines;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) {
      return w.At(kv.first, fmt::format("a key {}must be a plain name", In(path)));
    }
    const std::string& key = kv.first.Scalar();
    if (key.find('\0') != std::string::npos) {  // a field is named by a C string
      return w.At(kv.first, fmt::format("a key {}must not hold a NUL character", In(path)));
    }
    auto [it, fresh] = lines.emplace(key, Line(kv.first));
    if (!fresh) {
      return w.At(kv.first, fmt::format("duplicate key '{}' {}(first at line {})", key, In(path),
                                        it->second));
    }
    json value;
    FieldSpot spot;
    if (auto st =
            Convert(w, kv.second, path.empty() ? key : path + "." + key, depth + 1, &value, &spot);
        !st) {
      return st;
    }
    (*out)[key] = std::move(value);
    if (parts) {
      spot.key = PosOf(kv.first);
      (*parts->spots)[key] = std::move(spot);
      (*parts->nodes)[key] = kv.second;
      parts->keys->push_back(key);
    }
  }
  return {};
}

// `node` as JSON into `out`, and where it is into `spot`; `path` names it in problems. A
// document is checked (CheckTree) before it is read; the depth is bounded here too, as a part of
// one may be read on its own (a section's parser).
Status Convert(const Where& w, const YAML::Node& node, const std::string& path, int depth,
               json* out, FieldSpot* spot) {
  if (depth > kMaxDepth) return TooDeep(w, node);
  spot->value = PosOf(node);
  if (node.IsNull()) {
    *out = json();
  } else if (node.IsScalar()) {
    *out = ScalarJson(node);
    spot->text = node.Scalar();
  } else if (node.IsSequence()) {
    *out = json::array();
    for (size_t i = 0; i < node.size(); ++i) {
      json item;
      FieldSpot item_spot;
      const std::string at = path + "[" + std::to_string(i) + "]";
      if (auto st = Convert(w, node[i], at, depth + 1, &item, &item_spot); !st) return st;
      item_spot.key = item_spot.value;
      out->push_back(std::move(item));
      spot->items.push_back(std::move(item_spot));
    }
  } else if (node.IsMap()) {
    return ConvertMap(w, node, path, depth, out, nullptr);
  }
  return {};
}

}  // namespace

YamlMapping::YamlMapping(std::unique_ptr<Data> data, const std::string& path)
    : data_(std::move(data)),
      reader_(std::make_unique<FieldReader>(data_->object, data_->place, data_->spots,
                                            path.empty() ? "" : path + ".")) {}

Result<YamlMapping> YamlMapping::Read(const Where& w, const YAML::Node& node,
                                      const std::string& path, const std::string& shape) {
  if (!node.IsMap()) return w.At(node, shape);
  auto data = std::make_unique<Data>();
  data->place = w.PlaceOf(node);
  const MapParts parts{&data->spots, &data->nodes, &data->keys};
  if (auto st = ConvertMap(w, node, path, 0, &data->object, &parts); !st) return st.error();
  return YamlMapping(std::move(data), path);
}

Result<YamlMapping> YamlMapping::Lone(const Where& w, const YAML::Node& node,
                                      const std::string& name) {
  auto data = std::make_unique<Data>();
  data->place = w.PlaceOf(node);
  nlohmann::json value;
  FieldSpot spot;
  if (auto st = Convert(w, node, name, 0, &value, &spot); !st) return st.error();
  spot.key = spot.value;
  data->object[name] = std::move(value);
  data->spots[name] = std::move(spot);
  data->nodes[name] = node;
  data->keys.push_back(name);
  return YamlMapping(std::move(data), "");
}

YAML::Node YamlMapping::Node(const std::string& key) const {
  auto it = data_->nodes.find(key);
  return it == data_->nodes.end() ? YAML::Node() : it->second;
}

Status YamlMapping::OnlyKeys(const std::vector<std::string>& known, const std::string& in) const {
  for (const std::string& key : data_->keys) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return AtKey(key, fmt::format("unknown key '{}'{}{}", key, in, DidYouMean(key, known)));
    }
  }
  return {};
}

std::vector<YAML::Node> AsList(const YAML::Node& node) {
  std::vector<YAML::Node> out;
  if (node.IsSequence()) {
    for (const YAML::Node& n : node) out.push_back(n);
  } else {
    out.push_back(node);
  }
  return out;
}

namespace {

// NOLINTNEXTLINE(misc-no-recursion): bounded by kMaxDepth
Status CheckNode(const Where& w, const YAML::Node& node, int depth, int64_t* values) {
  if (depth > kMaxDepth) return TooDeep(w, node);
  if (++*values > kMaxValues) {
    return w.At(node, fmt::format("more than {} values once its aliases are expanded: too many "
                                  "for an experiment file",
                                  kMaxValues));
  }
  if (node.IsScalar()) {
    if (FirstInvalidUtf8(node.Scalar())) {
      return w.At(node, "this text is not UTF-8 once its escapes are decoded");
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (auto st = CheckNode(w, item, depth + 1, values); !st) return st;
    }
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      if (auto st = CheckNode(w, kv.first, depth + 1, values); !st) return st;
      if (auto st = CheckNode(w, kv.second, depth + 1, values); !st) return st;
    }
  }
  return {};
}

}  // namespace

Status CheckTree(const Where& w, const YAML::Node& root) {
  int64_t values = 0;
  return CheckNode(w, root, 0, &values);
}

}  // namespace pipette::config
