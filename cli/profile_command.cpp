// `toolwire profile`.
#include "profile_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "toolwire/conformance/target_profile.hpp"

namespace toolwire::cli {

namespace {

// Why these values: each profile matches the bundled server started as examples/README.md
// shows, so a new user can run it before pointing it at their own target. They are
// examples/virtual-clock.json and examples/real-clock.json without "$schema" (whose
// relative path would not hold where the file is written); tests/cli compares them.
constexpr std::string_view virtual_profile = R"({
  "name": "example-virtual-clock",
  "base_url": "http://127.0.0.1:8080",
  "api_key": "KEY",
  "limited_api_key": "LIMITED",
  "parts": ["A", "B"],
  "model_stand_in": "127.0.0.1:18080",
  "assistant_id": 1,
  "clock": "virtual",
  "ack_timeout_ms": 10000,
  "result_timeout_ms": 300000,
  "interrupt_timeout_ms": 600000
}
)";

constexpr std::string_view real_profile = R"({
  "name": "example-real-clock",
  "base_url": "http://127.0.0.1:8080",
  "api_key": "KEY",
  "limited_api_key": "LIMITED",
  "parts": ["A", "B"],
  "model_stand_in": "127.0.0.1:18080",
  "assistant_id": 1,
  "clock": "real",
  "ack_timeout_ms": 1000,
  "result_timeout_ms": 3000,
  "interrupt_timeout_ms": 4000,
  "timing_tolerance_ms": 200
}
)";

// Why on stderr: JSON has no comments and the profile loader refuses unknown fields (a
// typo must not pass silently), so the comments go beside the file instead of into it.
constexpr std::string_view field_notes =
    "JSON has no comments, so here is what each field means (docs/target-profile.md):\n"
    "  name                  the target's name in reports\n"
    "  base_url              http://host:port where the target listens (plain HTTP, no path)\n"
    "  api_key               a key with scope session.manage (never printed)\n"
    "  limited_api_key       a key without session.manage, for AUTH-2 (optional)\n"
    "  parts                 the API families it implements: [\"A\"], [\"B\"] or [\"A\", \"B\"]\n"
    "  model_stand_in        host:port where the target calls its model; the suite serves\n"
    "                        its model stand-in there\n"
    "  assistant_id          the assistant bound to that model (Part B)\n"
    "  clock                 \"virtual\" if it serves SPEC 7's test clock, else \"real\"\n"
    "  *_timeout_ms          the timeouts the target was started with\n";

constexpr std::string_view init_footer = R"(
Examples:
  toolwire profile init acme.json                 # a virtual-clock target
  toolwire profile init acme.json --clock real    # a real-clock target
  toolwire profile init > acme.json               # to stdout
  toolwire profile check acme.json && toolwire check --target acme.json

Exit codes: 0 written; 2 bad usage, FILE exists (without --force) or cannot be written.
Read: docs/target-profile.md, examples/README.md)";

constexpr std::string_view check_footer = R"(
Examples:
  toolwire profile check acme.json
  toolwire profile check examples/*.json

Exit codes: 0 every profile is valid; 2 one is not (the error names the file and field).
It does not contact the target: toolwire check --target FILE does, with a preflight.
Read: docs/target-profile.md)";

}  // namespace

profile_command::profile_command(CLI::App& parent) {
  app_ = parent.add_subcommand("profile", "Write or validate a target profile");
  app_->require_subcommand(1);
  app_->footer(R"(
Examples:
  toolwire profile init acme.json --clock real
  toolwire profile check acme.json

Exit codes: 0 done; 2 bad usage or an invalid profile.
Read: docs/target-profile.md)");
  init_ = app_->add_subcommand(
      "init",
      "Write an example target profile to FILE (or stdout), with what each field means on "
      "stderr; edit it for your target. It is examples/virtual-clock.json (or, with --clock "
      "real, examples/real-clock.json)");
  init_->add_option("file", file_, "where to write it (default: stdout)");
  init_->add_option("--clock", clock_, "the target's clock")
      ->check(CLI::IsMember({"virtual", "real"}))
      ->capture_default_str();
  init_->add_flag("--force", force_, "overwrite FILE if it exists");
  init_->footer(std::string(init_footer));
  check_ = app_->add_subcommand(
      "check", "Validate target profiles as toolwire check --target would, without running");
  check_->add_option("files", files_, "the profiles")->required();
  check_->footer(std::string(check_footer));
}

int profile_command::run() const {
  return init_->parsed() ? init() : check();
}

int profile_command::init() const {
  const std::string_view text = clock_ == "real" ? real_profile : virtual_profile;
  if (file_.empty()) {
    std::cout << text << std::flush;
  } else {
    std::error_code ec;
    if (!force_ && std::filesystem::exists(file_, ec)) {
      std::cerr << "toolwire profile init: " << file_ << " exists; give --force to overwrite it\n";
      return 2;
    }
    std::ofstream out(file_, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::cerr << "toolwire profile init: cannot write " << file_ << "\n";
      return 2;
    }
    std::cerr << "toolwire profile init: wrote " << file_ << ", a profile for a " << clock_
              << "-clock target.\n";
  }
  std::cerr << field_notes << "It matches the bundled server started with:\n"
            << "  toolwire serve --port 8080 --api-key KEY --api-key LIMITED: --clock " << clock_
            << (clock_ == "real" ? " \\\n    --ack-timeout-ms 1000 --result-timeout-ms 3000 "
                                   "--interrupt-timeout-ms 4000"
                                 : "")
            << " \\\n    --model-url http://127.0.0.1:18080/v1 --assistant-id 1\n"
            << "Then: toolwire check --target " << (file_.empty() ? "FILE" : file_) << "\n";
  return 0;
}

int profile_command::check() const {
  int status = 0;
  for (const auto& file : files_) {
    auto profile = conformance::load_profile(file);
    if (!profile) {
      std::cerr << "toolwire profile check: " << profile.error().message << "\n";
      status = 2;
      continue;
    }
    const char* parts = profile->part_a && profile->part_b ? "A and B"
                        : profile->part_a                  ? "A"
                                                           : "B";
    std::cout << file << ": valid profile '" << profile->name << "' (http://"
              << profile->base.to_string() << ", part " << parts << ", "
              << (profile->virtual_clock ? "virtual" : "real") << " clock)\n";
  }
  return status;
}

}  // namespace toolwire::cli
