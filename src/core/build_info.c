/* What this library was built from and with: version, commit, compiler and flags. */
#include "build_info.h"
#include "git_commit.h"
#include "kbench/version.h"

const kb_build_info *kb_build_info_get(void) {
    static const kb_build_info info = {
        .version = KB_VERSION_STRING,
        .git_commit = KB_GIT_COMMIT,
        .git_branch = KB_GIT_BRANCH,
        .compiler = KB_BUILD_COMPILER,
        .c_flags = KB_BUILD_C_FLAGS,
        .build_type = KB_BUILD_TYPE,
        .arch = KB_BUILD_ARCH,
        .sanitizers = KB_BUILD_SANITIZERS,
#ifdef __OPTIMIZE__
        .optimized = true,
#else
        .optimized = false,
#endif
    };
    return &info;
}
