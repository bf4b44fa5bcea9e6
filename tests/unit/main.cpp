// The one doctest main for cake_unit_tests; every tests/unit/test_<topic>.cpp only includes
// <doctest/doctest.h> and defines TEST_CASEs.  Run `cake_unit_tests --help` for doctest's filters.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
