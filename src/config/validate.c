/* validate.c: cross-field checks and values derived from a configuration (node maps, interleaving). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int is_pow2(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

int gpuest_config_num_nodes(const gpuest_config_t *cfg)
{
    if (cfg->noc.topology == GPUEST_TOPO_MESH)
        return cfg->noc.k * cfg->noc.k;
    return cfg->core.num_sms + cfg->mc.num_mcs;
}

/* n positions spread evenly over `slots` slots: i -> floor((i + 0.5) * slots / n). */
static int spread(int i, int n, int slots)
{
    return (int)(((double)i + 0.5) * slots / n);
}

static void place_bottom(int k, int n, int *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (k - 1) * k + spread(i, n, k);
}

static void place_top_bottom(int k, int n, int *out)
{
    int top = (n + 1) / 2, bottom = n - top;
    for (int i = 0; i < top; i++)
        out[i] = spread(i, top, k);
    for (int i = 0; i < bottom; i++)
        out[top + i] = (k - 1) * k + spread(i, bottom, k);
}

/* Left and right columns (the "column 0 and k-1" placement of Abts et al.). */
static void place_edge(int k, int n, int *out)
{
    int left = (n + 1) / 2, right = n - left;
    for (int i = 0; i < left; i++)
        out[i] = spread(i, left, k) * k;
    for (int i = 0; i < right; i++)
        out[left + i] = spread(i, right, k) * k + (k - 1);
}

/* Diamond: the nodes on the ring |row - c| + |col - c| = r around the centre c =
 * (k-1)/2 with r = k/2 - 0.5 rounded to the grid, taken in angular order and
 * spread evenly; for 8 MCs on an 8x8 mesh this gives two per side of the diamond. */
static int place_diamond(int k, int n, int *out)
{
    double c = (k - 1) / 2.0, r = k / 2.0 - 0.5;
    int ring[1024], count = 0;
    double angle[1024];
    for (int row = 0; row < k; row++) {
        for (int col = 0; col < k; col++) {
            double d = fabs(row - c) + fabs(col - c);
            if (fabs(d - r) <= 0.5 && count < 1024) {
                ring[count] = row * k + col;
                angle[count] = atan2(row - c, col - c);
                count++;
            }
        }
    }
    if (count < n)
        return -1;
    for (int i = 1; i < count; i++) { /* insertion sort by angle: tiny arrays */
        for (int j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
            double ta = angle[j];
            angle[j] = angle[j - 1];
            angle[j - 1] = ta;
            int tn = ring[j];
            ring[j] = ring[j - 1];
            ring[j - 1] = tn;
        }
    }
    for (int i = 0; i < n; i++)
        out[i] = ring[(int)((long)i * count / n)];
    return 0;
}

gpuest_err gpuest_config_mc_nodes(const gpuest_config_t *cfg, int *out, gpuest_error_t *err)
{
    int n = cfg->mc.num_mcs, k = cfg->noc.k;
    if (cfg->noc.topology == GPUEST_TOPO_CROSSBAR) {
        for (int i = 0; i < n; i++)
            out[i] = cfg->core.num_sms + i;
        return GPUEST_OK;
    }
    switch (cfg->noc.mc_placement) {
    case GPUEST_MCPLACE_BOTTOM:
        if (n > k)
            return gpuest_fail(err, GPUEST_ERANGE, "mc.num_mcs = %d MCs do not fit in the bottom row of a %dx%d mesh",
                               n, k, k);
        place_bottom(k, n, out);
        return GPUEST_OK;
    case GPUEST_MCPLACE_TOP_BOTTOM:
        if ((n + 1) / 2 > k)
            return gpuest_fail(err, GPUEST_ERANGE,
                               "mc.num_mcs = %d MCs do not fit in the top and bottom rows of a %dx%d mesh", n, k, k);
        place_top_bottom(k, n, out);
        return GPUEST_OK;
    case GPUEST_MCPLACE_EDGE:
        if ((n + 1) / 2 > k)
            return gpuest_fail(err, GPUEST_ERANGE,
                               "mc.num_mcs = %d MCs do not fit in the left and right columns of a %dx%d mesh", n, k, k);
        place_edge(k, n, out);
        return GPUEST_OK;
    case GPUEST_MCPLACE_DIAMOND:
        if (place_diamond(k, n, out) != 0)
            return gpuest_fail(err, GPUEST_ERANGE, "mc.num_mcs = %d MCs do not fit on the diamond of a %dx%d mesh", n,
                               k, k);
        return GPUEST_OK;
    case GPUEST_MCPLACE_LIST:
        if (cfg->noc.num_mc_nodes != n)
            return gpuest_fail(err, GPUEST_EINVAL, "noc.mc_nodes lists %d nodes but mc.num_mcs = %d (they must match)",
                               cfg->noc.num_mc_nodes, n);
        memcpy(out, cfg->noc.mc_nodes, (size_t)n * sizeof *out);
        return GPUEST_OK;
    }
    return gpuest_fail(err, GPUEST_EINVAL, "noc.mc_placement has an invalid value");
}

