/* test_sweep_mpi.c: 'mpirun -n 3 gpuest sweep': rank 0 hands out points and writes the database,
 * ranks 1 and 2 compute; the database equals a local run's. Skipped (with a message) when this
 * build has no Open MPI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run_program.h"
#include "sweep_db_check.h"

static char out[1 << 16];

#define SPEC_TEXT                                                                                                      \
    "[sweep]\npreset = mesh56\nmode = estimate\nworkloads = hotspot, bfs, nw\ncalibrations = " GPUEST_SOURCE_DIR      \
    "/models/calibrations\ndesign = sobol\npoints = 6\n[axes]\nnoc.vcs = 2, 4, 8\nl2.hit_latency = 60..200\n"
#define NPOINTS 18

static void three_ranks_same_as_local(void **state)
{
    (void)state;
#ifndef GPUEST_MPIRUN
    print_message("SKIPPED: this build has no Open MPI (install openmpi-bin and libopenmpi-dev, reconfigure)\n");
    skip();
#else
    char spec[256], local[256], mpi[256], args[1024];
    snprintf(spec, sizeof spec, "%s/mpi_%d.ini", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(local, sizeof local, "%s/mpi_local_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(mpi, sizeof mpi, "%s/mpi_ranks_%d.sqlite", GPUEST_BINARY_DIR, (int)getpid());
    remove_db(local);
    remove_db(mpi);
    test_write_text(spec, SPEC_TEXT);
    snprintf(args, sizeof args, "sweep %s --db %s --jobs 2", spec, local);
    assert_int_equal(run_gpuest(args, out, sizeof out), 0);
    /* Open MPI's own allocations are not ours to report: leak checking off for the ranks */
    snprintf(args, sizeof args,
             "-x ASAN_OPTIONS=detect_leaks=0 --allow-run-as-root --oversubscribe -n 3 %s sweep %s --db %s",
             GPUEST_PROGRAM, spec, mpi);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    int rc = test_run_program(GPUEST_MPIRUN, args, out, sizeof out);
    if (rc != 0)
        fail_msg("mpirun failed (%d):\n%s", rc, out);
    assert_non_null(strstr(out, "2 MPI ranks computing"));
    check_same_as(mpi, local, NPOINTS);
    /* resumed under MPI: nothing left */
    rc = test_run_program(GPUEST_MPIRUN, args, out, sizeof out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "18 already in"));
    check_same_as(mpi, local, NPOINTS);
    remove(spec);
    remove_db(local);
    remove_db(mpi);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(three_ranks_same_as_local)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
