// Where a browser case's tab screenshots live between the run and its report: a scratch
// directory of the run's own, removed with everything in it when the run ends.
#pragma once

#include <string>

#include "toolwire/protocol/outcome.hpp"

namespace toolwire::conformance {

class scratch_directory {
 public:
  //! A new directory under $TMPDIR (else /tmp), named `prefix`-XXXXXX.
  static protocol::outcome<scratch_directory> make(const std::string& prefix);
  scratch_directory(scratch_directory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  scratch_directory& operator=(scratch_directory&&) = delete;
  scratch_directory(const scratch_directory&) = delete;
  ~scratch_directory();
  const std::string& path() const { return path_; }

 private:
  explicit scratch_directory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

//! `bytes` in standard base64 (RFC 4648, with padding).
std::string base64(const std::string& bytes);

}  // namespace toolwire::conformance