gpuest_err gpuest_config_sm_nodes(const gpuest_config_t *cfg, int *out, gpuest_error_t *err)
{
    int nodes = gpuest_config_num_nodes(cfg);
    int mcs[GPUEST_MAX_MCS];
    GPUEST_TRY(gpuest_config_mc_nodes(cfg, mcs, err));
    int taken = 0;
    for (int node = 0; node < nodes && taken < cfg->core.num_sms; node++) {
        int is_mc = 0;
        for (int m = 0; m < cfg->mc.num_mcs; m++)
            is_mc |= mcs[m] == node;
        if (!is_mc)
            out[taken++] = node;
    }
    if (taken < cfg->core.num_sms)
        return gpuest_fail(err, GPUEST_ERANGE,
                           "core.num_sms = %d SMs and mc.num_mcs = %d MCs need %d nodes; the network has %d",
                           cfg->core.num_sms, cfg->mc.num_mcs, cfg->core.num_sms + cfg->mc.num_mcs, nodes);
    return GPUEST_OK;
}

int gpuest_config_mc_of_address(const gpuest_config_t *cfg, uint64_t addr)
{
    return (int)((addr / (uint64_t)cfg->mc.interleave_bytes) % (uint64_t)cfg->mc.num_mcs);
}

double gpuest_cycles_convert(double cycles, double from_mhz, double to_mhz)
{
    return cycles * to_mhz / from_mhz;
}

const char *gpuest_topology_name(gpuest_topology_t t)
{
    return t == GPUEST_TOPO_MESH ? "mesh" : "crossbar";
}
const char *gpuest_routing_name(gpuest_routing_t r) { return gpuest_net_routing_name(r); }
const char *gpuest_mc_placement_name(gpuest_mc_placement_t p)
{
    static const char *const names[] = {"bottom", "top_bottom", "edge", "diamond", "list"};
    return (unsigned)p < 5 ? names[p] : "?";
}

/* ------------------------------------------------------------ validation */

/* Where the first of three keys that was set outside the preset got its value
 * (the most likely culprit of an inconsistency between them). Cross-field checks
 * list every key involved, so a file that changes either side is named. */
static const char *origin_of_any(const gpuest_config_t *cfg, char *buf, size_t cap, const char *s1, const char *k1,
                                 const char *s2, const char *k2, const char *s3, const char *k3)
{
    const char *pairs[3][2] = {{s1, k1}, {s2, k2}, {s3, k3}};
    for (int i = 0; i < 3; i++) {
        gpuest_config_key_origin(cfg, pairs[i][0], pairs[i][1], buf, cap);
        if (strncmp(buf, "preset ", 7) != 0)
            return buf;
    }
    return buf;
}

