// The preflight of a run against a --target: before any case runs, check that the target
// can be checked at all, so that a wrong base_url or key is one sentence (exit 2), not
// hundreds of failures.
#pragma once

#include <string>

#include "toolwire/conformance/target_profile.hpp"

namespace toolwire::conformance {

//! Checks, in order, and stops at the first failure:
//! 1. the target answers and takes the key: `POST /v1/sessions` answers 201 (Part A);
//! 2. the test clock answers `GET /v1/_test/clock` when the profile claims it;
//! 3. the target calls the model stand-in: a message in the new session (Part A) and a
//!    task (Part B: `POST /api/tasks` answers 201) each reach it within
//!    request_timeout_ms, tagged `[tw:preflight...]`.
//! (With Part B only, the task comes first and the clock last.)
//! Returns "" when all pass, else one sentence naming the cause, e.g.
//! `POST /v1/sessions answered 404: is base_url right?`. Never quotes a key.
std::string preflight(const target_profile& profile);

}  // namespace toolwire::conformance
