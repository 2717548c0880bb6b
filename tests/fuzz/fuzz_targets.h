/* fuzz_targets.h: the list of fuzz targets. Adding one: write fuzz_<name>.c defining
 * gpuest_fuzz_<name>() and add X(name) below (CMake reads this list too; keep one per line).
 * Each has a seed corpus in tests/fuzz/corpus/<name>/. */
#ifndef GPUEST_FUZZ_TARGETS_H
#define GPUEST_FUZZ_TARGETS_H

#define GPUEST_FUZZ_TARGETS(X)                                                                                         \
    X(ini)                                                                                                             \
    X(booksim)                                                                                                         \
    X(gpgpusim)                                                                                                        \
    X(accelsim)                                                                                                        \
    X(accelsim_xz)                                                                                                     \
    X(trace_csv)                                                                                                       \
    X(learn_model)                                                                                                     \
    X(calib)                                                                                                           \
    X(sweep_spec)                                                                                                      \
    X(decode_none)                                                                                                     \
    X(decode_bdi)                                                                                                      \
    X(decode_fpc)                                                                                                      \
    X(decode_cpack)                                                                                                    \
    X(decode_bpc)                                                                                                      \
    X(decode_sc2)                                                                                                      \
    X(decode_dpc)                                                                                                      \
    X(decode_dsm)                                                                                                      \
    X(decode_dsm_approx)                                                                                               \
    X(decode_dpc_df)

#endif
