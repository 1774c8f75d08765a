// What every typed message of the protocol shares: how it names itself in errors, and the
// fields of a response beyond the typed ones (a runtime's own, kept as they came).
//
// Each op has a request struct (ToJson() writes it with its "op"; FromJson() reads and checks
// it, naming the op and the field on error) and a response struct (ToJson() writes the fields
// that follow "id" and "ok"; FromJson() reads them, ignoring fields it does not know, so that
// adding optional fields stays compatible). The controller writes requests and reads
// responses; a C++ worker reads requests and writes responses; both with these structs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "pipette/util/field_reader.h"
#include "pipette/util/result.h"

namespace pipette::protocol {

inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// "pp request", "pp response": how a message names itself in its errors.
inline std::string RequestName(const char* op) { return std::string(op) + " request"; }
inline std::string ResponseName(const char* op) { return std::string(op) + " response"; }

// The fields of `message` other than `known` and the envelope ("id", "ok", "op", "error").
nlohmann::json OtherFields(const nlohmann::json& message, std::initializer_list<const char*> known);

// `value` when `fields` read it without a problem, else the first problem.
template <class T>
Result<T> Checked(const FieldReader& fields, T value) {
  if (Status st = fields.status(); !st) return st.error();
  return value;
}

// The one shape of every FromJson: a reader naming the message `what`, `read(f, r)` filling a T
// from it (it may stop early, after f.Fail or a problem the reader noted), then r, or the first
// problem.
template <class T, class Read>
Result<T> ReadMessage(const nlohmann::json& j, std::string what, Read&& read) {
  FieldReader f(j, std::move(what));
  T r;
  read(f, r);
  return Checked(f, std::move(r));
}
template <class T, class Read>
Result<T> ReadRequest(const nlohmann::json& j, const char* op, Read&& read) {
  return ReadMessage<T>(j, RequestName(op), std::forward<Read>(read));
}
template <class T, class Read>
Result<T> ReadResponse(const nlohmann::json& j, const char* op, Read&& read) {
  return ReadMessage<T>(j, ResponseName(op), std::forward<Read>(read));
}

// The "t_start_ns" and "t_end_ns" of a response (the end not before the start).
inline void ReadTimeSpan(FieldReader& f, int64_t* start, int64_t* end) {
  *start = f.Int("t_start_ns", kInt64Min, kInt64Max);
  *end = f.Int("t_end_ns", *start, kInt64Max);
}

// A request with no fields (hello, memory, reset_peak_memory, shutdown).
template <const char* kOp>
struct BareRequest {
  nlohmann::json ToJson() const { return {{"op", kOp}}; }
  static Result<BareRequest> FromJson(const nlohmann::json& j) {
    return Checked(FieldReader(j, RequestName(kOp)), BareRequest{});
  }
};

}  // namespace pipette::protocol