static gpuest_err check_caches(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at_buf[256];
    const gpuest_l1_cfg_t *l1 = &cfg->l1;
    if (!is_pow2(l1->line_bytes))
        return gpuest_fail(err, GPUEST_EINVAL, "%s: l1.line_bytes = %d must be a power of two",
                           gpuest_config_key_origin(cfg, "l1", "line_bytes", at_buf, sizeof at_buf), l1->line_bytes);
    if (l1->sector_bytes > l1->line_bytes || l1->line_bytes % l1->sector_bytes != 0 ||
        l1->line_bytes / l1->sector_bytes > 8)
        return gpuest_fail(
            err, GPUEST_EINVAL, "%s: l1.sector_bytes = %d must divide l1.line_bytes = %d into 1 to 8 sectors",
            origin_of_any(cfg, at_buf, sizeof at_buf, "l1", "sector_bytes", "l1", "line_bytes", "l1", "sector_bytes"),
            l1->sector_bytes, l1->line_bytes);
    if (l1->size_bytes % (l1->line_bytes * l1->assoc) != 0)
        return gpuest_fail(
            err, GPUEST_EINVAL,
            "%s: l1.size_bytes = %d is not divisible by l1.line_bytes x l1.assoc = %d x %d (allowed: multiples of %d)",
            origin_of_any(cfg, at_buf, sizeof at_buf, "l1", "size_bytes", "l1", "assoc", "l1", "line_bytes"),
            l1->size_bytes, l1->line_bytes, l1->assoc, l1->line_bytes * l1->assoc);
    const gpuest_l2_cfg_t *l2 = &cfg->l2;
    if (!is_pow2(l2->line_bytes))
        return gpuest_fail(err, GPUEST_EINVAL, "%s: l2.line_bytes = %d must be a power of two",
                           gpuest_config_key_origin(cfg, "l2", "line_bytes", at_buf, sizeof at_buf), l2->line_bytes);
    int set_bytes = l2->line_bytes * l2->assoc * l2->banks_per_mc;
    if (l2->size_per_mc_bytes % set_bytes != 0)
        return gpuest_fail(
            err, GPUEST_EINVAL,
            "%s: l2.size_per_mc_bytes = %d is not divisible by line x assoc x banks = %d (allowed: multiples of %d)",
            origin_of_any(cfg, at_buf, sizeof at_buf, "l2", "size_per_mc_bytes", "l2", "assoc", "l2", "banks_per_mc"),
            l2->size_per_mc_bytes, set_bytes, set_bytes);
    if (l2->line_bytes != l1->line_bytes)
        return gpuest_fail(
            err, GPUEST_EINVAL, "%s: l2.line_bytes = %d must equal l1.line_bytes = %d",
            origin_of_any(cfg, at_buf, sizeof at_buf, "l2", "line_bytes", "l1", "line_bytes", "l2", "line_bytes"),
            l2->line_bytes, l1->line_bytes);
    return GPUEST_OK;
}

static gpuest_err check_core(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at_buf[256];
    const gpuest_core_cfg_t *c = &cfg->core;
    if (c->threads_per_sm < c->warp_size || c->threads_per_sm > c->warps_per_sm * c->warp_size)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "%s: core.threads_per_sm = %d must lie in %d..%d (one warp .. warps_per_sm x warp_size)",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "core", "threads_per_sm", "core", "warps_per_sm",
                                         "core", "warp_size"),
                           c->threads_per_sm, c->warp_size, c->warps_per_sm * c->warp_size);
    if (c->schedulers_per_sm > c->warps_per_sm)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: core.schedulers_per_sm = %d exceeds core.warps_per_sm = %d",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "core", "schedulers_per_sm", "core",
                                         "warps_per_sm", "core", "schedulers_per_sm"),
                           c->schedulers_per_sm, c->warps_per_sm);
    return GPUEST_OK;
}

static gpuest_err check_dram(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at_buf[256];
    const gpuest_dram_cfg_t *d = &cfg->dram;
    if (d->banks % d->bank_groups != 0)
        return gpuest_fail(
            err, GPUEST_EINVAL, "%s: dram.banks = %d must be a multiple of dram.bank_groups = %d",
            origin_of_any(cfg, at_buf, sizeof at_buf, "dram", "banks", "dram", "bank_groups", "dram", "banks"),
            d->banks, d->bank_groups);
    if (d->tRC < d->tRAS + d->tRP)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: dram.tRC = %d must be at least tRAS + tRP = %d",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "dram", "tRC", "dram", "tRAS", "dram", "tRP"),
                           d->tRC, d->tRAS + d->tRP);
    if (!is_pow2(d->row_bytes) || d->row_bytes < cfg->l2.line_bytes)
        return gpuest_fail(
            err, GPUEST_EINVAL, "%s: dram.row_bytes = %d must be a power of two >= l2.line_bytes = %d",
            origin_of_any(cfg, at_buf, sizeof at_buf, "dram", "row_bytes", "l2", "line_bytes", "dram", "row_bytes"),
            d->row_bytes, cfg->l2.line_bytes);
    return GPUEST_OK;
}

