"""`make install` layout: install the build into a temporary prefix, then compile and run a
program against it using only `pkg-config --cflags --libs kbench`, as a user would."""
import os
import sys
import subprocess
import tempfile

from harness import install, linked_env

PROGRAM = r"""
#include <stdio.h>
#include <kbench/kbench.h>

int main(void)
{
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t shape[2] = {2, 3};
    kb_array a, out;
    if (kb_array_view(&a, KB_F32, 2, shape, NULL, data, 0) != KB_OK)
        return 1;
    kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_SUM, 0);
    if (kb_reduce(&a, &args, &out) != KB_OK) {
        fprintf(stderr, "%s\n", kb_last_error());
        return 1;
    }
    const float *s = out.data;
    printf("%g %g %g %s %s\n", s[0], s[1], s[2], kb_build_info_get()->version,
           KB_VERSION_STRING);
    kb_array_free(&out);
    return 0;
}
"""


def main():
    with tempfile.TemporaryDirectory() as prefix:
        env, flags = install(prefix)
        for path in ["bin/kbench", "include/kbench/kbench.h", "include/kbench/version.h",
                     "share/kbench/baselines/runner.py"]:
            assert os.path.exists(os.path.join(prefix, path)), path
        # version.h is generated from its template, which stays behind.
        assert not os.path.exists(os.path.join(prefix, "include/kbench/version.h.in"))
        src = os.path.join(prefix, "user.c")
        exe = os.path.join(prefix, "user")
        with open(src, "w") as f:
            f.write(PROGRAM)
        subprocess.run(["cc", "-std=c17", src, "-o", exe] + flags, check=True, env=env)
        out = subprocess.run([exe], env=linked_env(flags), check=True, capture_output=True,
                             text=True).stdout.split()
        assert out[:3] == ["5", "7", "9"], out
        # The library, the installed header and kbench agree on the version CMake set.
        version = subprocess.run([sys.argv[1], "--version"], check=True, capture_output=True,
                                 text=True).stdout.split()[1]
        assert out[3:] == [version, version], (out, version)
        print(f"install: pkg-config flags {' '.join(flags)}; user program printed {' '.join(out)}")
        print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
