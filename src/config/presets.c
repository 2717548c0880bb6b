/* presets.c: the baseline machines of the documents (ARCHITECTURE.md, "Baseline machines").
 *
 * Values come from the documents' configuration tables; where a table is silent
 * the value is a documented default (marked "choice:") taken from GPGPU-Sim 3.x's
 * GTX480 configuration, which every document's simulator builds on:
 *  - GDDR5 timing of the remote-core paper's Table II (Hynix: tCL=12 tRP=12 tRC=40
 *    tRAS=28 tCCD=2 tRCD=12 tRRD=6 tCDLR=5 tWR=12), 16 banks in 4 groups, 924 MHz,
 *    for every preset (the other documents give only the 924 MHz memory clock);
 *    from GPGPU-Sim's GTX480 config (same Hynix part): WL=4, bank groups with
 *    tCCDL=3 and tRTPL=2 (no tRRDL: 0), two 32-bit chips per channel, burst 8,
 *    GDDR5 data rate 4 per command clock -> 64 bytes per column command, 32 bytes
 *    per command cycle, 29.6 GB/s per channel (177 GB/s over 6 channels, the
 *    GTX480's figure); fixed DRAM pipeline 100 core cycles (-dram_latency 100).
 *    The documents' "220-cycle minimum DRAM latency" is that pipeline plus the
 *    120-cycle ROP (L2) latency; the DRAM's own command timing comes on top.
 *  - L1D 32 MSHRs merging 8 requests, 8-entry miss queue: GPGPU-Sim's GTX480
 *    `-gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32:8,8` (MSHRs reserved at miss time).
 *  - choice: L1D hit latency 20 core cycles (none of the documents states one).
 *  - choice: ALU latency 4, SFU latency 20 core cycles (GPGPU-Sim pipeline depths);
 *    shared memory 24, constant-cache hit 8 core cycles.
 *  - L2 per sub-partition: 32 MSHRs merging 4 requests, write-back, allocate on
 *    miss, write-allocate with fetch-on-write (GPGPU-Sim 3.x GTX480
 *    `-gpgpu_cache:dl2 64:128:8,L:B:m:W:L,A:32:4,4`, see src/sim/l2.c).
 *  - BookSim defaults for the allocators: iSLIP, 1 iteration, no wait for tail credit.
 *  - MC queues: 8-entry icnt->L2 (mc.request_queue) and L2->icnt (mc.reply_queue)
 *    queues per memory sub-partition, GPGPU-Sim's GTX480
 *    `-gpgpu_dram_partition_queues 8:8:8:8` (packets, as GPGPU-Sim counts them).
 *  - NI queues in flits, as GPGPU-Sim's interconnect interface sizes them: an
 *    injection (input) buffer of 9 flits (its default when input_buffer_size = 0)
 *    and an ejection side of 8 + 16 flits (ejection buffer = vc_buf_size, boundary
 *    buffer 16) per class. The packet bounds (16 injection, 24 ejection) are then
 *    never the binding ones for read traffic.
 *  - choice: 2 KB DRAM rows.
 *  - BookSim delays: "2-cycle router" (data-filtering thesis Table 5.1) is taken as
 *    VC allocation + switch allocation with look-ahead routing (routing_delay 0),
 *    st_final_delay 1 and a 1-cycle link, as GPGPU-Sim's mesh configs set them.
 */
#include <string.h>

#include "config.h"

const char *const gpuest_preset_names[] = {"fermi", "mesh56", "mesh28", "latte15", NULL};

static const char *const preset_descriptions[] = {
    "15 SMs / 6 MCs, request + reply crossbars, 700 MHz (packet compression thesis Table 6.1)",
    "56 SMs / 8 MCs, 8x8 mesh, 4 VCs x 8 flits, 1.4 GHz (coalescing paper Table 1, data-filtering Table 5.1)",
    "28 SMs / 8 MCs, 6x6 mesh, 1 VC x 8 flits, 32 B flits, 700 MHz NoC (remote-core paper Table II)",
    "15 SMs / 6 MCs (12 L2 banks), crossbar, GTX480-like (LATTE-CC Table II)",
};

