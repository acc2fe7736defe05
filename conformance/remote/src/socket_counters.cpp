// Why a file of its own, outside the unity batches: <linux/tcp.h> is the only header with
// tcpi_bytes_received, and its struct tcp_info clashes with glibc's <netinet/tcp.h>, which
// Asio includes.
#include "socket_counters.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace toolwire::conformance::detail {

namespace {

//! TCP_INFO of socket `fd`, when the kernel filled it up to `end` bytes at least (an older
//! kernel fills a shorter struct, without the later fields).
std::optional<tcp_info> info_up_to(int fd, std::size_t end) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || length < end)
    return std::nullopt;
  return info;
}

}  // namespace

std::optional<std::uint64_t> bytes_received(int fd) {
  const auto info = info_up_to(
      fd, offsetof(tcp_info, tcpi_bytes_received) + sizeof(tcp_info::tcpi_bytes_received));
  if (!info) return std::nullopt;
  return info->tcpi_bytes_received;
}

std::optional<std::uint32_t> accept_queue(int fd) {
  const auto info =
      info_up_to(fd, offsetof(tcp_info, tcpi_unacked) + sizeof(tcp_info::tcpi_unacked));
  if (!info) return std::nullopt;
  return info->tcpi_unacked;
}

}  // namespace toolwire::conformance::detail
