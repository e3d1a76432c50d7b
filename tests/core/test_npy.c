/* .npy reading and writing: round trips through files and memory for every dtype, order,
 * format version and rank; hand-built files in the other byte order and with unusual but
 * valid headers; the writer on strided views; the memory-mapped path; and malformed input,
 * which must fail with a status and a one-line message, never crash. Files live in a fresh
 * directory from mkdtemp, removed at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/owner.h"
#include "kbench/memory.h"
#include "kbench/npy.h"
#include "test_util.h"

static test_dir dir;

static int create_dir(void **state) {
    return test_dir_create(&dir);
}

static int destroy_dir(void **state) {
    return test_dir_destroy(&dir);
}

static test_rng rng = {20240611};

/* Random bytes in every element (NaN payloads included: same-dtype round trips are
 * bitwise), except bool, which holds 0 or 1. */
static void fill_random(kb_array *a) {
    size_t itemsize = kb_array_itemsize(a);
    int64_t n = kb_array_size(a);
    int64_t index[KB_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        unsigned char *p = kb_array_at(a, index);
        for (size_t b = 0; b < itemsize; b++)
            p[b] =
                a->dtype == KB_BOOL ? test_rng_next(&rng) & 1 : (unsigned char)test_rng_next(&rng);
        for (int i = a->ndim - 1; i >= 0; i--) {
            if (++index[i] < a->shape[i])
                break;
            index[i] = 0;
        }
    }
}

/* Same dtype, same shape and the same bytes at every index, whatever the strides. */
static void assert_same_elements(const kb_array *a, const kb_array *b) {
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->ndim, b->ndim);
    for (int i = 0; i < a->ndim; i++)
        assert_int_equal(a->shape[i], b->shape[i]);
    int64_t n = kb_array_size(a);
    int64_t index[KB_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        assert_memory_equal(kb_array_at(a, index), kb_array_at(b, index), kb_array_itemsize(a));
        for (int i = a->ndim - 1; i >= 0; i--) {
            if (++index[i] < a->shape[i])
                break;
            index[i] = 0;
        }
    }
}

static void assert_one_line_error(kb_status st) {
    assert_true(st < 0);
    const char *m = kb_last_error();
    assert_true(strlen(m) > 0);
    assert_null(strchr(m, '\n'));
    assert_null(strchr(m, '\r'));
}

/* Writes array to a file, checks the file's layout, reads it back from the file and from
 * memory, and compares. */
static void round_trip(const kb_array *a, kb_order order, int major) {
    char path[1024];
    test_dir_path(&dir, "round_trip.npy", path, sizeof path);
    assert_int_equal(kb_npy_write(path, a, order, major), KB_OK);

    size_t size;
    unsigned char *file = test_read_file(path, &size);
    assert_memory_equal(file, "\x93NUMPY", 6);
    assert_int_equal(file[6], major ? major : 1);
    assert_int_equal(file[7], 0);

    kb_array r;
    kb_npy_header h;
    assert_int_equal(kb_npy_read(path, &r, &h), KB_OK);
    assert_int_equal(h.major, major ? major : 1);
    assert_int_equal(h.minor, 0);
    assert_int_equal(h.dtype, a->dtype);
    assert_int_equal(h.fortran_order, order == KB_ORDER_F);
    assert_int_equal(h.data_offset % 64, 0);
    assert_int_equal(h.data_offset + h.data_size, size);
    assert_int_equal(file[h.data_offset - 1], '\n');
    char expected_order = kb_dtype_size(a->dtype) == 1 ? '|' : '<';
    assert_int_equal(h.byteorder, expected_order);
    assert_int_equal(h.ndim, a->ndim);
    assert_int_equal((uintptr_t)r.data % KB_ALIGNMENT, 0);
    assert_true(order == KB_ORDER_F ? kb_array_is_f_contiguous(&r) : kb_array_is_c_contiguous(&r));
    assert_same_elements(a, &r);
    kb_array_free(&r);

    kb_npy_header hb;
    assert_int_equal(kb_npy_read_buffer(file, size, &r, &hb), KB_OK);
    assert_memory_equal(&hb, &h, sizeof h);
    assert_same_elements(a, &r);
    kb_array_free(&r);

    assert_int_equal(kb_npy_read_header(path, &hb), KB_OK);
    assert_memory_equal(&hb, &h, sizeof h);
    free(file);
    unlink(path);
}

