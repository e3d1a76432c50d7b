# Writes git_commit.h with the current commit and branch, touching it only when they change.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(commit "${commit}-dirty")
  endif()
endif()
# The branch checked out; "unknown" outside git and on a detached HEAD (as CI checkouts often
# are: a run's --branch says it then).
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --abbrev-ref HEAD
                OUTPUT_VARIABLE branch OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR branch STREQUAL "" OR branch STREQUAL "HEAD")
  set(branch "unknown")
endif()
string(REPLACE "\\" "\\\\" branch "${branch}")
string(REPLACE "\"" "\\\"" branch "${branch}")
set(content "#define KB_GIT_COMMIT \"${commit}\"\n#define KB_GIT_BRANCH \"${branch}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUTPUT} "${content}")
endif()
