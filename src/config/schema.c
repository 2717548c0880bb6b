/* schema.c: every configuration key with its type, range and meaning. */
#include <string.h>

#include "compress/compress.h" /* the algorithm registry names technique.compression's values */
#include "schema.h"

/* names_fn is set only where a key's names come from another registry; the
 * other rows leave it out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define OFF(field) offsetof(gpuest_config_t, field)

static const char *const topology_names[] = {"mesh", "crossbar", NULL};
static const char *const split_names[] = {"virtual", "physical", NULL};
static const char *const placement_names[] = {"bottom", "top_bottom", "edge", "diamond", "list", NULL};
static const char *const warp_sched_names[] = {"gto", "lrr", NULL};
static const char *const dram_sched_names[] = {"frfcfs", "fcfs", NULL};
static const char *const probing_names[] = {"none", "pp", "dp", "ip", "rp", "ccn", "la_llc", NULL};
static const char *const probe_selector_names[] = {"supplier", "index", NULL};
static const char *const l1_compression_names[] = {"none",     "static_bdi",       "static_sc",
                                                   "static_bpc", "latte_cc",        "latte_cc_bdi_bpc",
                                                   "adaptive_hit_count", "adaptive_cmp", "fann",
                                                   "kernel_opt", NULL};
static const char *const coalescing_names[] = {"none", "pcu", "warppool", "pcu+warppool", NULL};
static const char *const filtering_names[] = {"none", "df_truc", "df_man", NULL};
static const char *const allocator_names[] = {"islip", "separable_input_first", NULL};

const char *const config_sections[] = {"preset", "core", "l1", "l2", "dram", "mc", "noc", "technique", NULL};

const config_key config_keys[] = {
    /* core */
    {"core", "num_sms", KEY_INT, OFF(core.num_sms), 1, 1024, NULL, "number of SMs"},
    {"core", "warp_size", KEY_INT, OFF(core.warp_size), 32, 32, NULL, "threads per warp (SIMT width)"},
    {"core", "warps_per_sm", KEY_INT, OFF(core.warps_per_sm), 1, 256, NULL, "max resident warps per SM"},
    {"core", "ctas_per_sm", KEY_INT, OFF(core.ctas_per_sm), 1, 64, NULL, "max resident CTAs per SM"},
    {"core", "threads_per_sm", KEY_INT, OFF(core.threads_per_sm), 32, 8192, NULL, "max resident threads per SM"},
    {"core", "registers_per_sm", KEY_INT, OFF(core.registers_per_sm), 1024, 1048576, NULL, "32-bit registers per SM"},
    {"core", "shmem_per_sm", KEY_INT, OFF(core.shmem_per_sm), 0, 1048576, NULL, "shared memory bytes per SM"},
    {"core", "schedulers_per_sm", KEY_INT, OFF(core.schedulers_per_sm), 1, 8, NULL, "warp schedulers per SM"},
    {"core", "scheduler", KEY_ENUM, OFF(core.scheduler), 0, 0, warp_sched_names, "warp scheduler policy"},
    {"core", "clock_mhz", KEY_DOUBLE, OFF(core.clock_mhz), 1, 10000, NULL, "core clock (MHz)"},
    {"core", "alu_latency", KEY_INT, OFF(core.alu_latency), 1, 1000, NULL, "ALU instruction latency (core cycles)"},
    {"core", "sfu_latency", KEY_INT, OFF(core.sfu_latency), 1, 1000, NULL, "SFU instruction latency (core cycles)"},
    {"core", "shmem_latency", KEY_INT, OFF(core.shmem_latency), 1, 1000, NULL,
     "shared-memory access latency (core cycles)"},
    {"core", "const_latency", KEY_INT, OFF(core.const_latency), 1, 1000, NULL,
     "constant-cache hit latency (core cycles)"},
    {"core", "l1i_size_bytes", KEY_INT, OFF(core.l1i_size_bytes), 128, 1048576, NULL,
     "L1 instruction cache capacity per SM (bytes)"},
    {"core", "l1i_line_bytes", KEY_INT, OFF(core.l1i_line_bytes), 8, 128, NULL,
     "L1 instruction cache line (bytes, at most the 128-byte memory request)"},
    {"core", "l1i_assoc", KEY_INT, OFF(core.l1i_assoc), 1, 64, NULL, "L1 instruction cache ways"},
    {"core", "l1c_size_bytes", KEY_INT, OFF(core.l1c_size_bytes), 64, 1048576, NULL,
     "constant cache capacity per SM (bytes)"},
    {"core", "l1c_line_bytes", KEY_INT, OFF(core.l1c_line_bytes), 8, 128, NULL,
     "constant cache line (bytes, at most the 128-byte memory request)"},
    {"core", "l1c_assoc", KEY_INT, OFF(core.l1c_assoc), 1, 64, NULL, "constant cache ways"},
    {"core", "perfect_inst_const_cache", KEY_INT, OFF(core.perfect_inst_const_cache), 0, 1, NULL,
     "1: instruction fetches and constant reads always hit (no traffic)"},
    /* l1 */
    {"l1", "size_bytes", KEY_INT, OFF(l1.size_bytes), 512, 16777216, NULL, "L1D capacity per SM (bytes)"},
    {"l1", "line_bytes", KEY_INT, OFF(l1.line_bytes), 32, 512, NULL, "L1D line size (bytes)"},
    {"l1", "sector_bytes", KEY_INT, OFF(l1.sector_bytes), 8, 512, NULL, "L1D sector size (bytes)"},
    {"l1", "assoc", KEY_INT, OFF(l1.assoc), 1, 64, NULL, "L1D ways"},
    {"l1", "mshrs", KEY_INT, OFF(l1.mshrs), 1, 4096, NULL, "L1D MSHR entries"},
    {"l1", "mshr_merge", KEY_INT, OFF(l1.mshr_merge), 1, 256, NULL, "requests merged per MSHR entry"},
    {"l1", "hit_latency", KEY_INT, OFF(l1.hit_latency), 1, 1000, NULL, "L1D hit latency (core cycles)"},
    {"l1", "miss_queue", KEY_INT, OFF(l1.miss_queue), 1, 4096, NULL, "miss queue entries towards the network"},
    /* l2 */
    {"l2", "size_per_mc_bytes", KEY_INT, OFF(l2.size_per_mc_bytes), 1024, 268435456, NULL, "L2 slice per MC (bytes)"},
    {"l2", "line_bytes", KEY_INT, OFF(l2.line_bytes), 32, 512, NULL, "L2 line size (bytes)"},
    {"l2", "assoc", KEY_INT, OFF(l2.assoc), 1, 64, NULL, "L2 ways"},
    {"l2", "banks_per_mc", KEY_INT, OFF(l2.banks_per_mc), 1, 64, NULL, "L2 banks per MC"},
    {"l2", "mshrs", KEY_INT, OFF(l2.mshrs), 1, 4096, NULL, "L2 MSHR entries per slice"},
    {"l2", "mshr_merge", KEY_INT, OFF(l2.mshr_merge), 1, 65536, NULL, "requests merged per L2 MSHR entry"},
    {"l2", "hit_latency", KEY_INT, OFF(l2.hit_latency), 1, 10000, NULL, "minimum L2 hit latency (core cycles)"},
    {"l2", "clock_mhz", KEY_DOUBLE, OFF(l2.clock_mhz), 1, 10000, NULL, "L2 clock (MHz)"},
    /* dram */
    {"dram", "clock_mhz", KEY_DOUBLE, OFF(dram.clock_mhz), 1, 10000, NULL, "DRAM command clock (MHz)"},
    {"dram", "banks", KEY_INT, OFF(dram.banks), 1, 256, NULL, "banks per channel"},
    {"dram", "bank_groups", KEY_INT, OFF(dram.bank_groups), 1, 64, NULL, "bank groups per channel"},
    {"dram", "row_bytes", KEY_INT, OFF(dram.row_bytes), 128, 65536, NULL, "row (page) size per bank (bytes)"},
    {"dram", "chips_per_channel", KEY_INT, OFF(dram.chips_per_channel), 1, 64, NULL, "DRAM chips per channel"},
    {"dram", "chip_bytes", KEY_INT, OFF(dram.chip_bytes), 1, 64, NULL, "data bus width per chip (bytes)"},
    {"dram", "burst_length", KEY_INT, OFF(dram.burst_length), 1, 64, NULL, "data transfers per column command"},
    {"dram", "data_rate", KEY_INT, OFF(dram.data_rate), 1, 16, NULL,
     "data transfers per command clock (GDDR5: 4)"},
    {"dram", "tCL", KEY_INT, OFF(dram.tCL), 1, 1000, NULL, "CAS latency (DRAM cycles)"},
    {"dram", "tRP", KEY_INT, OFF(dram.tRP), 1, 1000, NULL, "precharge (DRAM cycles)"},
    {"dram", "tRC", KEY_INT, OFF(dram.tRC), 1, 1000, NULL, "row cycle (DRAM cycles)"},
    {"dram", "tRAS", KEY_INT, OFF(dram.tRAS), 1, 1000, NULL, "row active time (DRAM cycles)"},
    {"dram", "tCCD", KEY_INT, OFF(dram.tCCD), 1, 1000, NULL, "column to column (DRAM cycles)"},
    {"dram", "tRCD", KEY_INT, OFF(dram.tRCD), 1, 1000, NULL, "row to column (DRAM cycles)"},
    {"dram", "tRRD", KEY_INT, OFF(dram.tRRD), 1, 1000, NULL, "row to row, different banks (DRAM cycles)"},
    {"dram", "tWR", KEY_INT, OFF(dram.tWR), 1, 1000, NULL, "write recovery (DRAM cycles)"},
    {"dram", "tCDLR", KEY_INT, OFF(dram.tCDLR), 1, 1000, NULL, "last write data to read command (DRAM cycles); tWTR = WL + burst + tCDLR"},
    {"dram", "WL", KEY_INT, OFF(dram.WL), 0, 1000, NULL, "write latency (DRAM cycles)"},
    {"dram", "tCCDL", KEY_INT, OFF(dram.tCCDL), 0, 1000, NULL, "column to column, same bank group (0: none)"},
    {"dram", "tRRDL", KEY_INT, OFF(dram.tRRDL), 0, 1000, NULL, "activate to activate, same bank group (0: none)"},
    {"dram", "tRTPL", KEY_INT, OFF(dram.tRTPL), 0, 1000, NULL, "read to precharge, same bank group (0: none)"},
    {"dram", "latency", KEY_INT, OFF(dram.latency), 0, 10000, NULL,
     "fixed DRAM pipeline latency (core cycles, GPGPU-Sim -dram_latency)"},
    {"dram", "min_latency", KEY_INT, OFF(dram.min_latency), 1, 10000, NULL,
     "documents' minimum DRAM latency (core cycles, reference only)"},
    {"dram", "queue_size", KEY_INT, OFF(dram.queue_size), 1, 4096, NULL, "MC request queue entries"},
    {"dram", "scheduler", KEY_ENUM, OFF(dram.scheduler), 0, 0, dram_sched_names, "DRAM scheduler"},
    /* mc */
    {"mc", "num_mcs", KEY_INT, OFF(mc.num_mcs), 1, GPUEST_MAX_MCS, NULL, "memory controllers (one L2 slice each)"},
    {"mc", "interleave_bytes", KEY_INT, OFF(mc.interleave_bytes), 32, 1048576, NULL,
     "address chunk mapped to one MC (bytes, power of two)"},
    {"mc", "request_queue", KEY_INT, OFF(mc.request_queue), 1, 4096, NULL,
     "icnt->L2 queue behind the ROP delay (packets); full: the MC accepts no request"},
    {"mc", "reply_queue", KEY_INT, OFF(mc.reply_queue), 1, 4096, NULL,
     "L2->icnt (reply) queue (packets); full: the L2 stops"},
    {"mc", "sub_partitions", KEY_INT, OFF(mc.sub_partitions), 1, 8, NULL,
     "memory sub-partitions per channel (each an L2 bank, queues and a crossbar port)"},
    /* noc */
    {"noc", "topology", KEY_ENUM, OFF(noc.topology), 0, 0, topology_names, "network topology"},
    {"noc", "k", KEY_INT, OFF(noc.k), 0, 32, NULL, "mesh side: k x k routers (0 for a crossbar)"},
    {"noc", "vcs", KEY_INT, OFF(noc.vcs), 1, 64, NULL, "virtual channels per port (all classes)"},
    {"noc", "buffer_flits", KEY_INT, OFF(noc.buffer_flits), 1, 1024, NULL, "flits per VC buffer"},
    {"noc", "flit_bytes", KEY_INT, OFF(noc.flit_bytes), 4, 256, NULL, "flit (channel) width in bytes"},
    {"noc", "header_bytes", KEY_INT, OFF(noc.header_bytes), 0, 256, NULL,
     "packet header bytes (0: the header occupies a whole head flit)"},
    {"noc", "routing_delay", KEY_INT, OFF(noc.routing_delay), 0, 16, NULL, "BookSim routing_delay"},
    {"noc", "vc_alloc_delay", KEY_INT, OFF(noc.vc_alloc_delay), 1, 16, NULL, "BookSim vc_alloc_delay"},
    {"noc", "sw_alloc_delay", KEY_INT, OFF(noc.sw_alloc_delay), 1, 16, NULL, "BookSim sw_alloc_delay"},
    {"noc", "st_prepare_delay", KEY_INT, OFF(noc.st_prepare_delay), 0, 16, NULL, "BookSim st_prepare_delay"},
    {"noc", "st_final_delay", KEY_INT, OFF(noc.st_final_delay), 1, 16, NULL, "BookSim st_final_delay"},
    {"noc", "credit_delay", KEY_INT, OFF(noc.credit_delay), 0, 16, NULL, "BookSim credit_delay"},
    {"noc", "output_delay", KEY_INT, OFF(noc.output_delay), 0, 16, NULL, "BookSim output_delay"},
    {"noc", "link_latency", KEY_INT, OFF(noc.link_latency), 1, 64, NULL, "link traversal (interconnect cycles)"},
    {"noc", "routing_request", KEY_ENUM, OFF(noc.routing_request), 0, 0, gpuest_net_routing_names,
     "dimension order of the request class"},
    {"noc", "routing_reply", KEY_ENUM, OFF(noc.routing_reply), 0, 0, gpuest_net_routing_names,
     "dimension order of the reply class"},
    {"noc", "class_split", KEY_ENUM, OFF(noc.class_split), 0, 0, split_names,
     "message classes on VC partitions of one network or on separate networks"},
    {"noc", "mc_placement", KEY_ENUM, OFF(noc.mc_placement), 0, 0, placement_names, "where the MCs sit in the mesh"},
    {"noc", "mc_nodes", KEY_INT_LIST, OFF(noc.mc_nodes), 0, 1023, NULL,
     "explicit MC node ids (row * k + col) for mc_placement = list"},
    {"noc", "xbar_port_flits", KEY_INT, OFF(noc.xbar_port_flits), 1, 16, NULL, "crossbar flits per cycle per port"},
    {"noc", "vc_allocator", KEY_ENUM, OFF(noc.vc_allocator), 0, 0, allocator_names,
     "VC allocator (BookSim vc_allocator)"},
    {"noc", "sw_allocator", KEY_ENUM, OFF(noc.sw_allocator), 0, 0, allocator_names,
     "switch allocator (BookSim sw_allocator)"},
    {"noc", "alloc_iters", KEY_INT, OFF(noc.alloc_iters), 1, 16, NULL, "allocator iterations (BookSim alloc_iters)"},
    {"noc", "wait_for_tail_credit", KEY_INT, OFF(noc.wait_for_tail_credit), 0, 1, NULL,
     "1: reuse an output VC only after its tail credit returns (BookSim)"},
    {"noc", "inject_queue", KEY_INT, OFF(noc.inject_queue), 1, 4096, NULL, "NI injection queue (packets)"},
    {"noc", "eject_queue", KEY_INT, OFF(noc.eject_queue), 1, 4096, NULL, "NI ejection queue (packets)"},
    {"noc", "inject_queue_flits", KEY_INT, OFF(noc.inject_queue_flits), 0, 65536, NULL,
     "NI injection queue in flits (0: count packets only)"},
    {"noc", "eject_queue_flits", KEY_INT, OFF(noc.eject_queue_flits), 0, 65536, NULL,
     "NI ejection queue in flits per class (0: count packets only)"},
    {"noc", "clock_mhz", KEY_DOUBLE, OFF(noc.clock_mhz), 1, 10000, NULL, "interconnect clock (MHz)"},
    /* technique */
    {"technique", "compression", KEY_NAME, OFF(technique.compression), 0, 0, NULL,
     "reply-packet compression at the MC network interface", gpuest_compress_name_list},
    {"technique", "approx_bits", KEY_INT, OFF(technique.approx_bits), 0, 23, NULL,
     "mantissa bits dropped by dsm_approx in approximable regions (0: from the approximation predictor)"},
    {"technique", "approx_max_error", KEY_DOUBLE, OFF(technique.approx_max_error), 0, 1, NULL,
     "dsm_approx: application error the predictor's bits must keep (0..1)"},
    {"technique", "compress_overlap", KEY_INT, OFF(technique.compress_overlap), 0, 1, NULL,
     "1: compression overlaps the wait in the MC reply queue (0: serial, as the thesis)"},
    {"technique", "sc2_sample_lines", KEY_INT, OFF(technique.sc2_sample_lines), 1, 1000000, NULL,
     "sc2: replies per MC sampled into the value frequency table each period"},
    {"technique", "sc2_period_lines", KEY_INT, OFF(technique.sc2_period_lines), 1, 100000000, NULL,
     "sc2: replies per MC between code book rebuilds (>= sc2_sample_lines)"},
    {"technique", "compress_latency", KEY_INT, OFF(technique.compress_latency), -1, 1000, NULL,
     "compression latency (cycles); -1 = the algorithm's default"},
    {"technique", "decompress_latency", KEY_INT, OFF(technique.decompress_latency), -1, 1000, NULL,
     "decompression latency (cycles); -1 = the algorithm's default"},
    {"technique", "coalescing", KEY_ENUM, OFF(technique.coalescing), 0, 0, coalescing_names,
     "packet coalescing units in front of the L2 and/or inter-warp merging at the L1 (none, pcu, warppool, "
     "pcu+warppool: coalescing paper sections 3 and 5)"},
    {"technique", "pcu_rgrs", KEY_INT, OFF(technique.pcu_rgrs), 1, 4096, NULL,
     "request grouping registers per packet coalescing unit"},
    {"technique", "probing", KEY_ENUM, OFF(technique.probing), 0, 0, probing_names,
     "remote-L1 probing (none, pp, dp, ip, rp, ccn, la_llc: remote-core paper)"},
    {"technique", "probe_cores", KEY_INT, OFF(technique.probe_cores), 1, 1023, NULL,
     "C: remote cores searched per probed L1 read miss (at most num_sms - 1)"},
    {"technique", "probe_count", KEY_INT, OFF(technique.probe_count), 1, 8, NULL,
     "S: probes per probed miss, sent with probability probe_rate (else S - 1)"},
    {"technique", "probe_rate", KEY_DOUBLE, OFF(technique.probe_rate), 0, 1, NULL, "P: probability of S probes"},
    {"technique", "probe_selector", KEY_ENUM, OFF(technique.probe_selector), 0, 0, probe_selector_names,
     "which cores to probe: supplier (reply counts per 8192 cycles) or index (ascending core index)"},
    {"technique", "probe_precision", KEY_DOUBLE, OFF(technique.probe_precision), 0, 1, NULL,
     "ip only: 1 - the share of non-shared misses probed anyway (imperfect IP, Fig. 14b)"},
    {"technique", "l1_compression", KEY_ENUM, OFF(technique.l1_compression), 0, 0, l1_compression_names,
     "compressed L1D policy (LATTE-CC): none, static_bdi, static_sc, static_bpc, latte_cc, latte_cc_bdi_bpc, "
     "adaptive_hit_count, adaptive_cmp"},
    {"technique", "warppool_queues", KEY_INT, OFF(technique.warppool_queues), 1, 1024, NULL,
     "WarpPool: line queues per SM (requests of one line from several warps merge in one queue)"},
    {"technique", "warppool_depth", KEY_INT, OFF(technique.warppool_depth), 1, 64, NULL,
     "WarpPool: requests one queue holds (all answered by one L1 access)"},
    {"technique", "warppool_latency", KEY_INT, OFF(technique.warppool_latency), 1, 100, NULL,
     "WarpPool: core cycles from entering the pool to the earliest L1 access (insert + select)"},
    {"technique", "filtering", KEY_ENUM, OFF(technique.filtering), 0, 0, filtering_names,
     "critical-word data filtering with DPC (none, df_truc, df_man: data-filtering thesis)"},
    {"technique", "filter_table_entries", KEY_INT, OFF(technique.filter_table_entries), 1, 65536, NULL,
     "data filtering: data-filter table entries per MC port (PDRs held between request and reply)"},
    {"technique", "filter_window", KEY_INT, OFF(technique.filter_window), 1, 64, NULL,
     "data filtering: entries of each windows-manager window (ICA 64/96/128 B and FDR)"},
    {"technique", "filter_ica_threshold", KEY_INT, OFF(technique.filter_ica_threshold), 0, 100, NULL,
     "data filtering: ICA share (%) of a window above which the whole line is fetched"},
    {"technique", "filter_fdr_threshold", KEY_INT, OFF(technique.filter_fdr_threshold), 0, 100, NULL,
     "data filtering: FDR share (%) of the FDR window above which the whole line is fetched"},
    {"technique", "filter_rc", KEY_INT, OFF(technique.filter_rc), 0, 1, NULL,
     "data filtering: 1 = the request controller decides PDR or FDR; 0 = always the critical sectors"},
};

const size_t config_key_count = sizeof config_keys / sizeof config_keys[0];

const config_key *config_find_key(const char *section, const char *key)
{
    for (size_t i = 0; i < config_key_count; i++)
        if (strcmp(config_keys[i].section, section) == 0 && strcmp(config_keys[i].key, key) == 0)
            return &config_keys[i];
    return NULL;
}

_Static_assert(sizeof config_keys / sizeof config_keys[0] <= GPUEST_CONFIG_MAX_KEYS, "raise GPUEST_CONFIG_MAX_KEYS");