static void every_dtype_order_and_version(void **state) {
    const int64_t shape[3] = {3, 4, 5};
    for (int d = 0; d < KB_DTYPE_COUNT; d++) {
        for (int o = 0; o < 2; o++) {
            kb_array a;
            assert_int_equal(kb_array_new(&a, (kb_dtype)d, 3, shape, (kb_order)o), KB_OK);
            fill_random(&a);
            for (int major = 0; major <= 3; major++) {
                round_trip(&a, KB_ORDER_C, major);
                round_trip(&a, KB_ORDER_F, major);
            }
            kb_array_free(&a);
        }
    }
}

static void every_rank(void **state) {
    int64_t shape[KB_MAX_DIMS];
    for (int ndim = 0; ndim <= KB_MAX_DIMS; ndim++) {
        for (int i = 0; i < ndim; i++)
            shape[i] = i % 6 == 1 ? 2 : i % 6 == 4 ? 3 : 1;
        kb_array a;
        assert_int_equal(kb_array_new(&a, KB_F64, ndim, shape, KB_ORDER_C), KB_OK);
        fill_random(&a);
        round_trip(&a, KB_ORDER_C, 0);
        round_trip(&a, KB_ORDER_F, 3);
        kb_array_free(&a);
    }
}

static void empty_arrays(void **state) {
    const int64_t shapes[][3] = {{0, 0, 0}, {5, 0, 0}, {2, 0, 3}, {0, 7, 1}};
    const int ndims[] = {1, 2, 3, 3};
    for (size_t k = 0; k < sizeof ndims / sizeof ndims[0]; k++) {
        kb_array a;
        assert_int_equal(kb_array_new(&a, KB_INT32, ndims[k], shapes[k], KB_ORDER_C), KB_OK);
        round_trip(&a, KB_ORDER_C, 1);
        round_trip(&a, KB_ORDER_F, 2);
        kb_array_free(&a);
    }
    /* A borrowed view of an empty array may have no data at all. */
    kb_array v;
    const int64_t zero[1] = {0};
    assert_int_equal(kb_array_view(&v, KB_F32, 1, zero, NULL, NULL, 0), KB_OK);
    round_trip(&v, KB_ORDER_C, 0);
}

/* The writer must follow any strides: every other column, reversed rows, a transpose and a
 * broadcast (stride 0), written in both orders. */
