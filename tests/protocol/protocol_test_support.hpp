// Shared by the protocol tests: the message of an expected 400.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "toolwire/protocol/outcome.hpp"

namespace toolwire::protocol::testing {

//! REQUIREs that `result` is an invalid_request error and returns its message.
template <typename T>
std::string rejection(const outcome<T>& result) {
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == error_code::invalid_request);
  return result.error().message;
}

}  // namespace toolwire::protocol::testing
