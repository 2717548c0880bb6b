/* cta_place.c: the SMs a launch's first CTAs go to, in the order the simulator's CTA issue gives them
 * (src/sim/gpu.c, assign_ctas), for the characterization walk.
 *
 * The simulator tries, each core cycle, num_sms SMs starting at a round-robin pointer, and moves the
 * pointer past an SM as soon as it takes a CTA, inside the loop (docs/sim.md, "Known defect"): the
 * SMs tried in one cycle are rr, rr + 2, rr + 5, rr + 9, ... (mod num_sms), so some SMs take two CTAs
 * in the first cycle and others none until a later cycle. The walk used CTA c -> SM c mod num_sms;
 * which SMs hold neighbouring CTAs decides which SM pairs share lines, and with per-SM rates
 * (charact.c) how far apart the sharers run. The pointer starts at SM 0 for every launch (gpu.c).
 * The occupancy limit is the walk's CTAs per SM (ctas_per_sm, warps_per_sm). */
#include "workload_int.h"

size_t gpuest_cta_place_first(int num_sms, int per_sm, uint32_t num_ctas, int *sm_of, int *count, size_t max)
{
    size_t n = 0;
    if (num_sms < 1 || per_sm < 1)
        return 0;
    for (int s = 0; s < num_sms; s++)
        count[s] = 0;
    int rr = 0, placed = 1;
    while (placed && n < max && n < num_ctas) { /* one core cycle of the simulator's CTA issue */
        placed = 0;
        for (int k = 0; k < num_sms && n < max && n < num_ctas; k++) {
            int s = (rr + k) % num_sms;
            if (count[s] >= per_sm)
                continue;
            count[s]++;
            sm_of[n++] = s;
            rr = (s + 1) % num_sms;
            placed = 1;
        }
    }
    return n;
}