const char *gpuest_preset_description(const char *name)
{
    for (size_t i = 0; gpuest_preset_names[i]; i++)
        if (strcmp(gpuest_preset_names[i], name) == 0)
            return preset_descriptions[i];
    return NULL;
}

/* Fermi-class SM and memory defaults shared by all presets; each preset then
 * overrides what its document states. */
static void common_defaults(gpuest_config_t *c)
{
    memset(c, 0, sizeof *c);
    c->core = (gpuest_core_cfg_t){
        .num_sms = 15,
        .warp_size = 32,
        .warps_per_sm = 48,
        .ctas_per_sm = 8,
        .threads_per_sm = 1536,
        .registers_per_sm = 32768,
        .shmem_per_sm = 48 * 1024,
        .schedulers_per_sm = 2,
        .scheduler = GPUEST_WSCHED_GTO,
        .clock_mhz = 700.0,
        .alu_latency = 4,
        .sfu_latency = 20,
        .shmem_latency = 24,
        .const_latency = 8,
        /* GPGPU-Sim GTX480 config: -gpgpu_cache:il1 4:128:4 (4 sets x 4 ways x 128 B,
         * 2 KB) and -gpgpu_const_cache:l1 64:64:2 (64 sets x 2 ways x 64 B, 8 KB) */
        .l1i_size_bytes = 2048,
        .l1i_line_bytes = 128,
        .l1i_assoc = 4,
        .l1c_size_bytes = 8192,
        .l1c_line_bytes = 64,
        .l1c_assoc = 2,
        .perfect_inst_const_cache = 0,
    };
    c->l1 = (gpuest_l1_cfg_t){
        .size_bytes = 16 * 1024,
        .line_bytes = 128,
        .sector_bytes = 32,
        .assoc = 4,
        .mshrs = 32,
        .mshr_merge = 8,
        .hit_latency = 20,
        .miss_queue = 8,
    };
    c->l2 = (gpuest_l2_cfg_t){
        .size_per_mc_bytes = 64 * 1024,
        .line_bytes = 128,
        .assoc = 8,
        .banks_per_mc = 1,
        .mshrs = 32,
        .mshr_merge = 4,
        .hit_latency = 120,
        .clock_mhz = 700.0,
    };
    c->dram = (gpuest_dram_cfg_t){
        .clock_mhz = 924.0,
        .banks = 16,
        .bank_groups = 4,
        .row_bytes = 2048,
        .chips_per_channel = 2,
        .chip_bytes = 4,
        .burst_length = 8,
        .data_rate = 4,
        .tCL = 12,
        .tRP = 12,
        .tRC = 40,
        .tRAS = 28,
        .tCCD = 2,
        .tRCD = 12,
        .tRRD = 6,
        .tWR = 12,
        .tCDLR = 5,
        .WL = 4,
        .tCCDL = 3,
        .tRRDL = 0,
        .tRTPL = 2,
        .latency = 100,
        .min_latency = 220,
        .queue_size = 16,
        .scheduler = GPUEST_DSCHED_FRFCFS,
    };
    c->mc = (gpuest_mc_cfg_t){
        .num_mcs = 6, .interleave_bytes = 256, .request_queue = 8, .reply_queue = 8, .sub_partitions = 1};
    c->noc = (gpuest_noc_cfg_t){
        .topology = GPUEST_TOPO_CROSSBAR,
        .k = 8,
        .vcs = 4,
        .buffer_flits = 8,
        .flit_bytes = 32,
        .header_bytes = 0,
        .routing_delay = 0,
        .vc_alloc_delay = 1,
        .sw_alloc_delay = 1,
        .st_prepare_delay = 0,
        .st_final_delay = 1,
        .credit_delay = 0,
        .output_delay = 0,
        .link_latency = 1,
        .routing_request = GPUEST_ROUTE_XY,
        .routing_reply = GPUEST_ROUTE_XY,
        .class_split = GPUEST_SPLIT_VIRTUAL,
        .mc_placement = GPUEST_MCPLACE_BOTTOM,
        .num_mc_nodes = 0,
        .xbar_port_flits = 1,
        .vc_allocator = GPUEST_ALLOC_ISLIP,
        .sw_allocator = GPUEST_ALLOC_ISLIP,
        .alloc_iters = 1,
        .wait_for_tail_credit = 0,
        .inject_queue = 16,
        .eject_queue = 24, /* packets: never the binding limit next to 24 flits */
        .inject_queue_flits = 9,
        .eject_queue_flits = 24,
        .clock_mhz = 700.0,
    };
    snprintf(c->technique.compression, sizeof c->technique.compression, "none");
    c->technique.approx_bits = 0;
    c->technique.compress_latency = -1;
    c->technique.decompress_latency = -1;
    /* choice: 5 % application error, a limit the thesis' Fig. 6.4 shows most applications
     * meet at 8-12 bits; set before any run, not fitted to our results */
    c->technique.approx_max_error = 0.05;
    c->technique.compress_overlap = 0; /* thesis 6.1: no overlap */
    /* choice: SC2 samples 1024 replies per MC, then keeps the book for 16384 replies */
    c->technique.sc2_sample_lines = 1024;
    c->technique.sc2_period_lines = 16384;
    c->technique.coalescing = GPUEST_COALESCE_NONE;
    c->technique.pcu_rgrs = 128; /* coalescing paper Table 1 / Fig. 9 default */
    c->technique.probing = GPUEST_PROBE_NONE;
    c->technique.probe_cores = 15; /* IP(15,2,0.2): the remote-core paper's headline point */
    c->technique.probe_count = 2;
    c->technique.probe_rate = 0.2;
    c->technique.probe_selector = GPUEST_PROBE_SEL_SUPPLIER;
    c->technique.probe_precision = 1.0;
    c->technique.l1_compression = GPUEST_L1COMP_NONE;
    /* WarpPool (docs/technique.md): 32 queues hold one fully divergent warp instruction (32
     * lines); 8 requests a queue; 2 cycles = one to compare the line with every queue's tag and
     * insert, one for the FIFO selector, before the L1 access (merging on the critical path). */
    c->technique.warppool_queues = 32;
    c->technique.warppool_depth = 8;
    c->technique.warppool_latency = 2;
    c->technique.filtering = GPUEST_FILTER_NONE;
    c->technique.filter_table_entries = 256; /* data-filtering thesis Table 5.1 defaults */
    c->technique.filter_window = 16;
    c->technique.filter_ica_threshold = 50;
    c->technique.filter_fdr_threshold = 90;
    c->technique.filter_rc = 1;
}

