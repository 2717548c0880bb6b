/* registry.c: the table of kernel generators. Adding one: write gen_<name>.c (ending with its descriptor), add its two lines here. */
#include <string.h>

#include "workload_int.h"

/* One line per generator here and one in the table: the descriptor defined at the end of gen_<name>.c. */
extern const gpuest_generator_t gpuest_gen_bfs;
extern const gpuest_generator_t gpuest_gen_spmv;
extern const gpuest_generator_t gpuest_gen_2dconv;
extern const gpuest_generator_t gpuest_gen_hotspot;
extern const gpuest_generator_t gpuest_gen_gemm;
extern const gpuest_generator_t gpuest_gen_kmeans;
extern const gpuest_generator_t gpuest_gen_nw;
extern const gpuest_generator_t gpuest_gen_btree;
/* Generators described in their own gen_<name>.c (issue 4, second set). */
extern const gpuest_generator_t gpuest_gen_lud;
extern const gpuest_generator_t gpuest_gen_gaussian;
extern const gpuest_generator_t gpuest_gen_atax;
extern const gpuest_generator_t gpuest_gen_bicg;
extern const gpuest_generator_t gpuest_gen_srad;
extern const gpuest_generator_t gpuest_gen_pathfinder;
extern const gpuest_generator_t gpuest_gen_backprop;
extern const gpuest_generator_t gpuest_gen_3dconv;
extern const gpuest_generator_t gpuest_gen_streamcluster;
extern const gpuest_generator_t gpuest_gen_color;
extern const gpuest_generator_t gpuest_gen_fw;
extern const gpuest_generator_t gpuest_gen_wordcount;
extern const gpuest_generator_t gpuest_gen_ss;
extern const gpuest_generator_t gpuest_gen_pvc;
/* Eighth session: fresh workloads for the L1 mode selector. */
extern const gpuest_generator_t gpuest_gen_pagerank;
extern const gpuest_generator_t gpuest_gen_2mm;

const gpuest_generator_t *const gpuest_generators[] = {
    &gpuest_gen_bfs,
    &gpuest_gen_spmv,
    &gpuest_gen_2dconv,
    &gpuest_gen_hotspot,
    &gpuest_gen_gemm,
    &gpuest_gen_kmeans,
    &gpuest_gen_nw,
    &gpuest_gen_btree,
    &gpuest_gen_lud,
    &gpuest_gen_gaussian,
    &gpuest_gen_atax,
    &gpuest_gen_bicg,
    &gpuest_gen_srad,
    &gpuest_gen_pathfinder,
    &gpuest_gen_backprop,
    &gpuest_gen_3dconv,
    &gpuest_gen_streamcluster,
    &gpuest_gen_color,
    &gpuest_gen_fw,
    &gpuest_gen_wordcount,
    &gpuest_gen_ss,
    &gpuest_gen_pvc,
    &gpuest_gen_pagerank,
    &gpuest_gen_2mm,
    NULL};

size_t gpuest_generator_count(void)
{
    size_t n = 0;
    while (gpuest_generators[n])
        n++;
    return n;
}

const gpuest_generator_t *gpuest_generator_find(const char *name)
{
    for (size_t i = 0; gpuest_generators[i]; i++)
        if (strcmp(gpuest_generators[i]->name, name) == 0)
            return gpuest_generators[i];
    return NULL;
}
