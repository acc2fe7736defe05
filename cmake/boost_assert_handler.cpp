// Boost's assertion handler for every target that uses Boost (cmake/dependencies.cmake
// defines BOOST_ENABLE_ASSERT_DEBUG_HANDLER on Boost::headers). Where asserts are on (no
// NDEBUG: a Debug build, the sanitizer build of scripts/test) a failed Boost assertion
// still aborts with its expression and place, as BOOST_ASSERT would, with one exception
// below; with NDEBUG Boost's assertions stay compiled out, as before.
//
// Why a handler at all: Boost.Beast 1.81's chunked-body parser asserts `n >= 5` when it
// resumes a last chunk, but 3 or 4 bytes are legal there: a peer that sends "0\r\n", then
// "\r", then "\n" (or whose bytes arrive so) reaches it, and the code after the assertion
// correctly asks for more bytes. Fixed upstream in Boost 1.86 (boostorg/beast#2861); until
// Debian ships it, that assertion alone is skipped, so no byte sequence from a client (to
// the reference server) or from a target (to the suite) aborts a build with asserts on.
// Found by fuzz/http_request; the input is fuzz/regressions/http_request/last_chunk_in_pieces.
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

bool is_beast_last_chunk_assertion(std::string_view expression, std::string_view file) {
  return expression == "n >= 5" && file.ends_with("boost/beast/http/impl/basic_parser.ipp");
}

[[noreturn]] void fail(char const* expression, char const* message, char const* function,
                       char const* file, long line) {
  std::fprintf(stderr, "%s:%ld: %s: Assertion `%s' failed%s%s.\n", file, line, function, expression,
               message ? ": " : "", message ? message : "");
  std::abort();
}

}  // namespace

namespace boost {

// Declared here, not by <boost/assert.hpp>, which declares them only without NDEBUG.
void assertion_failed(char const* expression, char const* function, char const* file, long line);
void assertion_failed_msg(char const* expression, char const* message, char const* function,
                          char const* file, long line);

void assertion_failed(char const* expression, char const* function, char const* file, long line) {
  if (is_beast_last_chunk_assertion(expression, file)) return;
  fail(expression, nullptr, function, file, line);
}

void assertion_failed_msg(char const* expression, char const* message, char const* function,
                          char const* file, long line) {
  fail(expression, message, function, file, line);
}

}  // namespace boost
