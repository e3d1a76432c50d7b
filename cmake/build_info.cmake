# build_info.h: compiler, flags and build type are fixed at configure time; the git commit is
# refreshed on every build by cmake/git_commit.cmake, so it never goes stale.
string(TOUPPER "${CMAKE_BUILD_TYPE}" KB_BUILD_TYPE_UPPER)
set(KB_EFFECTIVE_C_FLAGS "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${KB_BUILD_TYPE_UPPER}}")
if(KB_SANITIZE OR KB_FUZZ)
  set(KB_EFFECTIVE_C_FLAGS "${KB_EFFECTIVE_C_FLAGS} -fsanitize=address,undefined")
  set(KB_BUILD_SANITIZERS 1)
else()
  set(KB_BUILD_SANITIZERS 0)
endif()
string(STRIP "${KB_EFFECTIVE_C_FLAGS}" KB_EFFECTIVE_C_FLAGS)
set(KB_COMPILER "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
set(KB_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
configure_file(${CMAKE_SOURCE_DIR}/cmake/build_info.h.in ${KB_GENERATED_DIR}/build_info.h @ONLY)
add_custom_target(kb_git_commit
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${KB_GENERATED_DIR}/git_commit.h -P ${CMAKE_SOURCE_DIR}/cmake/git_commit.cmake
  BYPRODUCTS ${KB_GENERATED_DIR}/git_commit.h
  COMMENT "Recording the git commit")
