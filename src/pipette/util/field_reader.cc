#include "pipette/util/field_reader.h"

#include <algorithm>
#include <charconv>
#include <type_traits>
#include <utility>

namespace pipette {

using nlohmann::json;

std::string JsonKind(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number with a fraction or exponent";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::null:
      return "null";
    default:
      return "an unknown value";
  }
}

namespace {

// "at least 1", "between 1 and 10": the range of an integer field, as its problems say it.
std::string RangeText(int64_t min, int64_t max) {
  if (max == FieldReader::kNoMax) return "at least " + std::to_string(min);
  return "between " + std::to_string(min) + " and " + std::to_string(max);
}

// A number in its shortest form that reads back the same: 0.01, 60, 86400.
std::string Shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// 'text', as a problem quotes what was written. (Built in place: `"'" + s + "'"` sets off a false
// -Wrestrict in GCC 12's -O3 on aarch64.)
std::string Quoted(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

// "field 'prefix.name'", or "field 'prefix.name[item]'" for an item of a list.
std::string FieldName(const std::string& prefix, const char* name, std::optional<size_t> item) {
  std::string out = "field '";
  out += prefix;
  out += name;
  if (item) {
    out += '[';
    out += std::to_string(*item);
    out += ']';
  }
  out += '\'';
  return out;
}

// The whole of `text` as a T (an integer, or a number), or nullopt.
template <class T>
std::optional<T> Parsed(const std::string& text) {
  T v{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

FieldReader::FieldReader(const json& message, std::string what)
    : FieldReader(message, Place{.what = std::move(what)}, /*exit_code=*/1,
                  /*null_is_absent=*/true, "") {}

FieldReader::FieldReader(const json& object, Place place, int exit_code)
    : FieldReader(object, std::move(place), exit_code, /*null_is_absent=*/false, "") {}

FieldReader::FieldReader(const json& object, Place place, const FieldSpots& spots,
                         std::string prefix)
    : FieldReader(object, std::move(place), /*exit_code=*/2, /*null_is_absent=*/false,
                  std::move(prefix), &spots) {}

FieldReader::FieldReader(const json& object, Place place, int exit_code, bool null_is_absent,
                         std::string prefix, const FieldSpots* spots)
    : object_(object.is_object() ? object : EmptyObject()),
      place_(std::move(place)),
      exit_code_(exit_code),
      null_is_absent_(null_is_absent),
      prefix_(std::move(prefix)),
      spots_(spots) {
  if (object.is_object()) return;
  if (prefix_.empty()) {
    Fail("not a JSON object, got " + JsonKind(object));
  } else {
    Fail("field '" + prefix_.substr(0, prefix_.size() - 1) + "' must be an object, got " +
         JsonKind(object));
  }
}

const json& FieldReader::EmptyObject() {
  static const json kEmpty = json::object();
  return kEmpty;
}

bool FieldReader::Has(const char* name) const {
  auto it = object_.find(name);
  return !Absent(it == object_.end() ? nullptr : &*it);
}

bool FieldReader::IsNumber(const char* name) const {
  if (const FieldSpot* spot = SpotOf(name); spot && spot->text) {
    return Parsed<double>(*spot->text).has_value();
  }
  auto it = object_.find(name);
  return it != object_.end() && it->is_number();
}

std::optional<std::string> FieldReader::FirstUnknown(const std::vector<std::string>& known) const {
  for (const auto& [key, value] : object_.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) return key;
  }
  return std::nullopt;
}

const json* FieldReader::Find(const char* name, bool required) {
  auto it = object_.find(name);
  const json* value = it == object_.end() ? nullptr : &*it;
  if (Absent(value)) {
    if (required) Fail("missing required field " + Name(name));
    return nullptr;
  }
  return value;
}

void FieldReader::Fail(const std::string& problem) {
  if (!error_) error_ = place_.Fail(problem, exit_code_);
}

const FieldSpot* FieldReader::SpotOf(const char* name) const {
  if (!spots_) return nullptr;
  auto it = spots_->find(name);
  return it == spots_->end() ? nullptr : &it->second;
}

Place FieldReader::Located(const Place& at) const {
  if (!at.Known()) return place_;
  Place p = at;
  p.file = place_.file;
  p.what = place_.what;
  return p;
}

Place FieldReader::PlaceOf(const char* name) const {
  const FieldSpot* spot = SpotOf(name);
  return spot ? Located(spot->value) : place_;
}

Place FieldReader::PlaceOf(const char* name, size_t item) const {
  const FieldSpot* spot = SpotOf(name);
  if (!spot || item >= spot->items.size()) return PlaceOf(name);
  return Located(spot->items[item].value);
}

Place FieldReader::KeyPlaceOf(const char* name) const {
  const FieldSpot* spot = SpotOf(name);
  return spot ? Located(spot->key) : place_;
}

void FieldReader::FailAt(const char* name, const std::string& problem) {
  if (!error_) error_ = PlaceOf(name).Fail(problem, exit_code_);
}

void FieldReader::FailAt(const char* name, size_t item, const std::string& problem) {
  if (!error_) error_ = PlaceOf(name, item).Fail(problem, exit_code_);
}

void FieldReader::FieldFail(const char* name, const std::string& problem) {
  FailAt(name, "field " + Name(name) + " " + problem);
}

std::string FieldReader::KindOf(const json& value) const {
  if (spots_) {  // a text file's words
    if (value.is_object()) return "a mapping";
    if (value.is_array()) return "a list";
    if (value.is_null()) return "nothing";
  }
  return JsonKind(value);
}

void FieldReader::WrongKind(const char* name, const std::string& wanted, const json& value,
                            bool shown) {
  const FieldSpot* spot = SpotOf(name);
  FieldFail(name, "must be " + wanted + ", got " +
                      (shown && spot && spot->text ? Quoted(*spot->text) : KindOf(value)));
}

void FieldReader::Take(const FieldReader& other) {
  if (!error_ && other.error_) error_ = other.error_;
}

Status FieldReader::status() const {
  if (!error_) return {};
  return *error_;
}

int64_t FieldReader::ReadInt(const json& value, const char* name, int64_t min, int64_t max) {
  int64_t v = 0;
  if (const FieldSpot* spot = SpotOf(name); spot && spot->text) {
    const auto parsed = Parsed<int64_t>(*spot->text);
    if (!parsed) {
      WrongKind(name, "an integer", value, /*shown=*/true);
      return min;
    }
    return CheckRange(*parsed, name, min, max);
  }
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      FieldFail(name, "must be " + RangeText(min, max) + ", got " + std::to_string(u));
      return min;
    }
    v = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else {
    WrongKind(name, "an integer", value);
    return min;
  }
  return CheckRange(v, name, min, max);
}

int64_t FieldReader::CheckRange(int64_t v, const char* name, int64_t min, int64_t max) {
  if (v < min || v > max) {
    FieldFail(name, "must be " + RangeText(min, max) + ", got " + std::to_string(v));
    return min;
  }
  return v;
}

bool FieldReader::ReadBool(const json& value, const char* name) {
  if (const FieldSpot* spot = SpotOf(name); spot && spot->text) {
    const std::string& t = *spot->text;  // YAML's words
    if (t == "true" || t == "True" || t == "TRUE") return true;
    if (t == "false" || t == "False" || t == "FALSE") return false;
    WrongKind(name, "true or false", value, /*shown=*/true);
    return false;
  }
  if (!value.is_boolean()) {
    WrongKind(name, "true or false", value);
    return false;
  }
  return value.get<bool>();
}

std::string FieldReader::ReadString(const json& value, const char* name) {
  if (const FieldSpot* spot = SpotOf(name); spot && spot->text) return *spot->text;
  if (!value.is_string()) {
    WrongKind(name, "a string", value);
    return {};
  }
  return value.get<std::string>();
}

TokenIds FieldReader::ReadTokens(const json& value, const char* name) {
  if (!value.is_array()) {
    WrongKind(name, "an array of token ids", value);
    return {};
  }
  TokenIds tokens;
  tokens.reserve(value.size());
  for (const json& item : value) {
    if (!item.is_number_integer()) {
      FieldFail(name, "must hold only integer token ids, not " + JsonKind(item));
      return {};
    }
    const bool fits = item.is_number_unsigned()
                          ? item.get<uint64_t>() <= uint64_t{INT32_MAX}
                          : item.get<int64_t>() >= INT32_MIN && item.get<int64_t>() <= INT32_MAX;
    if (!fits) {
      FieldFail(name, "holds " + item.dump() + ", which is not a 32-bit token id");
      return {};
    }
    tokens.push_back(static_cast<int32_t>(item.get<int64_t>()));
  }
  return tokens;
}

int64_t FieldReader::Int(const char* name, int64_t min, int64_t max) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadInt(*value, name, min, max) : min;
}

int64_t FieldReader::Int(const char* name, int64_t min, int64_t max, int64_t fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadInt(*value, name, min, max) : fallback;
}

std::optional<int64_t> FieldReader::OptionalInt(const char* name, int64_t min, int64_t max) {
  const json* value = Find(name, /*required=*/false);
  if (!value) return std::nullopt;
  return ReadInt(*value, name, min, max);
}

bool FieldReader::Bool(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadBool(*value, name) : false;
}

bool FieldReader::Bool(const char* name, bool fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadBool(*value, name) : fallback;
}

std::string FieldReader::String(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadString(*value, name) : std::string();
}

std::string FieldReader::String(const char* name, const std::string& fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadString(*value, name) : fallback;
}

std::optional<std::string> FieldReader::OptionalString(const char* name) {
  const json* value = Find(name, /*required=*/false);
  if (!value) return std::nullopt;
  return ReadString(*value, name);
}

std::string FieldReader::Text(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return {};
  std::string s = ReadString(*value, name);
  if (value->is_string() && s.empty()) FieldFail(name, "is empty");
  return s;
}

std::vector<std::pair<const json*, const FieldSpot*>> FieldReader::TextItems(const json& value,
                                                                             const char* name) {
  std::vector<std::pair<const json*, const FieldSpot*>> out;
  const FieldSpot* spot = SpotOf(name);
  if (!value.is_array()) {
    out.emplace_back(&value, spot);
    return out;
  }
  for (size_t i = 0; i < value.size(); ++i) {
    out.emplace_back(&value[i], spot && i < spot->items.size() ? &spot->items[i] : nullptr);
  }
  return out;
}

std::vector<std::string> FieldReader::Strings(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return {};
  if (spots_) {
    std::vector<std::string> out;
    const auto items = TextItems(*value, name);
    for (size_t i = 0; i < items.size(); ++i) {
      const auto [item, spot] = items[i];
      if (!spot || !spot->text) {
        FailAt(
            name, i,
            FieldName(prefix_, name, value->is_array() ? std::optional<size_t>(i) : std::nullopt) +
                " must be a string, got " + KindOf(*item));
        return {};
      }
      out.push_back(*spot->text);
    }
    return out;
  }
  if (!value->is_array()) {
    WrongKind(name, "an array of strings", *value);
    return {};
  }
  std::vector<std::string> out;
  out.reserve(value->size());
  for (size_t i = 0; i < value->size(); ++i) {
    const json& item = (*value)[i];
    if (!item.is_string()) {
      Fail(FieldName(prefix_, name, i) + " must be a string, got " + JsonKind(item));
      return {};
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

TokenIds FieldReader::Tokens(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadTokens(*value, name) : TokenIds();
}

TokenIds FieldReader::Tokens(const char* name, TokenIds fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadTokens(*value, name) : fallback;
}

template <class T>
std::vector<T> FieldReader::ReadNumbers(const char* name) {
  constexpr bool kIntegers = std::is_integral_v<T>;
  const json* value = Find(name, /*required=*/true);
  if (!value) return {};
  if (!value->is_array()) {
    WrongKind(name, kIntegers ? "an array of integers" : "an array of numbers", *value);
    return {};
  }
  std::vector<T> out;
  out.reserve(value->size());
  for (const json& item : *value) {
    if (kIntegers ? !item.is_number_integer() : !item.is_number()) {
      FieldFail(name,
                std::string(kIntegers ? "must hold only integers" : "must hold only numbers") +
                    ", not " + JsonKind(item));
      return {};
    }
    out.push_back(item.get<T>());
  }
  return out;
}

std::vector<int64_t> FieldReader::Ints(const char* name) {
  if (spots_) return Ints(name, std::numeric_limits<int64_t>::min(), kNoMax);  // from their text
  return ReadNumbers<int64_t>(name);
}

std::vector<int64_t> FieldReader::Ints(const char* name, int64_t min, int64_t max) {
  if (!spots_) {
    std::vector<int64_t> out = Ints(name);
    for (int64_t& v : out) v = CheckRange(v, name, min, max);
    return ok() ? out : std::vector<int64_t>{};
  }
  const json* value = Find(name, /*required=*/true);
  if (!value) return {};
  std::vector<int64_t> out;
  const auto items = TextItems(*value, name);
  for (size_t i = 0; i < items.size(); ++i) {
    const auto [item, spot] = items[i];
    const std::string field =
        FieldName(prefix_, name, value->is_array() ? std::optional<size_t>(i) : std::nullopt);
    const auto v = spot && spot->text ? Parsed<int64_t>(*spot->text) : std::nullopt;
    if (!v) {
      FailAt(name, i,
             field + " must be an integer, got " +
                 (spot && spot->text ? Quoted(*spot->text) : KindOf(*item)));
      return {};
    }
    if (*v < min || *v > max) {
      FailAt(name, i, field + " must be " + RangeText(min, max) + ", got " + std::to_string(*v));
      return {};
    }
    out.push_back(*v);
  }
  return out;
}

std::vector<double> FieldReader::Numbers(const char* name) { return ReadNumbers<double>(name); }

double FieldReader::Number(const char* name, double min, double max, const std::string& unit) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return min;
  const FieldSpot* spot = SpotOf(name);
  const std::string field = "field " + Name(name) + (unit.empty() ? "" : " (" + unit + ")");
  std::optional<double> v;
  if (spot && spot->text) {
    v = Parsed<double>(*spot->text);
  } else if (value->is_number()) {
    v = value->get<double>();
  }
  if (!v) {
    FailAt(name, field + " must be a number, got " +
                     (spot && spot->text ? Quoted(*spot->text) : KindOf(*value)));
    return min;
  }
  if (!(*v >= min && *v <= max)) {
    FailAt(name, field + " must be between " + Shortest(min) + " and " + Shortest(max) + ", got " +
                     (spot && spot->text ? *spot->text : Shortest(*v)));
    return min;
  }
  return *v;
}

double FieldReader::Number(const char* name) {
  if (spots_) {  // from its text, as the ranged form reads it
    return Number(name, std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max());
  }
  const json* value = Find(name, /*required=*/true);
  if (!value) return 0;
  if (!value->is_number()) {
    WrongKind(name, "a number", *value);
    return 0;
  }
  return value->get<double>();
}

json FieldReader::Object(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return json::object();
  if (!value->is_object()) {
    WrongKind(name, "an object", *value);
    return json::object();
  }
  return *value;
}

json FieldReader::OptionalObject(const char* name) {
  if (!Has(name)) return json::object();
  return Object(name);
}

json FieldReader::Array(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return json::array();
  if (!value->is_array()) {
    WrongKind(name, "an array", *value);
    return json::array();
  }
  return *value;
}

FieldReader FieldReader::Nested(const json& value, const std::string& name) {
  return FieldReader(value, place_, exit_code_, null_is_absent_, prefix_ + name + ".", nullptr);
}

}  // namespace pipette
