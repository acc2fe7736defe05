// `toolwire serve`: runs the reference server over HTTP until SIGINT or SIGTERM.
#include "serve_command.hpp"

#include <malloc.h>
#include <algorithm>
#include <csignal>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "suggest.hpp"
#include "toolwire/protocol/validation.hpp"
#include "toolwire/reference_server/faults.hpp"
#include "toolwire/reference_server/model_script.hpp"
#include "toolwire/reference_server/variations/assembled_server.hpp"
#include "toolwire/reference_server/variations/variations.hpp"
#include "toolwire/reference_server/web/openai_backend.hpp"
#include "toolwire/reference_server/web/os_entropy.hpp"
#include "toolwire/reference_server/web/server.hpp"

namespace toolwire::cli {

//! The demo app's files (browser/tab/, docs/demo-model-script.json), embedded at build
//! time (cmake/embed_files.cmake): {file name, content}.
const std::vector<std::pair<std::string, std::string>>& demo_assets();

namespace {

namespace net = boost::asio;
namespace web = reference_server::web;

//! A usage mistake: reported as `toolwire serve: <message>` with exit 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string demo_asset(const std::string& name) {
  for (const auto& [file, content] : demo_assets()) {
    if (file == name) return content;
  }
  throw std::logic_error("the demo asset " + name + " was not embedded");
}

//! The demo's pages: the tab under /demo/, its index wired to `session` by a script that
//! puts the session into the URL's hash before tab.js reads it. Why in the page and not in
//! the printed URL: the URL goes to a terminal and logs; credentials never do.
std::map<std::string, web::static_page> demo_pages(
    const reference_server::session_created& session) {
  std::string index = demo_asset("index.html");
  const std::string wiring =
      "<script>if (!location.hash.includes('session=')) location.hash = 'session=" + session.id +
      "&token=" + session.token + "&name=web&ttl=30&demo=1';</script>\n";
  const auto at = index.find("<script src=\"tab.js\">");
  if (at == std::string::npos) throw std::logic_error("the demo index.html loads no tab.js");
  index.insert(at, wiring);
  const web::static_page page{"text/html; charset=utf-8", index};
  return {{"/demo", page},
          {"/demo/", page},
          {"/demo/index.html", page},
          {"/demo/tab.js", {"text/javascript; charset=utf-8", demo_asset("tab.js")}}};
}

//! What the options become once valid.
struct serve_plan {
  web::server_config server;
  std::optional<reference_server::model_script> script;
  web::openai_config openai;
};

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._~+/=").find(c) != std::string_view::npos;
}

bool is_scope_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._").find(c) != std::string_view::npos;
}

//! `KEY[:scope,scope]`: no colon gives session.manage; `KEY:` gives no scope at all.
//! Errors name the option by position, never by its text: the text is a credential.
reference_server::api_key parse_api_key(std::string_view text, std::size_t position) {
  const std::string where = "--api-key #" + std::to_string(position + 1);
  const auto colon = text.find(':');
  reference_server::api_key key;
  key.key = std::string(text.substr(0, colon));
  if (key.key.empty()) throw usage_error(where + ": the key is empty (expected KEY[:scope,scope])");
  if (!std::all_of(key.key.begin(), key.key.end(), is_key_char)) {
    throw usage_error(where + ": a key may hold only letters, digits and -._~+/=");
  }
  if (colon == std::string_view::npos) {
    key.scopes.insert(reference_server::scope_session_manage);
    return key;
  }
  std::string_view scopes = text.substr(colon + 1);
  while (!scopes.empty()) {
    const auto comma = scopes.find(',');
    const std::string_view scope = scopes.substr(0, comma);
    if (scope.empty() || !std::all_of(scope.begin(), scope.end(), is_scope_char)) {
      throw usage_error(where + ": scopes are a comma-separated list of names such as " +
                        std::string(reference_server::scope_session_manage));
    }
    key.scopes.emplace(scope);
    if (comma == std::string_view::npos) break;
    scopes = scopes.substr(comma + 1);
    if (scopes.empty()) throw usage_error(where + ": a scope list may not end with a comma");
  }
  return key;
}