static gpuest_err check_network(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    char at_buf[256];
    const gpuest_noc_cfg_t *n = &cfg->noc;
    if (!is_pow2(cfg->mc.interleave_bytes) || cfg->mc.interleave_bytes < cfg->l1.line_bytes)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "%s: mc.interleave_bytes = %d must be a power of two >= the line size %d",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "mc", "interleave_bytes", "l1", "line_bytes", "mc",
                                         "interleave_bytes"),
                           cfg->mc.interleave_bytes, cfg->l1.line_bytes);
    if (n->header_bytes >= n->flit_bytes && n->header_bytes != 0)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: noc.header_bytes = %d must be smaller than noc.flit_bytes = %d",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "noc", "header_bytes", "noc", "flit_bytes", "noc",
                                         "header_bytes"),
                           n->header_bytes, n->flit_bytes);
    if (n->topology == GPUEST_TOPO_MESH) {
        if (n->k < 2)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: noc.k = %d: a mesh needs k >= 2",
                               gpuest_config_key_origin(cfg, "noc", "k", at_buf, sizeof at_buf), n->k);
        int nodes = n->k * n->k;
        if (cfg->mc.num_mcs > nodes)
            return gpuest_fail(err, GPUEST_ERANGE, "%s: mc.num_mcs = %d exceeds the %d nodes of a %dx%d mesh",
                               origin_of_any(cfg, at_buf, sizeof at_buf, "mc", "num_mcs", "noc", "k", "mc", "num_mcs"),
                               cfg->mc.num_mcs, nodes, n->k, n->k);
        if (cfg->core.num_sms + cfg->mc.num_mcs > nodes)
            return gpuest_fail(
                err, GPUEST_ERANGE, "%s: core.num_sms + mc.num_mcs = %d + %d exceeds the %d nodes of a %dx%d mesh",
                origin_of_any(cfg, at_buf, sizeof at_buf, "noc", "k", "mc", "num_mcs", "core", "num_sms"),
                cfg->core.num_sms, cfg->mc.num_mcs, nodes, n->k, n->k);
        if (n->class_split == GPUEST_SPLIT_VIRTUAL && n->vcs < 2)
            return gpuest_fail(
                err, GPUEST_EINVAL,
                "%s: noc.vcs = %d: class_split = virtual needs at least 2 VCs (one per class); use "
                "class_split = physical",
                origin_of_any(cfg, at_buf, sizeof at_buf, "noc", "vcs", "noc", "class_split", "noc", "vcs"), n->vcs);
        int mcs[GPUEST_MAX_MCS];
        gpuest_error_t inner;
        gpuest_err rc = gpuest_config_mc_nodes(cfg, mcs, &inner);
        if (rc != GPUEST_OK)
            return gpuest_fail(
                err, rc, "%s: %s",
                origin_of_any(cfg, at_buf, sizeof at_buf, "noc", "mc_placement", "mc", "num_mcs", "noc", "k"),
                inner.msg);
        for (int i = 0; i < cfg->mc.num_mcs; i++) {
            if (mcs[i] < 0 || mcs[i] >= nodes)
                return gpuest_fail(err, GPUEST_ERANGE, "%s: noc.mc_nodes: node %d is outside the mesh (allowed 0..%d)",
                                   gpuest_config_key_origin(cfg, "noc", "mc_nodes", at_buf, sizeof at_buf), mcs[i],
                                   nodes - 1);
            for (int j = 0; j < i; j++)
                if (mcs[i] == mcs[j])
                    return gpuest_fail(err, GPUEST_EINVAL, "%s: noc.mc_nodes: node %d is listed twice",
                                       gpuest_config_key_origin(cfg, "noc", "mc_nodes", at_buf, sizeof at_buf), mcs[i]);
        }
    } else if (n->num_mc_nodes != 0 || n->mc_placement == GPUEST_MCPLACE_LIST) {
        return gpuest_fail(
            err, GPUEST_EINVAL, "%s: noc.mc_placement = list / noc.mc_nodes apply to a mesh, not a crossbar",
            origin_of_any(cfg, at_buf, sizeof at_buf, "noc", "mc_placement", "noc", "mc_nodes", "noc", "topology"));
    }
    return GPUEST_OK;
}

gpuest_err gpuest_config_validate(const gpuest_config_t *cfg, gpuest_error_t *err)
{
    GPUEST_TRY(check_core(cfg, err));
    GPUEST_TRY(check_caches(cfg, err));
    GPUEST_TRY(check_dram(cfg, err));
    GPUEST_TRY(check_network(cfg, err));
    char at_buf[256];
    if (strcmp(cfg->technique.compression, "dsm_approx") != 0 && cfg->technique.approx_bits != 0)
        return gpuest_fail(err, GPUEST_EINVAL,
                           "%s: technique.approx_bits = %d applies only to compression = dsm_approx",
                           origin_of_any(cfg, at_buf, sizeof at_buf, "technique", "approx_bits", "technique",
                                         "compression", "technique", "approx_bits"),
                           cfg->technique.approx_bits);
    return GPUEST_OK;
}
