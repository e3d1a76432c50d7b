/* The operating system: name, release and kernel. */
#include <string.h>
#include <sys/utsname.h>

#include "machine/probe/probe.h"
#include "machine/probe/sysfile.h"
#include "util/internal.h"

/* The value of KEY=value in os-release text, without the quotes the format allows. */
static bool os_release_value(const char *text, const char *key, char *out, size_t size) {
    size_t key_len = strlen(key);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > key_len && memcmp(line, key, key_len) == 0 && line[key_len] == '=') {
            const char *v = line + key_len + 1;
            size_t n = len - key_len - 1;
            if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                v++;
                n -= 2;
            }
            if (n >= size)
                n = size - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return n > 0;
        }
        if (!end)
            break;
        line = end + 1;
    }
    return false;
}

static void read_or_unknown(const char *root, const char *path, char *out, size_t size) {
    if (!kb_sysfile_read(root, path, out, size) || out[0] == '\0')
        kb_copy_string(out, size, "unknown");
}

void kb_probe_os(kb_machine *m, const char *root, bool live) {
    struct utsname u;
    if (live && uname(&u) == 0) {
        kb_copy_string(m->kernel_name, sizeof m->kernel_name, u.sysname);
        kb_copy_string(m->kernel_release, sizeof m->kernel_release, u.release);
        kb_copy_string(m->kernel_version, sizeof m->kernel_version, u.version);
        kb_copy_string(m->hostname, sizeof m->hostname, u.nodename);
        kb_copy_string(m->arch, sizeof m->arch, u.machine);
    } else {
        /* uname's fields, as the kernel also exposes them. */
        read_or_unknown(root, "/proc/sys/kernel/ostype", m->kernel_name, sizeof m->kernel_name);
        read_or_unknown(root, "/proc/sys/kernel/osrelease", m->kernel_release,
                        sizeof m->kernel_release);
        read_or_unknown(root, "/proc/sys/kernel/version", m->kernel_version,
                        sizeof m->kernel_version);
        read_or_unknown(root, "/proc/sys/kernel/hostname", m->hostname, sizeof m->hostname);
        read_or_unknown(root, "/proc/sys/kernel/arch", m->arch, sizeof m->arch);
    }

    char text[4096];
    if ((kb_sysfile_read(root, "/etc/os-release", text, sizeof text) ||
         kb_sysfile_read(root, "/usr/lib/os-release", text, sizeof text)) &&
        (os_release_value(text, "PRETTY_NAME", m->os, sizeof m->os) ||
         os_release_value(text, "NAME", m->os, sizeof m->os)))
        return;
    kb_copy_string(m->os, sizeof m->os, m->kernel_name);
}
