// A browser case's screenshots, from the run's scratch files into its report.
#include "tab_screenshots.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "toolwire/conformance/runner.hpp"

namespace toolwire::conformance {

protocol::outcome<scratch_directory> scratch_directory::make(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    return protocol::invalid_request("cannot make a directory for the tabs' screenshots (" +
                                     pattern + "): " + std::strerror(errno));
  }
  return scratch_directory(std::string(buffer.data()));
}

scratch_directory::~scratch_directory() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string base64(const std::string& bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (const auto left = bytes.size() - i; left > 0) {
    const unsigned n = (byte(i) << 16) | (left == 2 ? byte(i + 1) << 8 : 0U);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += left == 2 ? alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

void embed_screenshots(case_result& result) {
  for (auto& record : result.trace) {
    if (!record.is_object() || record.value("kind", "") != "tab_evidence") continue;
    auto& data = record["data"];
    if (!data.is_object() || !data.contains("screenshot") || !data["screenshot"].is_string())
      continue;
    const auto path = data["screenshot"].get<std::string>();
    data.erase("screenshot");  // a scratch file's path, gone after the run
    if (result.verdict != verdict::pass) {
      std::ifstream in(path, std::ios::binary);
      const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (in.bad() || png.empty()) {
        data["screenshot_error"] = "the screenshot " + path + " could not be read";
      } else {
        data["screenshot_png"] = base64(png);
      }
    }
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
}

}  // namespace toolwire::conformance
