/* bench_cpu.h: the process's CPU time (user + system), the clock of the simulator benches. */
#ifndef GPUEST_BENCH_CPU_H
#define GPUEST_BENCH_CPU_H

#include <sys/resource.h>

static inline double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

#endif
