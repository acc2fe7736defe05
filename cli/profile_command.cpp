// `toolwire profile`.
#include "profile_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "toolwire/conformance/http_client.hpp"
#include "toolwire/conformance/target_profile.hpp"
#include "toolwire/protocol/routes.hpp"

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
  toolwire profile init acme.json --from http://127.0.0.1:8080   # ask the running server
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

//! `text` with the first `from` replaced by `to`.
std::string replaced(std::string text, std::string_view from, const std::string& to) {
  if (const auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

//! What a running server at `url` showed of itself: its clock and its parts. Each probe is
//! a request without a credential: a route the server has answers 401 (AUTH-2), one it
//! lacks 404, so nothing is created and no key is needed.
struct server_shape {
  std::string base_url;
  bool virtual_clock = false, part_a = false, part_b = false;
  std::string asked;  // what was asked and answered, for the user
};

protocol::outcome<server_shape> ask_server(const std::string& url) {
  // The URL is checked as a profile's base_url is, and named as the flag.
  auto probe = nlohmann::json::parse(virtual_profile);
  probe["base_url"] = url;
  auto profile = conformance::parse_profile(probe.dump(), "--from");
  if (!profile) {
    return protocol::invalid_request(
        replaced(profile.error().message, "--from: field 'base_url'", "--from"));
  }
  conformance::http_client client(profile->base, std::chrono::milliseconds(2000));
  server_shape shape;
  shape.base_url = url;
  if (shape.base_url.ends_with("/")) shape.base_url.pop_back();
  const auto ask = [&](protocol::route_id id) -> protocol::outcome<int> {
    const auto& route = protocol::route_of(id);
    protocol::api_request request{
        std::string(route.method),         protocol::route_path(id), {}, std::nullopt, std::nullopt,
        route.method == "POST" ? "{}" : ""};
    const auto answer = client.send(request);
    if (conformance::is_transport_failure(answer)) {
      return protocol::invalid_request("nothing usable answers at " + url + " (" +
                                       conformance::describe_answer(answer) +
                                       "): start the server first, or write the profile "
                                       "without --from and edit it");
    }
    shape.asked += (shape.asked.empty() ? "" : "; ") + protocol::route_shown(id) + " answered " +
                   std::to_string(answer.status);
    return answer.status;
  };
  const auto clock = ask(protocol::route_id::get_clock);
  if (!clock) return clock.error();
  shape.virtual_clock = *clock != 404;
  const auto sessions = ask(protocol::route_id::create_session);
  if (!sessions) return sessions.error();
  shape.part_a = *sessions != 404 && *sessions != 405;
  const auto tasks = ask(protocol::route_id::create_task);
  if (!tasks) return tasks.error();
  shape.part_b = *tasks != 404 && *tasks != 405;
  if (!shape.part_a && !shape.part_b) {
    return protocol::invalid_request(url + " has neither Part A nor Part B (" + shape.asked +
                                     "): is it a Client Tools server?");
  }
  return shape;
}

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
  init_
      ->add_option("--from", from_,
                   "ask the server running at this http://host:port which clock it has (its "
                   "test clock route answers 404 or not) and which parts, and write those, "
                   "with this base_url; no credential is sent")
      ->excludes(init_->get_option("--clock"));
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
  std::string clock = clock_;
  std::string text(clock == "real" ? real_profile : virtual_profile);
  if (!from_.empty()) {
    const auto shape = ask_server(from_);
    if (!shape) {
      std::cerr << "toolwire profile init: " << shape.error().message << "\n";
      return 2;
    }
    clock = shape->virtual_clock ? "virtual" : "real";
    text = replaced(std::string(shape->virtual_clock ? virtual_profile : real_profile),
                    "http://127.0.0.1:8080", shape->base_url);
    text = replaced(text, "[\"A\", \"B\"]",
                    shape->part_a && shape->part_b ? "[\"A\", \"B\"]"
                    : shape->part_a                ? "[\"A\"]"
                                                   : "[\"B\"]");
    std::cerr << "toolwire profile init: asked " << shape->base_url << ": " << shape->asked
              << ". So: \"clock\": \"" << clock << "\", parts "
              << (shape->part_a && shape->part_b ? "A and B"
                  : shape->part_a                ? "A"
                                                 : "B")
              << ". Set the key, the stand-in address and the timeouts it was started with.\n";
  }
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
    std::cerr << "toolwire profile init: wrote " << file_ << ", a profile for a " << clock
              << "-clock target.\n";
  }
  std::cerr << field_notes;
  if (!from_.empty()) {
    std::cerr << "Then: toolwire check --target " << (file_.empty() ? "FILE" : file_) << "\n";
    return 0;
  }
  std::cerr << "It matches the bundled server started with:\n"
            << "  toolwire serve --port 8080 --api-key KEY --api-key LIMITED: --clock " << clock
            << (clock == "real" ? " \\\n    --ack-timeout-ms 1000 --result-timeout-ms 3000 "
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