static void strided_views(void **state) {
    const int64_t shape[2] = {6, 8};
    kb_array base;
    assert_int_equal(kb_array_new(&base, KB_INT32, 2, shape, KB_ORDER_C), KB_OK);
    int32_t *v = base.data;
    for (int i = 0; i < 48; i++)
        v[i] = i * 7 - 100;

    kb_array view;
    const int64_t cols_shape[2] = {6, 4}, cols_strides[2] = {32, 8};
    assert_int_equal(kb_array_view(&view, KB_INT32, 2, cols_shape, cols_strides, v, 0), KB_OK);
    round_trip(&view, KB_ORDER_C, 0);
    round_trip(&view, KB_ORDER_F, 0);

    const int64_t rev_strides[2] = {-32, -4};
    assert_int_equal(kb_array_view(&view, KB_INT32, 2, shape, rev_strides, v + 47, 0), KB_OK);
    round_trip(&view, KB_ORDER_C, 1);
    round_trip(&view, KB_ORDER_F, 2);

    const int64_t t_shape[2] = {8, 6}, t_strides[2] = {4, 32};
    assert_int_equal(kb_array_view(&view, KB_INT32, 2, t_shape, t_strides, v, 0), KB_OK);
    round_trip(&view, KB_ORDER_C, 3);
    round_trip(&view, KB_ORDER_F, 1);

    const int64_t b_shape[3] = {3, 6, 8}, b_strides[3] = {0, 32, 4};
    assert_int_equal(kb_array_view(&view, KB_INT32, 3, b_shape, b_strides, v, 0), KB_OK);
    round_trip(&view, KB_ORDER_C, 0);
    round_trip(&view, KB_ORDER_F, 0);

    /* Check the values explicitly once, not only against the view. */
    const int64_t r_shape[1] = {6}, r_strides[1] = {-32};
    assert_int_equal(kb_array_view(&view, KB_INT32, 1, r_shape, r_strides, v + 40, 0), KB_OK);
    char path[1024];
    test_dir_path(&dir, "rows.npy", path, sizeof path);
    assert_int_equal(kb_npy_write(path, &view, KB_ORDER_C, 0), KB_OK);
    kb_array r;
    assert_int_equal(kb_npy_read(path, &r, NULL), KB_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(((int32_t *)r.data)[i], (5 - i) * 8 * 7 - 100);
    kb_array_free(&r);
    unlink(path);
    kb_array_free(&base);
}

/* The exact bytes np.save writes for the same array (np.zeros(3, '<f4')): the dict, room
 * for the first axis to grow to 21 digits, spaces to a multiple of 64 and a newline. */
static void header_matches_numpy(void **state) {
    float data[3] = {0, 0, 0};
    const int64_t shape[1] = {3};
    kb_array a;
    assert_int_equal(kb_array_view(&a, KB_F32, 1, shape, NULL, data, 0), KB_OK);
    char path[1024];
    test_dir_path(&dir, "numpy.npy", path, sizeof path);
    assert_int_equal(kb_npy_write(path, &a, KB_ORDER_C, 0), KB_OK);
    size_t size;
    unsigned char *file = test_read_file(path, &size);
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
    assert_int_equal(size, 128 + 12);
    assert_memory_equal(file, "\x93NUMPY\x01\x00\x76\x00", 10);
    assert_memory_equal(file + 10, dict, sizeof dict - 1);
    for (size_t i = 10 + sizeof dict - 1; i < 127; i++)
        assert_int_equal(file[i], ' ');
    assert_int_equal(file[127], '\n');
    free(file);
    unlink(path);

    /* bool and bfloat16 get the descrs NumPy (with ml_dtypes) reads. */
    assert_int_equal(kb_array_view(&a, KB_BOOL, 1, shape, NULL, data, 0), KB_OK);
    assert_int_equal(kb_npy_write(path, &a, KB_ORDER_C, 0), KB_OK);
    file = test_read_file(path, &size);
    assert_non_null(memmem(file, size, "'descr': '|b1'", 14));
    free(file);
    assert_int_equal(kb_array_view(&a, KB_BF16, 1, shape, NULL, data, 0), KB_OK);
    assert_int_equal(kb_npy_write(path, &a, KB_ORDER_C, 0), KB_OK);
    file = test_read_file(path, &size);
    assert_non_null(memmem(file, size, "'descr': 'bfloat16'", 19));
    free(file);
    unlink(path);
}

/* Builds a file the way NumPy would: prefix, dict, padding to 64 bytes, data. */
static size_t build_npy(unsigned char *out, int major, const char *dict, const void *data,
                        size_t data_size) {
    size_t prefix = major == 1 ? 10 : 12;
    size_t len = strlen(dict);
    size_t total = (prefix + len + 1 + 63) / 64 * 64;
    size_t header_len = total - prefix;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        out[8 + i] = (unsigned char)(header_len >> (8 * i));
    memcpy(out + prefix, dict, len);
    memset(out + prefix + len, ' ', total - prefix - len - 1);
    out[total - 1] = '\n';
    if (data_size)
        memcpy(out + total, data, data_size);
    return total + data_size;
}

/* Same, with the header length given: no padding, the data wherever the dict ends. */
static size_t build_raw(unsigned char *out, int major, const char *dict, const void *data,
                        size_t data_size) {
    size_t prefix = major == 1 ? 10 : 12;
    size_t len = strlen(dict);
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        out[8 + i] = (unsigned char)(len >> (8 * i));
    memcpy(out + prefix, dict, len);
    if (data_size)
        memcpy(out + prefix + len, data, data_size);
    return prefix + len + data_size;
}

static void big_endian_files(void **state) {
    unsigned char buf[1024];
    kb_array a;
    kb_npy_header h;

    const unsigned char i4[8] = {0x01, 0x02, 0x03, 0x04, 0xff, 0xff, 0xff, 0xfe};
    size_t n = build_npy(buf, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", i4,
                         sizeof i4);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_int_equal(h.byteorder, '>');
    assert_int_equal(a.dtype, KB_INT32);
    assert_int_equal(((int32_t *)a.data)[0], 0x01020304);
    assert_int_equal(((int32_t *)a.data)[1], -2);
    kb_array_free(&a);

    /* 1.5 and -2.0 as big-endian float64, in a 2x1 Fortran array. */
    const unsigned char f8[16] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0};
    n = build_npy(buf, 2, "{'descr': '>f8', 'fortran_order': True, 'shape': (2, 1), }", f8,
                  sizeof f8);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_int_equal(a.dtype, KB_F64);
    assert_true(h.fortran_order);
    assert_true(((double *)a.data)[0] == 1.5);
    assert_true(((double *)a.data)[1] == -2.0);
    kb_array_free(&a);

    /* A 2x3 big-endian uint16 array in Fortran order: element (i, j) = 10 * i + j. */
    unsigned char u2[12];
    for (int j = 0, k = 0; j < 3; j++)
        for (int i = 0; i < 2; i++, k++) {
            u2[2 * k] = 0;
            u2[2 * k + 1] = (unsigned char)(10 * i + j);
        }
    n = build_npy(buf, 3, "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 3), }", u2,
                  sizeof u2);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            int64_t index[2] = {i, j};
            assert_int_equal(*(uint16_t *)kb_array_at(&a, index), 10 * i + j);
        }
    kb_array_free(&a);

    /* float16 1.0 = 0x3c00, float32 -0.5 = 0xbf000000, int64 -3. */
    const unsigned char f2[2] = {0x3c, 0x00};
    n = build_npy(buf, 1, "{'descr': '>f2', 'fortran_order': False, 'shape': (), }", f2, 2);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_int_equal(a.ndim, 0);
    assert_int_equal(*(uint16_t *)a.data, 0x3c00);
    kb_array_free(&a);
    const unsigned char f4[4] = {0xbf, 0, 0, 0};
    n = build_npy(buf, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", f4, 4);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_true(*(float *)a.data == -0.5f);
    kb_array_free(&a);
    const unsigned char i8[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd};
    n = build_npy(buf, 1, "{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", i8, 8);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_int_equal(*(int64_t *)a.data, -3);
    kb_array_free(&a);

    /* Single-byte types read the same whatever byte order they claim. */
    const char *bytes_descrs[] = {"|u1", "<u1", ">u1", "=u1", "u1"};
    const unsigned char u1[3] = {1, 200, 3};
    for (size_t k = 0; k < 5; k++) {
        char dict[128];
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (3,)}",
                 bytes_descrs[k]);
        n = build_npy(buf, 1, dict, u1, 3);
        assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
        assert_int_equal(h.byteorder, '|');
        assert_memory_equal(a.data, u1, 3);
        kb_array_free(&a);
    }
}

