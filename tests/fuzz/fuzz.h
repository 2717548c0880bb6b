/* fuzz.h: the shape of a fuzz target and the helpers every target shares.
 *
 * A target is `int gpuest_fuzz_<name>(const uint8_t *data, size_t size)`: it feeds the bytes to
 * one parser or decoder and returns 0. It aborts (a finding) when the code under test breaks a
 * promise the target can check: a failure without a message naming the input, a decoded value
 * that does not survive a round trip, and so on. Memory errors are found by the sanitizers.
 *
 * The same target runs under libFuzzer (fuzz_libfuzzer.c, built with clang) and under the corpus
 * replay driver (fuzz_replay.c, built with the project's compiler and run by ctest). */
#ifndef GPUEST_FUZZ_H
#define GPUEST_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "fuzz_targets.h"

#define GPUEST_FUZZ_DECLARE(name) int gpuest_fuzz_##name(const uint8_t *data, size_t size);
GPUEST_FUZZ_TARGETS(GPUEST_FUZZ_DECLARE)
#undef GPUEST_FUZZ_DECLARE

/* Per-process scratch folder (created on first use, removed at exit) for targets whose code
 * under test reads files. */
const char *fuzz_dir(void);

/* Writes n bytes to <fuzz_dir>/<name> and returns that path (static storage, one per name slot:
 * slot 0..3 so a target can hold several files at once). */
const char *fuzz_write(int slot, const char *name, const void *data, size_t n);

/* The input as a NUL-terminated string (malloc'd; free() it). */
char *fuzz_text(const uint8_t *data, size_t size);

/* Splits data at the first NUL byte: [data, *first_len) and the rest after the NUL.
 * Returns 0 (whole input in the first part) when there is no NUL. */
int fuzz_split(const uint8_t *data, size_t size, size_t *first_len, const uint8_t **rest, size_t *rest_len);

/* A finding: prints what broke and aborts (libFuzzer then saves the input). */
void fuzz_finding(const char *target, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* The error contract of every reader: a failure carries a message that starts with the name of the
 * input it blames (one of the given names, NULL-terminated), and input errors are not reported as
 * internal ones. Aborts otherwise. */
void fuzz_check_error(const char *target, gpuest_err rc, const gpuest_error_t *err, const char *const *names);

/* Walks a loaded workload as a simulator front end would (every launch, the first warps of each,
 * every instruction coalesced); aborts when the workload reports an error after loading. */
struct gpuest_workload_s;
void fuzz_walk_workload(const char *target, struct gpuest_workload_s *wl);

/* Memory limit the workload targets set (libFuzzer's own budget is 2 GiB). */
#define FUZZ_MEMORY_LIMIT (UINT64_C(64) << 20)

#endif
