// The one Catch2 main every test executable links (compiled once, as an object library).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