//! Why `demo` may go without a key: its page works with the session token it is given.
std::vector<reference_server::api_key> parse_api_keys(const std::vector<std::string>& texts,
                                                      bool demo) {
  if (texts.empty() && !demo) {
    throw usage_error("at least one --api-key KEY[:scope,scope] is required");
  }
  std::vector<reference_server::api_key> keys;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto key = parse_api_key(texts[i], i);
    for (const auto& other : keys) {
      if (other.key == key.key) {
        throw usage_error("--api-key #" + std::to_string(i + 1) + " repeats an earlier key");
      }
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

reference_server::fault_set parse_faults(const std::vector<std::string>& names) {
  reference_server::fault_set faults;
  for (const auto& name : names) {
    auto fault = reference_server::parse_fault(name);
    if (!fault) {
      throw usage_error(unknown_fault_message(name));
    }
    faults.insert(*fault);
  }
  return faults;
}

reference_server::variations::variation_set parse_variations(
    const std::vector<std::string>& names) {
  reference_server::variations::variation_set set;
  for (const auto& name : names) {
    auto v = reference_server::variations::parse_variation(name);
    if (!v) throw usage_error(unknown_variation_message(name));
    set.insert(*v);
  }
  return set;
}

void check_timeouts(const serve_options& options) {
  // Why an upper bound: the core adds timeouts to `now`; this keeps every sum in int64
  // (the virtual clock saturates at the same bound).
  const std::pair<const char*, std::int64_t> all[] = {
      {"--ack-timeout-ms", options.ack_timeout_ms},
      {"--result-timeout-ms", options.result_timeout_ms},
      {"--interrupt-timeout-ms", options.interrupt_timeout_ms},
      {"--model-timeout-ms", options.model_timeout_ms},
      {"--keepalive-ms", options.keepalive_ms},
      {"--idle-expiry-ms", options.idle_expiry_ms}};
  for (const auto& [name, value] : all) {
    if (value > reference_server::max_virtual_ms) {
      throw usage_error(std::string(name) + " must be at most " +
                        std::to_string(reference_server::max_virtual_ms));
    }
  }
  if (options.ack_timeout_ms <= 0) throw usage_error("--ack-timeout-ms must be positive (CALL-3)");
  if (options.result_timeout_ms <= options.ack_timeout_ms) {
    throw usage_error("--result-timeout-ms must be greater than --ack-timeout-ms (CALL-3)");
  }
  if (options.interrupt_timeout_ms <= 0)
    throw usage_error("--interrupt-timeout-ms must be positive");
  if (options.model_timeout_ms <= 0) throw usage_error("--model-timeout-ms must be positive");
  if (options.keepalive_ms <= 0) throw usage_error("--keepalive-ms must be positive");
  if (options.idle_expiry_ms < 0) {
    throw usage_error("--idle-expiry-ms must be 0 (never forget) or positive");
  }
}

reference_server::model_script load_script(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw usage_error("cannot read the model script " + path);
  const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  auto script = reference_server::model_script::parse(text, path);
  if (!script) throw usage_error(script.error().message);
  return std::move(*script);
}

std::string url_of(const net::ip::tcp::endpoint& endpoint) {
  const std::string address = endpoint.address().to_string();
  const std::string host = endpoint.address().is_v6() ? "[" + address + "]" : address;
  return "http://" + host + ":" + std::to_string(endpoint.port());
}

}  // namespace

std::string fault_table() {
  std::size_t name_width = 0;
  std::size_t spec_width = 0;
  for (const auto& info : reference_server::all_faults()) {
    name_width = std::max(name_width, info.name.size());
    spec_width = std::max(spec_width, info.spec_id.size());
  }
  std::ostringstream out;
  for (const auto& info : reference_server::all_faults()) {
    out << info.name << std::string(name_width - info.name.size() + 2, ' ') << info.spec_id
        << std::string(spec_width - info.spec_id.size() + 2, ' ') << info.summary << '\n';
  }
  return out.str();
}

std::string variation_table() {
  std::size_t name_width = 0;
  std::size_t spec_width = 0;
  for (const auto& info : reference_server::variations::all_variations()) {
    name_width = std::max(name_width, info.name.size());
    spec_width = std::max(spec_width, info.spec_ids.size());
  }
  std::ostringstream out;
  for (const auto& info : reference_server::variations::all_variations()) {
    out << info.name << std::string(name_width - info.name.size() + 2, ' ') << info.spec_ids
        << std::string(spec_width - info.spec_ids.size() + 2, ' ') << info.summary << '\n';
  }
  return out.str();
}

serve_command::serve_command(CLI::App& parent)
    : app_(parent.add_subcommand("serve", "Run the reference server over HTTP")) {
  app_->footer(R"(
Examples:
  toolwire serve --port 8080 --api-key KEY --model-url http://127.0.0.1:18080/v1 --clock virtual
  toolwire serve --port 0 --api-key KEY --model-script docs/demo-model-script.json --fault double_result_accepted
  toolwire serve --list-faults

Exit codes: 0 stopped by SIGINT or SIGTERM (or a list printed); 1 it cannot listen or
cannot read the OS's entropy; 2 bad usage.
Read: docs/reference-server.md, docs/fault-table.md, docs/implementation-freedom.md)");
  auto& o = options_;
  app_->add_option("--host", o.host, "Address to listen on")->capture_default_str();
  app_->add_option("--port", o.port, "Port to listen on; 0 picks a free one")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  app_->add_option("--api-key", o.api_keys,
                   "Workspace API key KEY[:scope,scope] (repeatable); without a scope list the "
                   "key has session.manage, `KEY:` has no scope");
  app_->add_option("--model-url", o.model_url,
                   "OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1");
  app_->add_option("--model-script", o.model_script, "Answer model steps from this JSON script");
  model_api_key_option_ =
      app_->add_option("--model-api-key", o.model_api_key, "Bearer key for the model endpoint");
  app_->add_option("--model-timeout-ms", o.model_timeout_ms, "Model request timeout")
      ->capture_default_str();
  app_->add_option("--assistant-id", o.assistant_id, "The assistant id of Part B (TASK-1)")
      ->capture_default_str();
  app_->add_option("--clock", o.clock, "real, or virtual (SPEC 7: moves only when told)")
      ->check(CLI::IsMember({"real", "virtual"}))
      ->capture_default_str();
  app_->add_option("--ack-timeout-ms", o.ack_timeout_ms, "CALL-3 ack timeout")
      ->capture_default_str();
  app_->add_option("--result-timeout-ms", o.result_timeout_ms, "CALL-3 result timeout")
      ->capture_default_str();
  app_->add_option("--interrupt-timeout-ms", o.interrupt_timeout_ms, "TASK-7 interrupt timeout")
      ->capture_default_str();
  app_->add_option("--fault", o.faults, "Plant a fault (repeatable; see --list-faults)");
  secret_seed_option_ = app_->add_option(
      "--secret-seed", o.secret_seed,
      "Derive session tokens from this seed, reproducibly. UNSAFE outside tests: one token "
      "reveals the others. Without it tokens come from the OS CSPRNG");
  app_->add_option("--max-connections", o.max_connections,
                   "Connections open at once, event streams included; more are answered 503")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app_->add_option("--max-streams-per-session", o.max_streams_per_session,
                   "Event streams one session may hold open; one more is answered 503")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app_->add_option("--reserved-connections", o.reserved_connections,
                   "Connections (of --max-connections) that event streams may never take, so "
                   "requests get through while streams are saturated")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))
      ->capture_default_str();
  app_->add_option("--idle-expiry-ms", o.idle_expiry_ms,
                   "Forget a session with no live client and no turn after this long without "
                   "a request or event (its token then answers 401), and a completed or failed "
                   "task after this long unread; 0 never forgets")
      ->capture_default_str();
  app_->add_option("--max-sessions", o.max_sessions,
                   "Sessions kept at once; creating one more is answered 503 (0: no limit)")
      ->capture_default_str();
  app_->add_option("--keepalive-ms", o.keepalive_ms, "SSE keep-alive comment after this silence")
      ->capture_default_str();
  app_->add_flag("--quiet", o.quiet,
                 "Do not log one line per request (start-up, shutdown and failures still are)");
  app_->add_flag("--list-faults", o.list_faults, "Print the faults that --fault accepts and exit");
  app_->add_option("--variation", o.variations,
                   "Behave in a way SPEC allows but the reference does not by default "
                   "(repeatable; see --list-variations)");
  app_->add_option("--cors-origin", o.cors_origins,
                   "Let browser pages of this origin (http[s]://host[:port]) call the server: "
                   "preflights answered, answers readable by it and by no other origin "
                   "(repeatable; docs/cors.md)");
  app_->add_flag("--demo", o.demo,
                 "Serve the demo app at /demo/ (a tab client wired to a session this server "
                 "creates, with an \"Ask the model\" box), answered by the built-in demo model "
                 "script unless --model-url or --model-script is given; loopback only");
  app_->add_flag("--list-variations", o.list_variations,
                 "Print the variations that --variation accepts, with the SPEC rules that "
                 "allow them, and exit");
}

