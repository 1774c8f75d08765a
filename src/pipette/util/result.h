// Result<T>: a value or an Error carrying context, in the style of ninja's explicit error returns.
// The error type may be one derived from Error that carries more context (a worker call's
// CallError names the op and whether the worker is still usable); it converts to a plain Error
// where that context is no longer needed.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pipette {

// An error meant for a person: what went wrong, where (file:line when known), what to do.
struct Error {
  std::string message;
  // Process exit code a CLI should use when this error ends the program: 2 for bad input.
  int exit_code = 1;
};

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
