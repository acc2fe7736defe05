// The Catch2 main, alone in its translation unit so test files compile independently.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
