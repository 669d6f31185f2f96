# mcph_unit_tests(<target> [SHARDS <n>] [PROPERTIES <ctest properties...>])
#
# Registers the GoogleTest cases of a unit-test binary: tests of logic inside one process, none
# of which changes process-wide state a later test would see (limits, signal handlers, the
# working directory, the environment without restoring it).
#
# Normal builds: one ctest test per case (gtest_discover_tests), so `ctest -R Name` runs one case.
# Sanitizer builds (MCPH_SANITIZE, MCPH_TSAN): <n> ctest tests (default 1), each running a share
# of the cases in one process with GoogleTest's own sharding (GTEST_TOTAL_SHARDS/SHARD_INDEX).
# Why: a sanitizer process pays ~0.3 s to start on the CI machine (relocating and faulting in
# tens of MB of instrumented code and sanitizer data), and test_host_unit's 836 cases, one process
# each, cost 316 s of the ASan stage for 15 s of testing. Running cases side by side in one
# process is also a check the per-case runs cannot make: state one case leaves behind that
# breaks another, or memory one frees that another still uses.
function(mcph_unit_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SHARDS" "PROPERTIES")
  if(NOT (MCPH_SANITIZE OR MCPH_TSAN))
    if(arg_PROPERTIES)
      gtest_discover_tests(${target} PROPERTIES ${arg_PROPERTIES})
    else()
      gtest_discover_tests(${target})
    endif()
    return()
  endif()
  if(NOT arg_SHARDS)
    set(arg_SHARDS 1)
  endif()
  math(EXPR last "${arg_SHARDS} - 1")
  foreach(index RANGE ${last})
    set(name "${target}[shard ${index}/${arg_SHARDS}]")
    add_test(NAME "${name}" COMMAND $<TARGET_FILE:${target}>)
    # ENVIRONMENT_MODIFICATION, not ENVIRONMENT: a caller's own ENVIRONMENT in PROPERTIES then
    # adds to the shard variables instead of replacing them (which would run every case per shard).
    set_tests_properties("${name}" PROPERTIES
      ENVIRONMENT_MODIFICATION "GTEST_TOTAL_SHARDS=set:${arg_SHARDS};GTEST_SHARD_INDEX=set:${index}" ${arg_PROPERTIES})
  endforeach()
endfunction()
