// Session-token entropy from the operating system's CSPRNG.
#include "toolwire/reference_server/web/os_entropy.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace toolwire::reference_server::web {

std::array<std::uint64_t, 2> os_entropy_128() {
  std::array<std::uint64_t, 2> bits{};
  auto* bytes = reinterpret_cast<unsigned char*>(bits.data());
  std::size_t filled = 0;
  while (filled < sizeof bits) {
    const ssize_t got = getrandom(bytes + filled, sizeof bits - filled, 0);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      break;  // e.g. ENOSYS in an old sandbox: try the device
    }
  }
  if (filled == sizeof bits) return bits;
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (urandom.read(reinterpret_cast<char*>(bits.data()), sizeof bits)) return bits;
  throw std::runtime_error("no OS random source (getrandom and /dev/urandom both failed)");
}

}  // namespace toolwire::reference_server::web
