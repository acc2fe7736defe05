// Session-token entropy from the operating system's CSPRNG, for `toolwire serve`.
#pragma once

#include <array>
#include <cstdint>

namespace toolwire::reference_server::web {

//! 128 bits from getrandom(2) (the kernel's CSPRNG), falling back to /dev/urandom.
//! Throws std::runtime_error when neither answers: a server without unpredictable
//! tokens must not start (AUTH-3). Meant for `core_config::token_entropy`.
std::array<std::uint64_t, 2> os_entropy_128();

}  // namespace toolwire::reference_server::web