/* Headers NumPy accepts through ast.literal_eval though it would not write them so. */
static void header_variants(void **state) {
    static const struct {
        int major;
        const char *dict;
        kb_dtype dtype;
        bool fortran;
        int ndim;
        int64_t dims[3];
    } cases[] = {
        {1,
         "{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}",
         KB_INT16,
         false,
         2,
         {2, 3}},
        {1, "{'shape': (2, 3,), 'fortran_order': True, 'descr': '<i2'}", KB_INT16, true, 2, {2, 3}},
        {1,
         "  {  'fortran_order' :False,'shape':(  6 , ),'descr':'=i2' , }  ",
         KB_INT16,
         false,
         1,
         {6}},
        {1, "{'descr':'<i2','fortran_order':False,'shape':(1_2,)}", KB_INT16, false, 1, {12}},
        {1,
         "{'descr': '<i2', 'fortran_order': False, 'shape': (3L, 2L), }",
         KB_INT16,
         false,
         2,
         {3, 2}},
        {2,
         "{'descr': 'i2',\n 'fortran_order': False,\n 'shape': (+3, 2)}",
         KB_INT16,
         false,
         2,
         {3, 2}},
        {3,
         "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2, 3), }",
         KB_BF16,
         false,
         2,
         {2, 3}},
        {1,
         "{'descr': '<f2', 'fortran_order': False, 'shape': (00, 7), }",
         KB_F16,
         false,
         2,
         {0, 7}},
        {1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", KB_BOOL, false, 0, {0}},
    };
    unsigned char buf[1024];
    unsigned char data[64] = {0};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t n = build_npy(buf, cases[k].major, cases[k].dict, NULL, 0);
        kb_npy_header h;
        kb_status st = kb_npy_parse_header(buf, n, &h);
        if (st != KB_OK)
            fail_msg("case %zu: %s", k, kb_last_error());
        assert_int_equal(h.dtype, cases[k].dtype);
        assert_int_equal(h.fortran_order, cases[k].fortran);
        assert_int_equal(h.ndim, cases[k].ndim);
        for (int i = 0; i < h.ndim; i++)
            assert_int_equal(h.shape[i], cases[k].dims[i]);
        assert_int_equal(h.data_offset, n);
        memcpy(buf + n, data, h.data_size);
        kb_array a;
        assert_int_equal(kb_npy_read_buffer(buf, n + h.data_size, &a, NULL), KB_OK);
        kb_array_free(&a);
    }
    /* The header need not be padded, nor end in a newline, nor leave the data aligned:
     * then the data is copied to aligned memory. */
    const float values[2] = {1.0f, 2.0f};
    size_t n = build_raw(buf, 1, "{'descr':'<f4','fortran_order':False,'shape':(2,)}", values,
                         sizeof values);
    kb_array a;
    kb_npy_header h;
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, &h), KB_OK);
    assert_int_equal(h.data_offset, n - 8);
    assert_int_equal((uintptr_t)a.data % KB_ALIGNMENT, 0);
    assert_memory_equal(a.data, values, sizeof values);
    kb_array_free(&a);
    char path[1024];
    test_dir_path(&dir, "unpadded.npy", path, sizeof path);
    test_write_file(path, buf, n);
    assert_int_equal(kb_npy_read(path, &a, NULL), KB_OK);
    assert_int_equal((uintptr_t)a.data % KB_ALIGNMENT, 0);
    assert_memory_equal(a.data, values, sizeof values);
    kb_array_free(&a);
    unlink(path);
}

