# Registers one ctest test per GoogleTest suite of a test executable (run after the executable is built, from
# tests/CMakeLists.txt's pimg_test_dir; the way CMake's gtest_discover_tests works, one process per suite instead
# of one per test). Every test of a suite runs in one process: the suite's set-up (a tuning in SetUpTestSuite, a
# PoCL or NVRTC context) runs once, and the ~0.1-0.3 s a process costs to start (more under ASan) is paid once per
# suite, not once per test. The suite's output still reports each of its tests (docs/ci.md).
#
# -D EXE=the executable -D OUT=the ctest file to write -D LABEL=label -D TIMEOUT=seconds per test
# -D SMOKE=suites also labelled smoke -D ENVIRONMENT=NAME=value... -D EXTRA=property value ... (lists separated by |)
# A suite's timeout is TIMEOUT times its number of tests, at most four times TIMEOUT; its COST (the order a fresh
# ctest starts tests in, longest first) is its number of tests. A suite whose tests all skipped (no GPU) exits 77
# (tests/main/gtest_main.cpp) and is reported as skipped.
cmake_minimum_required(VERSION 3.20)
foreach(list SMOKE ENVIRONMENT EXTRA)
  string(REPLACE "|" ";" ${list} "${${list}}")
endforeach()
list(JOIN EXTRA " " extra)
execute_process(COMMAND "${EXE}" --gtest_list_tests OUTPUT_VARIABLE listing RESULT_VARIABLE rc ERROR_VARIABLE err
                TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gtest_suites: ${EXE} --gtest_list_tests failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.")  # "Suite." or "Prefix/Suite.  # TypeParam = ..."
    set(suite "${CMAKE_MATCH_1}")
    if(suite MATCHES "^DISABLED_")
      set(suite "")
    else()
      list(APPEND suites "${suite}")
      set(count_${suite} 0)
    endif()
  elseif(suite AND line MATCHES "^  ([^ ]+)" AND NOT CMAKE_MATCH_1 MATCHES "^DISABLED_")
    math(EXPR count_${suite} "${count_${suite}} + 1")
  endif()
endforeach()
set(text "# Written by cmake/gtest_suites.cmake from ${EXE} --gtest_list_tests\n")
foreach(suite IN LISTS suites)
  set(n ${count_${suite}})
  if(n EQUAL 0)
    continue()
  endif()
  set(labels "${LABEL}")
  if(suite IN_LIST SMOKE)
    string(APPEND labels "\\;smoke")
  endif()
  set(factor ${n})
  if(factor GREATER 4)
    set(factor 4)
  endif()
  math(EXPR timeout "${TIMEOUT} * ${factor}")
  string(REPLACE ";" "\\;" env "${ENVIRONMENT}")
  string(APPEND text "add_test([=[${suite}]=] \"${EXE}\" [=[--gtest_filter=${suite}.*]=])\n"
                     "set_tests_properties([=[${suite}]=] PROPERTIES LABELS \"${labels}\" TIMEOUT ${timeout} COST ${n}"
                     " ENVIRONMENT \"${env}\" SKIP_RETURN_CODE 77 ${extra})\n")
endforeach()
file(WRITE "${OUT}" "${text}")