/* Packet compression thesis Table 6.1: 15 SMs at 700 MHz, 6 MCs at 924 MHz, GTO,
 * L1D 16 KB (32 sets, 4-way LRU), 48 KB shared, L2 64 KB 8-way per MC, 120/220
 * cycle minimum latencies, two crossbars; coalescing paper Table 1: 256-bit
 * crossbar channels -> 32-byte flits. */
static void preset_fermi(gpuest_config_t *c)
{
    common_defaults(c);
    c->noc.topology = GPUEST_TOPO_CROSSBAR;
    c->noc.class_split = GPUEST_SPLIT_PHYSICAL; /* "2 cross-bars for request/reply network" */
    c->noc.flit_bytes = 32;
    c->noc.k = 0;
    /* GPGPU-Sim's GTX480: two sub-partitions per channel, each with its own L2
     * bank (here 32 KB of the thesis' 64 KB per MC) and crossbar port (27 ports) */
    c->mc.sub_partitions = 2;
    c->l2.banks_per_mc = 2;
}

/* Coalescing paper Table 1 (mesh column) + data-filtering thesis Table 5.1: 56 SMs,
 * 8 MCs at 924 MHz, 1.4 GHz cores and NoC, GTO, L1D 16 KB, 8x8 mesh with 4 VCs per
 * port and 8-flit buffers, 128-bit channels (16-byte flits), DOR, wormhole with
 * credits, 2-cycle routers, MCs on the bottom row. L2: the thesis says 128 KB per
 * MC (the coalescing paper 64 KB); we take 128 KB. One network with the VCs split
 * between request and reply (thesis 5.1). */