/* A one-dimensional file of count elements with patterned data; misaligned puts the data at
 * an offset that is 3 more than a multiple of 8, as no NumPy would. */
static size_t build_big(unsigned char **out, const char *descr, int64_t count, size_t itemsize,
                        bool misaligned) {
    char dict[160];
    int len =
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                 descr, (long long)count);
    size_t data_size = (size_t)count * itemsize;
    unsigned char *buf = malloc(256 + data_size);
    assert_non_null(buf);
    size_t n;
    if (misaligned) {
        while ((10 + len) % 8 != 3)
            dict[len++] = ' ';
        dict[len] = '\0';
        n = build_raw(buf, 1, dict, NULL, 0);
    } else {
        n = build_npy(buf, 1, dict, NULL, 0);
    }
    for (size_t i = 0; i < data_size; i++)
        buf[n + i] = (unsigned char)(i * 131 + (i >> 12));
    *out = buf;
    return n + data_size;
}

/* Files from KB_NPY_MMAP_THRESHOLD up are mapped; the array owns the mapping, swapping bytes
 * in it must not reach the file, and an unaligned data offset falls back to a copy. */
static void large_files_are_mapped(void **state) {
    char path[1024];
    test_dir_path(&dir, "large.npy", path, sizeof path);
    int64_t count = (int64_t)(KB_NPY_MMAP_THRESHOLD / 4) + 1000;
    unsigned char *buf;
    size_t n = build_big(&buf, "<f4", count, 4, false);
    test_write_file(path, buf, n);
    kb_array a;
    kb_npy_header h;
    assert_int_equal(kb_npy_read(path, &a, &h), KB_OK);
    assert_int_equal(a.owned_kind, KB_OWNED_MMAP);
    assert_int_equal(a.owned_size, n);
    assert_int_equal(a.shape[0], count);
    assert_memory_equal(a.data, buf + h.data_offset, h.data_size);
    ((float *)a.data)[0] = 42.0f; /* private: the file keeps its bytes */
    kb_array_free(&a);
    free(buf);

    n = build_big(&buf, ">u4", count, 4, false);
    test_write_file(path, buf, n);
    assert_int_equal(kb_npy_read(path, &a, &h), KB_OK);
    assert_int_equal(a.owned_kind, KB_OWNED_MMAP);
    const uint32_t *v = a.data;
    const unsigned char *d = buf + h.data_offset;
    for (int64_t i = 0; i < count; i += 4099) {
        uint32_t expected = (uint32_t)d[4 * i] << 24 | (uint32_t)d[4 * i + 1] << 16 |
                            (uint32_t)d[4 * i + 2] << 8 | d[4 * i + 3];
        assert_int_equal(v[i], expected);
    }
    kb_array_free(&a);
    size_t size;
    unsigned char *again = test_read_file(path, &size);
    assert_int_equal(size, n);
    assert_memory_equal(again, buf, n);
    free(again);
    free(buf);

    /* An odd data offset: float64 elements would be misaligned in the mapping. */
    n = build_big(&buf, "<f8", count / 2, 8, true);
    test_write_file(path, buf, n);
    assert_int_equal(kb_npy_read(path, &a, &h), KB_OK);
    assert_int_not_equal(h.data_offset % 8, 0);
    assert_int_equal(a.owned_kind, KB_OWNED_ALIGNED);
    assert_int_equal((uintptr_t)a.data % KB_ALIGNMENT, 0);
    assert_memory_equal(a.data, buf + h.data_offset, h.data_size);
    kb_array_free(&a);
    free(buf);

    /* A small file is read, not mapped. */
    n = build_big(&buf, "<f4", 1000, 4, false);
    test_write_file(path, buf, n);
    assert_int_equal(kb_npy_read(path, &a, &h), KB_OK);
    assert_int_equal(a.owned_kind, KB_OWNED_ALIGNED);
    kb_array_free(&a);
    free(buf);
    unlink(path);
}

