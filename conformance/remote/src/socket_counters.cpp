// Why a file of its own, outside the unity batches: <linux/tcp.h> is the only header with
// tcpi_bytes_received, and its struct tcp_info clashes with glibc's <netinet/tcp.h>, which
// Asio includes.
#include "socket_counters.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace toolwire::conformance::detail {

std::optional<std::uint64_t> bytes_received(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  // An older kernel fills a shorter struct, without the counter.
  const auto needed = offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received;
  if (length < needed) return std::nullopt;
  return info.tcpi_bytes_received;
}

std::optional<std::uint32_t> accept_queue(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  const auto needed = offsetof(tcp_info, tcpi_unacked) + sizeof info.tcpi_unacked;
  if (length < needed) return std::nullopt;
  return info.tcpi_unacked;
}

}  // namespace toolwire::conformance::detail
