// What the kernel knows about a TCP socket that the process may not have read yet.
#pragma once

#include <cstdint>
#include <optional>

namespace toolwire::conformance::detail {

//! How many payload bytes the kernel has received in order on TCP socket `fd` since it
//! connected (TCP_INFO's tcpi_bytes_received, Linux 4.1 and later): the bytes already read
//! by the process and those still waiting on the socket. Nullopt where the kernel does not
//! tell. Safe to call from any thread.
std::optional<std::uint64_t> bytes_received(int fd);

//! How many connections wait in listening socket `fd`'s accept queue (TCP_INFO's
//! tcpi_unacked of a listener). Nullopt where the kernel does not tell.
std::optional<std::uint32_t> accept_queue(int fd);

}  // namespace toolwire::conformance::detail
