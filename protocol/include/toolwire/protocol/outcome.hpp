// A value or an api_error: how validation, the core and the router report failure.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "toolwire/protocol/error.hpp"

namespace toolwire::protocol {

//! Holds either a T or an api_error. A small stand-in for C++23 std::expected.
template <typename T>
class outcome {
 public:
  outcome(T value) : state_(std::move(value)) {}          // NOLINT: implicit by design
  outcome(api_error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const {
    assert(ok());
    return std::get<0>(state_);
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const api_error& error() const {
    assert(!ok());
    return std::get<1>(state_);
  }

 private:
  std::variant<T, api_error> state_;
};

//! outcome<void>: success, or an error.
struct done {};

}  // namespace toolwire::protocol