/* Each malformed file must fail with the given status and a one-line message, from memory
 * and from a file (where the message names the file). */
static const struct bad_case {
    const char *name;
    kb_status status;
    int major;        /* 0: raw bytes given in dict, length in raw_size */
    const char *dict; /* header text; padded as NumPy pads unless raw */
    size_t data_size; /* bytes of data to append */
    size_t raw_size;
} bad_cases[] = {
    {"empty file", KB_EFORMAT, 0, "", 0, 0},
    {"bad magic", KB_EFORMAT, 0, "\x93NUMPZ\x01\x00\x10\x00{}", 0, 12},
    {"not npy at all", KB_EFORMAT, 0, "PK\x03\x04 a zip file", 0, 15},
    {"magic only", KB_EFORMAT, 0, "\x93NUMPY", 0, 6},
    {"truncated magic", KB_EFORMAT, 0, "\x93NUM", 0, 4},
    {"truncated length", KB_EFORMAT, 0, "\x93NUMPY\x01\x00\x76", 0, 9},
    {"truncated v2 length", KB_EFORMAT, 0, "\x93NUMPY\x02\x00\x76\x00\x00", 0, 11},
    {"version 4.0", KB_EUNSUPPORTED, 0, "\x93NUMPY\x04\x00\x10\x00{}", 0, 12},
    {"version 1.1", KB_EUNSUPPORTED, 0, "\x93NUMPY\x01\x01\x10\x00{}", 0, 12},
    {"version 0.0", KB_EUNSUPPORTED, 0, "\x93NUMPY\x00\x00\x10\x00{}", 0, 12},
    {"header length beyond file", KB_EFORMAT, 0, "\x93NUMPY\x01\x00\xff\x7f{'descr'", 0, 17},
    {"v2 header length beyond file", KB_EFORMAT, 0, "\x93NUMPY\x02\x00\x00\x00\x00\x10{}", 0, 14},
    {"empty header", KB_EFORMAT, 0, "\x93NUMPY\x01\x00\x00\x00", 0, 10},
    {"header not a dict", KB_EFORMAT, 1, "['descr', 'fortran_order', 'shape']", 0, 0},
    {"header a set", KB_EFORMAT, 1, "{'descr', 'fortran_order', 'shape'}", 0, 0},
    {"dict not closed", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", 4,
     0},
    {"missing shape", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False}", 4, 0},
    {"missing descr", KB_EFORMAT, 1, "{'fortran_order': False, 'shape': (1,)}", 4, 0},
    {"missing fortran_order", KB_EFORMAT, 1, "{'descr': '<f4', 'shape': (1,)}", 4, 0},
    {"unknown key", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", 4, 0},
    {"duplicate key", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'descr': '<f4'}", 4, 0},
    {"key without quotes", KB_EFORMAT, 1, "{descr: '<f4', 'fortran_order': False, 'shape': (1,)}",
     4, 0},
    {"missing colon", KB_EFORMAT, 1, "{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"missing comma", KB_EFORMAT, 1, "{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"double comma", KB_EFORMAT, 1, "{'descr': '<f4',, 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"text after dict", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
     4, 0},
    {"unterminated string", KB_EFORMAT, 1, "{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}",
     4, 0},
    {"unterminated at end", KB_EFORMAT, 1, "{'descr': '<f4", 0, 0},
    {"mismatched quotes", KB_EFORMAT, 1, "{'descr\": '<f4', 'fortran_order': False, 'shape': (1,)}",
     4, 0},
    {"escape in string", KB_EFORMAT, 1,
     "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", 4, 0},
    {"bad descr", KB_EFORMAT, 1, "{'descr': '<x4', 'fortran_order': False, 'shape': (1,)}", 4, 0},
    {"bad descr size", KB_EFORMAT, 1, "{'descr': '<i3', 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"empty descr", KB_EFORMAT, 1, "{'descr': '', 'fortran_order': False, 'shape': (1,)}", 4, 0},
    {"descr order only", KB_EFORMAT, 1, "{'descr': '<', 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"| on multi-byte", KB_EFORMAT, 1, "{'descr': '|f4', 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"descr not a string", KB_EFORMAT, 1, "{'descr': 4, 'fortran_order': False, 'shape': (1,)}", 4,
     0},
    {"object dtype", KB_EUNSUPPORTED, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}",
     8, 0},
    {"structured dtype", KB_EUNSUPPORTED, 1,
     "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,)}", 8, 0},
    {"byte string dtype", KB_EUNSUPPORTED, 1,
     "{'descr': '|S5', 'fortran_order': False, 'shape': (1,)}", 5, 0},
    {"unicode dtype", KB_EUNSUPPORTED, 1, "{'descr': '<U3', 'fortran_order': False, 'shape': (1,)}",
     12, 0},
    {"void dtype", KB_EUNSUPPORTED, 1, "{'descr': '|V2', 'fortran_order': False, 'shape': (1,)}", 2,
     0},
    {"datetime dtype", KB_EUNSUPPORTED, 1,
     "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,)}", 8, 0},
    {"timedelta dtype", KB_EUNSUPPORTED, 1,
     "{'descr': '<m8[s]', 'fortran_order': False, 'shape': (1,)}", 8, 0},
    {"complex dtype", KB_EUNSUPPORTED, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}",
     8, 0},
    {"long double", KB_EUNSUPPORTED, 1, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,)}",
     16, 0},
    {"fortran_order not bool", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
     4, 0},
    {"fortran_order lower case", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': true, 'shape': (1,)}", 4, 0},
    {"fortran_order prefix", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': Truely, 'shape': (1,)}", 4, 0},
    {"shape a list", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", 4, 0},
    {"shape an int", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': 1}", 4, 0},
    {"shape parenthesized int", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", 4, 0},
    {"shape float", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1.0,)}", 4,
     0},
    {"shape string", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ('1',)}", 4,
     0},
    {"shape hex", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0x1,)}", 4, 0},
    {"shape leading zero", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (01,)}", 4, 0},
    {"shape missing comma", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1 1)}", 4, 0},
    {"shape not closed", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,", 4,
     0},
    {"negative dimension", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1)}", 0, 0},
    {"dimension beyond int64", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", 0, 0},
    {"shape overflows bytes", KB_EFORMAT, 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", 0, 0},
    {"33 dimensions", KB_EUNSUPPORTED, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': "
     "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
     4, 0},
    {"L suffix in version 3", KB_EFORMAT, 3,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1L,)}", 4, 0},
    {"NUL in header", KB_EFORMAT, 0, "\x93NUMPY\x01\x00\x04\x00{\0}\n", 0, 14},
    {"truncated data", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", 12,
     0},
    {"trailing data", KB_EFORMAT, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 12,
     0},
    {"data for an empty array", KB_EFORMAT, 1,
     "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5)}", 4, 0},
};

