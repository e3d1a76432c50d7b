/* Reading .npy files into arrays, memory-mapped when large. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/byteswap.h"
#include "core/fail.h"
#include "core/npy_format.h"
#include "core/owner.h"
#include "kbench/memory.h"
#include "kbench/npy.h"

/* A file must hold exactly the bytes its header describes: a shorter one lost data, a longer
 * one is not what the header says it is (NumPy itself ignores trailing bytes, kbench does
 * not, since they usually mean a writer went wrong). */
static kb_status check_length(const kb_npy_header *h, size_t size) {
    size_t have = size - h->data_offset; /* parsing checked that the header fits */
    if (have != h->data_size)
        return kb_fail(KB_EFORMAT, "npy: data is %zu bytes, header says %zu", have, h->data_size);
    return KB_OK;
}

/* Turns data laid out as the header says, in writable memory, into a native-order view. */
static kb_status make_view(kb_array *out, const kb_npy_header *h, void *data) {
    size_t itemsize = kb_dtype_size(h->dtype);
    if (itemsize > 1 && h->byteorder != KB_NPY_HOST_ORDER)
        kb_byteswap(data, h->data_size / itemsize, itemsize);
    int64_t strides[KB_MAX_DIMS];
    kb_contiguous_strides(h->ndim, h->shape, itemsize, h->fortran_order ? KB_ORDER_F : KB_ORDER_C,
                          strides);
    return kb_array_view(out, h->dtype, h->ndim, h->shape, strides, data, 0);
}

/* Copies the data into its own aligned allocation, so the array outlives buf. */
static kb_status copy_out(const unsigned char *buf, const kb_npy_header *h, kb_array *out) {
    void *data = kb_aligned_alloc(h->data_size);
    if (!data)
        return KB_ENOMEM;
    memcpy(data, buf + h->data_offset, h->data_size);
    kb_array a;
    kb_status st = make_view(&a, h, data);
    if (st != KB_OK) {
        kb_aligned_free(data);
        return st;
    }
    a.owned = data;
    a.owned_size = h->data_size;
    a.owned_kind = KB_OWNED_ALIGNED;
    *out = a;
    return KB_OK;
}

kb_status kb_npy_read_buffer(const void *buf, size_t size, kb_array *out, kb_npy_header *header) {
    if (!out)
        return kb_fail(KB_EINVAL, "npy: no array to fill");
    kb_npy_header h;
    kb_status st = kb_npy_parse_header_as(buf, size, KB_NPY_AS_NONE, &h);
    if (st == KB_OK)
        st = check_length(&h, size);
    if (st == KB_OK)
        st = copy_out(buf, &h, out);
    if (st == KB_OK && header)
        *header = h;
    return st;
}

/* Rewrites the last message as "<path>: <message>", dropping the "npy: " every message of
 * this module starts with, since the path already says which file it is about. */
static kb_status with_path(kb_status st, const char *path) {
    char message[512];
    snprintf(message, sizeof message, "%s", kb_last_error());
    const char *rest = strncmp(message, "npy: ", 5) == 0 ? message + 5 : message;
    return kb_fail(st, "%s: %s", path, rest);
}

static kb_status read_all(int fd, void *buf, size_t size, off_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (char *)buf + done, size - done, offset + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return kb_fail(KB_EIO, "cannot read: %s", strerror(errno));
        if (n == 0)
            return kb_fail(KB_EIO, "the file shrank while being read");
        done += (size_t)n;
    }
    return KB_OK;
}

static kb_status open_regular(const char *path, int *fd, size_t *size) {
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return kb_fail(KB_EIO, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0) {
        kb_status s = kb_fail(KB_EIO, "cannot stat: %s", strerror(errno));
        close(*fd);
        return s;
    }
    if (!S_ISREG(st.st_mode)) {
        close(*fd);
        return kb_fail(KB_EIO, "not a regular file");
    }
    *size = (size_t)st.st_size;
    return KB_OK;
}

/* Large files are mapped copy-on-write: the array reads the page cache directly, and byte
 * swapping or writes through the array never reach the file. (As with any mapping, a file
 * truncated by another process while mapped raises SIGBUS on access.) */
