// Result<T>: a value or an Error carrying context, in the style of ninja's explicit error returns.
// The error type may be one derived from Error that carries more context (a worker call's
// CallError names the op and whether the worker is still usable); it converts to a plain Error
// where that context is no longer needed.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pipette {

// Where an error happened, as far as the code that found it knows; empty (0) where unknown. The
// experiment's parser knows the file, line and column, the runner the cell, a worker call the op.
struct ErrorContext {
  std::string file = {};  // an input file (the experiment)
  int line = 0;           // 1-based
  int column = 0;         // 1-based
  std::string cell = {};  // the failed cell: its index and key ("3 (m=a,t=pp16)")
  std::string op = {};    // the worker request's op ("pp"); "frames" while reading frames
};

// The one rendering of an error's place before its problem: "exp.yaml:3:5: problem",
// "exp.yaml:3: problem" (no column known), "exp.yaml: problem" (no line known), else the problem
// alone. The cell and the op are data only: the texts that name them say so in their own words
// ("cell 3 failed: ...", "'pp' failed in the worker: ...").
inline std::string Describe(const ErrorContext& where, const std::string& problem) {
  if (where.file.empty()) return problem;
  std::string place = where.file;
  if (where.line > 0) {
    place += ":" + std::to_string(where.line);
    if (where.column > 0) place += ":" + std::to_string(where.column);
  }
  return place + ": " + problem;
}

// An error meant for a person: what went wrong, where (file:line when known), what to do.
struct Error {
  // The whole text the CLI prints ("error: <message>"); for an error made with ErrorAt,
  // Describe(context, problem).
  std::string message;
  // Process exit code a CLI should use when this error ends the program: 2 for bad input.
  int exit_code = 1;
  ErrorContext context = {};  // where it happened, as data
};

// An error whose message is Describe(where, problem), and which keeps `where` as its context.
inline Error ErrorAt(ErrorContext where, const std::string& problem, int exit_code) {
  std::string message = Describe(where, problem);
  return Error{std::move(message), exit_code, std::move(where)};
}

inline Error InputError(std::string message) { return Error{std::move(message), 2}; }
// Something failed that is not the user's input (a runtime, the disk): exit code 1.
inline Error RuntimeError(std::string message) { return Error{std::move(message), 1}; }

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(E error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

// Success without a value, or an error.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const { return error_; }

 private:
  E error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace pipette
