/* run_program.h: test helpers shared by the tests that run the gpuest program or write input files. */
#ifndef GPUEST_TEST_RUN_PROGRAM_H
#define GPUEST_TEST_RUN_PROGRAM_H

#include <stddef.h>

/* Runs `program args` through the shell with stderr merged into stdout; the
 * output (up to cap - 1 bytes, NUL-terminated) goes to out. Returns the exit
 * status, or -1 when the program did not exit normally. Fails the test when
 * the shell cannot be started. */
int test_run_program(const char *program, const char *args, char *out, size_t cap);

/* Writes text to path (replacing it); fails the test when the file cannot be opened. */
void test_write_text(const char *path, const char *text);

/* Writes n raw bytes to path (n may be 0: an empty file). */
void test_write_bytes(const char *path, const void *data, size_t n);

/* Asserts that two files have the same size and bytes. */
void test_assert_same_file(const char *a, const char *b);
/* 1 when two files hold the same bytes; fails the test when either cannot be read. */
int test_files_equal(const char *a, const char *b);

/* A scratch folder for one test program: root = parent/name_<pid> (the pid keeps parallel ctest
 * runs apart), created; fails the test when it cannot be. test_scratch_remove deletes it with
 * everything below; returns 0, or -1 when that failed (a cmocka teardown's result). */
void test_scratch_make(char *root, size_t cap, const char *parent, const char *name);
int test_scratch_remove(const char *root);

#ifdef GPUEST_PROGRAM
/* `gpuest <args>`, for tests built with the program's path in GPUEST_PROGRAM. */
static inline int run_gpuest(const char *args, char *out, size_t cap)
{
    return test_run_program(GPUEST_PROGRAM, args, out, cap);
}
#endif

#endif