int serve_command::run() const {
  if (options_.list_faults) {
    std::cout << fault_table() << std::flush;
    return 0;
  }
  if (options_.list_variations) {
    std::cout << variation_table() << std::flush;
    return 0;
  }
  try {
    return serve();
  } catch (const usage_error& error) {
    std::cerr << "toolwire serve: " << error.what() << "\nRun with --help for more information.\n";
    return 2;
  }
}

namespace {

//! Why: with many clients a model step's request is megabytes (about 1.2 MB of tools per
//! 10,000 clients), built, sent and freed at every step. glibc handed such blocks back to
//! the kernel as they were freed, and took fresh pages for the next step: page faults, which
//! cost the most on a VM, made up most of the server's time per turn (28-38 ms of CPU per
//! turn with 10,000 clients, 11 ms with the memory kept; bench_dispatch_latency). Blocks up
//! to 32 MiB now come from the heap, and up to 64 MiB of free heap stay mapped for reuse.
void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

}  // namespace

int serve_command::serve() const {
  const auto& o = options_;
  serve_plan plan;
  auto& core = plan.server.core;
  core.api_keys = parse_api_keys(o.api_keys, o.demo);
  check_timeouts(o);
  if (o.reserved_connections >= o.max_connections) {
    throw usage_error("--reserved-connections (" + std::to_string(o.reserved_connections) +
                      ") must be less than --max-connections (" +
                      std::to_string(o.max_connections) + "): event streams need some connections");
  }
  core.faults = parse_faults(o.faults);
  core.assistant_id = o.assistant_id;
  core.ack_timeout_ms = o.ack_timeout_ms;
  core.result_timeout_ms = o.result_timeout_ms;
  core.interrupt_timeout_ms = o.interrupt_timeout_ms;
  for (const auto& text : o.cors_origins) {
    auto origin = protocol::parse_origin(text);
    if (!origin) throw usage_error("--cors-origin: " + origin.error().message);
    core.cors_origins.push_back(std::move(*origin));
  }
  if (secret_seed_option_->count() > 0) {
    core.secret_seed = o.secret_seed;
    std::cerr << "toolwire serve: --secret-seed makes session tokens predictable; use it for "
                 "tests only\n";
  } else {
    core.token_entropy = web::os_entropy_128;
    try {
      (void)web::os_entropy_128();  // fail at start-up, not at the first session
    } catch (const std::runtime_error& error) {
      std::cerr << "toolwire serve: " << error.what() << "\n";
      return 1;
    }
  }
  if (o.demo && o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1") {
    throw usage_error(
        "--demo hands its session's token to whoever opens the page, so it "
        "listens on loopback only; drop --host " +
        o.host);
  }
  if (o.demo && o.model_url.empty() && o.model_script.empty()) {
    auto script = reference_server::model_script::parse(demo_asset("demo-model-script.json"),
                                                        "the demo model script");
    if (!script) throw std::logic_error(script.error().message);
    plan.script = std::move(*script);
  } else if (o.model_url.empty() == o.model_script.empty()) {
    throw usage_error("give exactly one of --model-url URL and --model-script FILE");
  } else if (!o.model_url.empty()) {
    auto url = web::parse_http_url(o.model_url);
    if (!url) throw usage_error(url.error().message);
    plan.openai.url = std::move(*url);
    if (model_api_key_option_->count() > 0) plan.openai.api_key = o.model_api_key;
    plan.openai.timeout = std::chrono::milliseconds(o.model_timeout_ms);
  } else {
    plan.script = load_script(o.model_script);
  }
  plan.server.host = o.host;
  plan.server.port = static_cast<std::uint16_t>(o.port);
  plan.server.clock = o.clock == "virtual" ? web::clock_kind::virtual_time : web::clock_kind::real;
  plan.server.keepalive = std::chrono::milliseconds(o.keepalive_ms);
  plan.server.log_requests = !o.quiet;
  plan.server.max_connections = o.max_connections;
  plan.server.max_streams_per_session = o.max_streams_per_session;
  plan.server.reserved_connections = o.reserved_connections;
  core.idle_expiry_ms = o.idle_expiry_ms;
  core.max_sessions = o.max_sessions;
  const auto variations = parse_variations(o.variations);
  keep_freed_memory_for_reuse();

  // One thread runs it (below); the hint lets Asio skip some of its cross-thread hand-offs.
  // It still locks, which the resolver's own thread (a --model-url host name) needs.
  net::io_context ioc{1};
  const auto core_origins = plan.server.core.cors_origins;
  reference_server::variations::model_source model = plan.openai;
  if (plan.script) model = std::move(*plan.script);
  const auto assembled = reference_server::variations::assemble_server(
      ioc, std::move(plan.server), std::move(model), variations);
  web::server& server = *assembled;
  net::ip::tcp::endpoint endpoint;
  try {
    endpoint = server.start();
  } catch (const boost::system::system_error& error) {
    std::cerr << "toolwire serve: cannot listen on " << o.host << ":" << o.port << ": "
              << error.code().message() << "\n";
    return 1;
  }
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&server](const boost::system::error_code& ec, int /*signal*/) {
    if (!ec) server.stop();
  });
  for (const auto v : variations) {
    std::cerr << "reference server: variation " << reference_server::variations::describe(v).name
              << "\n";
  }
  for (const auto& origin : core_origins)
    std::cerr << "reference server: CORS allows pages of " << origin << "\n";
  std::cout << "listening on " << url_of(endpoint) << std::endl;
  if (o.demo) {
    auto session = server.create_session();
    if (!session) {
      std::cerr << "toolwire serve: --demo could not create its session: "
                << session.error().message << "\n";
      return 1;
    }
    server.set_pages(demo_pages(*session));
    std::cout << "demo: open " << url_of(endpoint) << "/demo/ in a browser (session " << session->id
              << "); ask the model to highlight a row, switch to Form and ask "
              << "it to read the form, or close the tab while it is called" << std::endl;
  }
  // Why a loop: every connection handler catches what it throws; should anything still
  // escape into the io_context, the server logs it and goes on serving.
  while (true) {
    try {
      ioc.run();
      break;
    } catch (const std::exception&) {
      std::cerr << "reference server: internal error escaped a handler; still serving\n";
    }
  }
  std::cerr << "reference server: stopped\n";
  return 0;
}

}  // namespace toolwire::cli