static size_t build_bad(unsigned char *buf, const struct bad_case *c) {
    if (c->major == 0) {
        memcpy(buf, c->dict, c->raw_size);
        return c->raw_size;
    }
    unsigned char data[64];
    memset(data, 0x5a, sizeof data);
    return build_npy(buf, c->major, c->dict, data, c->data_size);
}

static void malformed_input_fails_cleanly(void **state) {
    unsigned char buf[1024];
    char path[1024];
    test_dir_path(&dir, "bad.npy", path, sizeof path);
    size_t count = sizeof bad_cases / sizeof bad_cases[0];
    assert_true(count >= 20);
    for (size_t k = 0; k < count; k++) {
        const struct bad_case *c = &bad_cases[k];
        size_t n = build_bad(buf, c);
        kb_array a;
        memset(&a, 0x77, sizeof a);
        kb_status st = kb_npy_read_buffer(buf, n, &a, NULL);
        if (st != c->status)
            fail_msg("%s: status %d, expected %d (%s)", c->name, st, c->status, kb_last_error());
        assert_one_line_error(st);
        assert_int_equal(strncmp(kb_last_error(), "npy: ", 5), 0);
        assert_int_equal(a.owned_kind, 0x77777777); /* untouched on failure */

        test_write_file(path, buf, n);
        st = kb_npy_read(path, &a, NULL);
        assert_int_equal(st, c->status);
        assert_one_line_error(st);
        assert_int_equal(strncmp(kb_last_error(), path, strlen(path)), 0);
        kb_npy_header h;
        st = kb_npy_read_header(path, &h);
        assert_int_equal(st, c->status);
        assert_one_line_error(st);
    }
    unlink(path);

    /* The messages say what is wrong. */
    kb_array a;
    size_t n = build_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
                         "0123456789ab", 12);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, NULL), KB_EFORMAT);
    assert_string_equal(kb_last_error(), "npy: data is 12 bytes, header says 16");
    assert_int_equal(kb_npy_read_buffer("\x93NUMPZ..", 8, &a, NULL), KB_EFORMAT);
    assert_string_equal(kb_last_error(), "npy: bad magic: not a .npy file");
    n = build_npy(buf, 1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", NULL, 0);
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, NULL), KB_EUNSUPPORTED);
    assert_string_equal(kb_last_error(), "npy: unsupported dtype '|O' (object)");
    char missing[1024];
    test_dir_path(&dir, "missing.npy", missing, sizeof missing);
    assert_int_equal(kb_npy_read(missing, &a, NULL), KB_EIO);
    assert_one_line_error(KB_EIO);
    assert_int_equal(kb_npy_read(dir.root, &a, NULL), KB_EIO);
    assert_one_line_error(KB_EIO);

    /* Every prefix of a valid file is an error too. */
    n = build_npy(buf, 2, "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 2)}",
                  "0123456789abcdef0123456789abcdef", 32);
    for (size_t len = 0; len < n; len++) {
        kb_status st = kb_npy_read_buffer(buf, len, &a, NULL);
        assert_one_line_error(st);
    }
    assert_int_equal(kb_npy_read_buffer(buf, n, &a, NULL), KB_OK);
    kb_array_free(&a);
}

