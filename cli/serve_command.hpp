// `toolwire serve`: runs the reference server over HTTP until SIGINT or SIGTERM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace toolwire::cli {

//! The options as typed; `serve_command::run` validates them into a server configuration.
struct serve_options {
  std::string host = "127.0.0.1";
  int port = 0;
  std::vector<std::string> api_keys;
  std::string model_url;
  std::string model_script;
  std::string model_api_key;
  std::int64_t model_timeout_ms = 60'000;
  std::int64_t assistant_id = 1;
  std::string clock = "real";
  std::int64_t ack_timeout_ms = 10'000;
  std::int64_t result_timeout_ms = 300'000;
  std::int64_t interrupt_timeout_ms = 600'000;
  std::vector<std::string> faults;
  std::vector<std::string> variations;
  std::vector<std::string> cors_origins;
  std::uint64_t secret_seed = 0;
  std::int64_t keepalive_ms = 15'000;
  std::size_t max_connections = 1024;
  std::size_t max_streams_per_session = 64;
  std::size_t reserved_connections = 64;
  std::int64_t idle_expiry_ms = 3'600'000;
  std::size_t max_sessions = 10'000;
  bool list_faults = false;
  bool list_variations = false;
  bool quiet = false;
  bool demo = false;
};

class serve_command {
 public:
  //! Registers the `serve` subcommand and its options on `parent`.
  explicit serve_command(CLI::App& parent);

  bool selected() const { return app_->parsed(); }

  //! Validates the options (exit 2 with a message naming the bad one), then serves until
  //! SIGINT or SIGTERM (exit 0); exit 1 when the server cannot listen.
  int run() const;

 private:
  int serve() const;

  CLI::App* app_;
  CLI::Option* model_api_key_option_ = nullptr;
  CLI::Option* secret_seed_option_ = nullptr;
  serve_options options_;
};

//! The fault table as `--list-faults` prints it: `name  SPEC-ID  sentence`, aligned.
std::string fault_table();

//! The variation table as `--list-variations` prints it: `name  SPEC-IDs  sentence`.
std::string variation_table();

}  // namespace toolwire::cli