static void preset_mesh56(gpuest_config_t *c)
{
    common_defaults(c);
    c->core.num_sms = 56;
    c->core.clock_mhz = 1400.0;
    c->l2.size_per_mc_bytes = 128 * 1024;
    c->l2.clock_mhz = 1400.0;
    c->mc.num_mcs = 8;
    c->noc.topology = GPUEST_TOPO_MESH;
    c->noc.k = 8;
    c->noc.vcs = 4;
    c->noc.buffer_flits = 8;
    c->noc.flit_bytes = 16;
    c->noc.class_split = GPUEST_SPLIT_VIRTUAL;
    c->noc.mc_placement = GPUEST_MCPLACE_BOTTOM;
    c->noc.clock_mhz = 1400.0;
    /* XY requests / YX replies: the routing of the coalescing paper's headline
     * results (section 5: 15 % IPC, the 649-cycle memory latency, the MC placement
     * study are all "XY-YX"); XY-XY is one key away: noc.routing_reply = xy */
    c->noc.routing_request = GPUEST_ROUTE_XY;
    c->noc.routing_reply = GPUEST_ROUTE_YX;
}

/* Remote-core paper Table II: 28 cores at 1.4 GHz, 48 warps, 16 KB 4-way L1D, L2
 * 128 KB per channel 8-way, 8 GDDR5 MCs with FR-FCFS, 16 banks in 4 groups, 924 MHz,
 * 256-byte interleaving, 6x6 mesh at 700 MHz, 32-byte flits, 1 VC per port with 8
 * flits, iSLIP allocators. With one VC per port the request and reply classes
 * travel on separate physical networks (choice: the only deadlock-free split). */
static void preset_mesh28(gpuest_config_t *c)
{
    common_defaults(c);
    c->core.num_sms = 28;
    c->core.clock_mhz = 1400.0;
    c->l2.size_per_mc_bytes = 128 * 1024;
    c->l2.clock_mhz = 700.0;
    c->mc.num_mcs = 8;
    c->noc.topology = GPUEST_TOPO_MESH;
    c->noc.k = 6;
    c->noc.vcs = 1;
    c->noc.buffer_flits = 8;
    c->noc.flit_bytes = 32;
    c->noc.class_split = GPUEST_SPLIT_PHYSICAL;
    c->noc.mc_placement = GPUEST_MCPLACE_TOP_BOTTOM; /* choice: the paper does not say; 4 MCs top, 4 bottom */
    c->noc.clock_mhz = 700.0;
}

/* LATTE-CC Table II: 15 SMs, 48 warps, 8 CTAs, 2 schedulers, 32768 registers,
 * 48 KB shared, L1D 16 KB 128 B lines 4-way, L2 768 KB 8-way in 12 banks (6 MCs x
 * 2 banks, 128 KB per MC), 120/220 cycles, GTO, GTX480-like 700 MHz crossbar. */
static void preset_latte15(gpuest_config_t *c)
{
    common_defaults(c);
    c->l2.size_per_mc_bytes = 128 * 1024;
    c->l2.banks_per_mc = 2; /* one 64 KB bank per sub-partition, as GPGPU-Sim's GTX480 */
    c->mc.sub_partitions = 2;
    c->noc.topology = GPUEST_TOPO_CROSSBAR;
    c->noc.class_split = GPUEST_SPLIT_PHYSICAL;
    c->noc.flit_bytes = 32;
    c->noc.k = 0;
}

gpuest_err gpuest_config_preset(gpuest_config_t *cfg, const char *name, gpuest_error_t *err)
{
    static void (*const builders[])(gpuest_config_t *) = {preset_fermi, preset_mesh56, preset_mesh28, preset_latte15};
    for (size_t i = 0; gpuest_preset_names[i]; i++) {
        if (strcmp(gpuest_preset_names[i], name) == 0) {
            builders[i](cfg); /* memsets the whole struct, origins included */
            snprintf(cfg->name, sizeof cfg->name, "%s", name);
            return GPUEST_OK;
        }
    }
    char valid[256];
    size_t len = 0;
    valid[0] = '\0';
    for (size_t i = 0; gpuest_preset_names[i] && len < sizeof valid; i++)
        len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", i ? ", " : "", gpuest_preset_names[i]);
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown preset '%s' (valid presets: %s)", name, valid);
}