/* A failed write leaves nothing behind: no temporary file, and an existing file untouched. */
static void failed_writes_leave_nothing(void **state) {
    const int64_t shape[2] = {2, 2};
    double data[4] = {1, 2, 3, 4};
    kb_array a;
    assert_int_equal(kb_array_view(&a, KB_F64, 2, shape, NULL, data, 0), KB_OK);
    int before = test_dir_count(&dir);

    char path[1024];
    test_dir_path(&dir, "no/such/dir/out.npy", path, sizeof path);
    kb_status st = kb_npy_write(path, &a, KB_ORDER_C, 0);
    assert_int_equal(st, KB_EIO);
    assert_one_line_error(st);
    assert_non_null(strstr(kb_last_error(), path));

    /* The target is a directory: the temporary is written, then rename fails. */
    char subdir[1024];
    test_dir_path(&dir, "a_directory", subdir, sizeof subdir);
    assert_int_equal(mkdir(subdir, 0700), 0);
    st = kb_npy_write(subdir, &a, KB_ORDER_C, 0);
    assert_int_equal(st, KB_EIO);
    assert_one_line_error(st);
    assert_int_equal(test_dir_count(&dir), before + 1);
    assert_int_equal(rmdir(subdir), 0);

    char target[1024];
    test_dir_path(&dir, "kept.npy", target, sizeof target);
    test_write_file(target, "original", 8);
    assert_int_equal(kb_npy_write(target, &a, KB_ORDER_C, 4), KB_EINVAL);
    assert_one_line_error(KB_EINVAL);
    assert_int_equal(kb_npy_write(target, &a, (kb_order)7, 1), KB_EINVAL);
    a.dtype = KB_DTYPE_COUNT;
    assert_int_equal(kb_npy_write(target, &a, KB_ORDER_C, 1), KB_EINVAL);
    a.dtype = KB_F64;
    a.data = NULL;
    assert_int_equal(kb_npy_write(target, &a, KB_ORDER_C, 1), KB_EINVAL);
    size_t size;
    unsigned char *kept = test_read_file(target, &size);
    assert_int_equal(size, 8);
    assert_memory_equal(kept, "original", 8);
    free(kept);
    assert_int_equal(test_dir_count(&dir), before + 1);

    /* And a successful write replaces it whole. */
    a.data = data;
    assert_int_equal(kb_npy_write(target, &a, KB_ORDER_C, 0), KB_OK);
    kb_array r;
    assert_int_equal(kb_npy_read(target, &r, NULL), KB_OK);
    assert_memory_equal(r.data, data, sizeof data);
    kb_array_free(&r);
    assert_int_equal(test_dir_count(&dir), before + 1);
    unlink(target);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_dtype_order_and_version),
        cmocka_unit_test(every_rank),
        cmocka_unit_test(empty_arrays),
        cmocka_unit_test(strided_views),
        cmocka_unit_test(header_matches_numpy),
        cmocka_unit_test(big_endian_files),
        cmocka_unit_test(header_variants),
        cmocka_unit_test(large_files_are_mapped),
        cmocka_unit_test(malformed_input_fails_cleanly),
        cmocka_unit_test(failed_writes_leave_nothing),
    };
    return cmocka_run_group_tests(tests, create_dir, destroy_dir);
}