static kb_status read_mapped(int fd, size_t size, kb_dtype as, kb_array *out, kb_npy_header *h) {
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return kb_fail(KB_EIO, "cannot map: %s", strerror(errno));
    kb_status st = kb_npy_parse_header_as(map, size, as, h);
    if (st == KB_OK)
        st = check_length(h, size);
    if (st != KB_OK) {
        munmap(map, size);
        return st;
    }
    /* Only writers other than NumPy put the data at an offset that is not a multiple of the
     * item size; copy then, since the kernels may assume aligned elements. */
    if (h->data_offset % kb_dtype_size(h->dtype) != 0) {
        st = copy_out(map, h, out);
        munmap(map, size);
        return st;
    }
    kb_array a;
    st = make_view(&a, h, (char *)map + h->data_offset);
    if (st != KB_OK) {
        munmap(map, size);
        return st;
    }
    a.owned = map;
    a.owned_size = size;
    a.owned_kind = KB_OWNED_MMAP;
    *out = a;
    return KB_OK;
}

/* Small files are read whole into one aligned buffer that the array then owns; NumPy puts
 * the data at a multiple of 64 bytes, so it is used in place, otherwise moved to the front. */
static kb_status read_copied(int fd, size_t size, kb_dtype as, kb_array *out, kb_npy_header *h) {
    unsigned char *buf = kb_aligned_alloc(size);
    if (!buf)
        return KB_ENOMEM;
    kb_status st = read_all(fd, buf, size, 0);
    if (st == KB_OK)
        st = kb_npy_parse_header_as(buf, size, as, h);
    if (st == KB_OK)
        st = check_length(h, size);
    if (st != KB_OK) {
        kb_aligned_free(buf);
        return st;
    }
    unsigned char *data = buf + h->data_offset;
    if (h->data_offset % KB_ALIGNMENT != 0) {
        memmove(buf, data, h->data_size);
        data = buf;
    }
    kb_array a;
    st = make_view(&a, h, data);
    if (st != KB_OK) {
        kb_aligned_free(buf);
        return st;
    }
    a.owned = buf;
    a.owned_size = size;
    a.owned_kind = KB_OWNED_ALIGNED;
    *out = a;
    return KB_OK;
}

kb_status kb_npy_read_as(const char *path, kb_dtype as, kb_array *out, kb_npy_header *header) {
    if (!path || !out)
        return kb_fail(KB_EINVAL, "npy: no path or no array to fill");
    if ((unsigned)as > KB_NPY_AS_NONE)
        return kb_fail(KB_EINVAL, "npy: invalid dtype %d to read void items as", (int)as);
    int fd;
    size_t size;
    kb_status st = open_regular(path, &fd, &size);
    if (st != KB_OK)
        return with_path(st, path);
    kb_npy_header h;
    if (size >= KB_NPY_MMAP_THRESHOLD)
        st = read_mapped(fd, size, as, out, &h);
    else
        st = read_copied(fd, size, as, out, &h);
    close(fd);
    if (st != KB_OK)
        return with_path(st, path);
    if (header)
        *header = h;
    return KB_OK;
}

kb_status kb_npy_read_header_as(const char *path, kb_dtype as, kb_npy_header *header) {
    if (!path || !header)
        return kb_fail(KB_EINVAL, "npy: no path or no header to fill");
    if ((unsigned)as > KB_NPY_AS_NONE)
        return kb_fail(KB_EINVAL, "npy: invalid dtype %d to read void items as", (int)as);
    int fd;
    size_t size;
    kb_status st = open_regular(path, &fd, &size);
    if (st != KB_OK)
        return with_path(st, path);
    /* Read the fixed prefix first, then exactly the header it announces (bounded by the
     * file's size, so a lying length cannot make this allocate more than the file). */
    unsigned char prefix[12];
    size_t want = size < sizeof prefix ? size : sizeof prefix;
    st = read_all(fd, prefix, want, 0);
    unsigned char *buf = NULL;
    if (st == KB_OK) {
        size_t end = kb_npy_header_end(prefix, want);
        if (end > want) {
            want = end < size ? end : size;
            buf = malloc(want);
            if (!buf)
                st = kb_fail(KB_ENOMEM, "cannot allocate %zu bytes for the header", want);
            else
                st = read_all(fd, buf, want, 0);
        }
    }
    kb_npy_header h;
    if (st == KB_OK)
        st = kb_npy_parse_header_as(buf ? buf : prefix, want, as, &h);
    if (st == KB_OK)
        st = check_length(&h, size);
    free(buf);
    close(fd);
    if (st != KB_OK)
        return with_path(st, path);
    *header = h;
    return KB_OK;
}

kb_status kb_npy_read(const char *path, kb_array *out, kb_npy_header *header) {
    return kb_npy_read_as(path, KB_NPY_AS_NONE, out, header);
}

kb_status kb_npy_read_header(const char *path, kb_npy_header *header) {
    return kb_npy_read_header_as(path, KB_NPY_AS_NONE, header);
}
