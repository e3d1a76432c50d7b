# Runs one libFuzzer target on a fresh copy of its seeds, for SECONDS seconds:
#   cmake -DFUZZER=... -DSEEDS=... -DCORPUS=... -DDICT=... -DSECONDS=... -P run_fuzzer.cmake
# A crash leaves its input as crash-* in the working directory (the build tree), which the
# failure message names.
file(REMOVE_RECURSE ${CORPUS})
file(MAKE_DIRECTORY ${CORPUS})
file(GLOB seeds ${SEEDS}/*)
file(COPY ${seeds} DESTINATION ${CORPUS})
list(LENGTH seeds count)
message(STATUS "fuzzing ${FUZZER} for ${SECONDS} s from ${count} seeds")
set(args ${CORPUS} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
         -print_final_stats=1)
if(EXISTS ${DICT})
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${result}); the input that broke it is in the "
                      "working directory as crash-*, leak-* or timeout-*")
endif()
