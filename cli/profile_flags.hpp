// A target profile from flags instead of a file (`check --base-url URL --api-key-env VAR
// --parts A,B --model-stand-in HOST:PORT ...`): for a quick start and for CI jobs that
// would otherwise write a JSON file first. The keys come from environment variables named
// on the command line, never from argv, so they stay out of shell history, process lists,
// reports and reproduce commands.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/outcome.hpp"

namespace toolwire::cli {

class profile_flags {
 public:
  //! Adds --base-url, --api-key-env, --limited-api-key-env, --parts, --model-stand-in,
  //! --assistant-id, --clock, --name and the three timeouts, in their own help group.
  void add_to(CLI::App& app);

  //! Whether any of these flags was given (--base-url is then required).
  bool given() const;

  //! The profile the flags describe, validated as a profile file is; errors name the flag
  //! (or the environment variable), never a key's value.
  protocol::outcome<conformance::target_profile> build() const;

  //! The flags as given, to repeat in a reproduce command or a trace header: they name
  //! the environment variables, not the keys.
  std::vector<std::string> args() const;

  //! `args` as one shell command fragment, each word quoted where the shell needs it.
  static std::string joined(const std::vector<std::string>& args);

 private:
  std::string base_url_;
  std::string api_key_env_;
  std::string limited_api_key_env_;
  std::string parts_;
  std::string model_stand_in_;
  std::int64_t assistant_id_ = -1;  // -1: not given
  std::string clock_;
  std::string name_;
  //! --ack-timeout-ms, --result-timeout-ms, --interrupt-timeout-ms, --timing-tolerance-ms
  //! (the table in profile_flags.cpp); -1: not given.
  std::array<std::int64_t, 4> millis_ = {-1, -1, -1, -1};
};

}  // namespace toolwire::cli
