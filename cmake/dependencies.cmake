# Third-party dependencies, all from Debian 12 packages (see scripts/bootstrap).

find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(Boost 1.81 EXACT REQUIRED)
# Boost's failed assertions go to one handler, which skips one assertion of Beast 1.81
# that a legal byte sequence trips (why: cmake/boost_assert_handler.cpp). Every target
# that uses Boost gets the definition and the handler through Boost::headers, so no
# translation unit sees BOOST_ASSERT defined otherwise.
add_library(toolwire_boost_assert STATIC ${CMAKE_CURRENT_LIST_DIR}/boost_assert_handler.cpp)
# Why only where asserts are on: with NDEBUG the definition changes nothing (Boost's
# assertions are compiled out), and leaving it off keeps those builds' compiler cache.
string(TOUPPER "${CMAKE_BUILD_TYPE}" toolwire_build_type)
if(NOT "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${toolwire_build_type}}" MATCHES "-DNDEBUG")
  target_compile_definitions(toolwire_boost_assert INTERFACE BOOST_ENABLE_ASSERT_DEBUG_HANDLER)
endif()
set_property(TARGET Boost::headers APPEND PROPERTY INTERFACE_LINK_LIBRARIES toolwire_boost_assert)

# CAF 0.17.6 ships no CMake config: wrap the headers and libraries ourselves.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
find_library(CAF_IO_LIBRARY caf_io REQUIRED)
add_library(caf::core UNKNOWN IMPORTED)
set_target_properties(caf::core PROPERTIES IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
                                           INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
                                           INTERFACE_LINK_LIBRARIES Threads::Threads)
add_library(caf::io UNKNOWN IMPORTED)
set_target_properties(caf::io PROPERTIES IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
                                         INTERFACE_LINK_LIBRARIES caf::core)

find_package(CLI11 REQUIRED)

# The scenario language (scenarios/) reads YAML; the package's target is plain `yaml-cpp`.
find_package(yaml-cpp 0.7 REQUIRED)

if(TOOLWIRE_TESTS)
  find_path(CATCH2_INCLUDE_DIR catch2/catch.hpp REQUIRED)
  add_library(catch2 INTERFACE)
  target_include_directories(catch2 SYSTEM INTERFACE "${CATCH2_INCLUDE_DIR}")
  find_package(rapidcheck REQUIRED)
endif()
