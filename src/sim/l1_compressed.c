/* l1_compressed.c: the compressed L1D of LATTE-CC (sections III-B, IV-A): 4x tags per set,
 * data in 32-byte sub-blocks, two policy bits per tag, one decompressor per mode per SM with
 * a FIFO queue whose wait follows eq. 3. The policy (which mode a line is stored in, when a
 * code book changes) belongs to a technique, reached through the l1c_fill / l1c_access hooks;
 * this file only keeps the organization and its timing.
 *
 * Layout: sm->l1 is re-made with the same number of sets and 4 x assoc tags per set; the data
 * store of a set stays assoc x 128 bytes = 4 x assoc sub-blocks. Tags are allocated at miss time
 * (GPGPU-Sim's reservation, as the plain L1D), and until its fill a reserved tag counts as the
 * room of a raw line (4 sub-blocks), its size being unknown. A reservation in a set without that
 * room drops one line, the least recently used valid one, as the plain L1D drops its victim; at
 * most assoc tags of a set are reserved at once (a further miss waits, as one finding every way
 * reserved does). At the fill the line takes ceil(size / 32) sub-blocks, and LRU lines lose their
 * data until it fits. So with every line stored raw the compressed L1D behaves exactly as the
 * plain one (a test checks it cycle for cycle), and a policy's gains come from compression, not
 * from the organization. An invalidated tag keeps its address. */
#include "sim_int.h"

#define L1C_TAG_FACTOR 4
#define L1C_SUBBLOCK 32

struct sim_l1c_s {
    int tags_per_set, blocks_per_set;
    uint8_t *mode;   /* per tag: policy bits (GPUEST_L1C_*) */
    uint8_t *blocks; /* per tag: 32-byte sub-blocks held (valid lines only) */
    uint8_t *decomp; /* per tag: decompression cycles of its mode (0: raw) */
    sim_dq_t dq[GPUEST_L1C_MODES];
    uint64_t miss_lat_sum, miss_lat_n;
};

int sim_dq_enter(sim_dq_t *q, sim_time_t now, sim_time_t period, int lat, int *pos)
{
    while (q->len > 0 && q->done[q->head] <= now) { /* finished decompressions leave the queue */
        q->head = (q->head + 1) % SIM_DQ_CAP;
        q->len--;
    }
    *pos = q->len;
    int cycles = lat * (q->len + 1);
    if (q->len < SIM_DQ_CAP) { /* a full queue keeps its last place: the wait is bounded by its size */
        q->done[(q->head + q->len) % SIM_DQ_CAP] = now + (sim_time_t)cycles * period;
        q->len++;
    }
    return cycles;
}

gpuest_err sim_l1c_init(sim_gpu_t *g, sim_sm_t *sm, gpuest_error_t *err)
{
    const gpuest_l1_cfg_t *c = &g->cfg->l1;
    sim_tags_free(&sm->l1);
    GPUEST_TRY(sim_tags_init(&sm->l1, "l1", c->size_bytes * L1C_TAG_FACTOR, c->line_bytes,
                             c->assoc * L1C_TAG_FACTOR, err));
    struct sim_l1c_s *z = calloc(1, sizeof *z);
    size_t n = (size_t)sm->l1.sets * (size_t)sm->l1.assoc;
    if (!z || !(z->mode = calloc(n, 1)) || !(z->blocks = calloc(n, 1)) || !(z->decomp = calloc(n, 1))) {
        if (z) {
            free(z->mode);
            free(z->blocks);
        }
        free(z);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory for the compressed L1 of SM %d", sm->id);
    }
    z->tags_per_set = sm->l1.assoc;
    z->blocks_per_set = c->assoc * (c->line_bytes / L1C_SUBBLOCK);
    sm->l1comp = z;
    return GPUEST_OK;
}

void sim_l1c_free(sim_sm_t *sm)
{
    if (!sm->l1comp)
        return;
    free(sm->l1comp->mode);
    free(sm->l1comp->blocks);
    free(sm->l1comp->decomp);
    free(sm->l1comp);
    sm->l1comp = NULL;
}

static int set_index(const sim_tags_t *t, uint64_t line)
{
    return (int)((line / (uint64_t)t->line_bytes) % (uint64_t)t->sets);
}

static int valid_lines(const sim_tags_t *t)
{
    int n = 0;
    for (size_t i = 0, e = (size_t)t->sets * (size_t)t->assoc; i < e; i++)
        n += t->ways[i].valid != 0;
    return n;
}

int gpuest_sim_l1c_valid_lines(const gpuest_sim_l1c_event_t *ev)
{
    return ev->l1_tags ? valid_lines(ev->l1_tags) : ev->valid_lines;
}

/* Valid lines of the set used more recently than w. */
static int stack_depth(const sim_tags_t *t, const sim_way_t *w)
{
    const sim_way_t *s = &t->ways[(size_t)set_index(t, w->tag) * (size_t)t->assoc];
    int d = 0;
    for (int i = 0; i < t->assoc; i++)
        d += s[i].valid && &s[i] != w && s[i].lru > w->lru;
    return d;
}

static void event_base(sim_gpu_t *g, sim_sm_t *sm, uint64_t line, gpuest_sim_l1c_event_t *ev)
{
    *ev = (gpuest_sim_l1c_event_t){
        .sm = sm->id,
        .set = set_index(&sm->l1, line),
        .sets = sm->l1.sets,
        .line = line,
        .launch = (int)g->launch.index,
        .core_cycle = sim_core_cycle(g),
        .l1_tags = &sm->l1,
        .avail_sum = sm->lt_avail,
        .sm_cycles = sm->lt_cycles,
        .sched_issue = sm->lt_issue,
        .sched_runs = sm->lt_runs,
        .miss_lat_sum = sm->l1comp->miss_lat_sum,
        .miss_lat_n = sm->l1comp->miss_lat_n,
    };
}

/* Drops the data of every valid line stored in a mode of `mask` (a code book was replaced). */
static void invalidate_modes(sim_sm_t *sm, unsigned mask)
{
    for (size_t i = 0, e = (size_t)sm->l1.sets * (size_t)sm->l1.assoc; i < e; i++)
        if (sm->l1.ways[i].valid && (mask & (1u << sm->l1comp->mode[i])))
            sm->l1.ways[i].valid = 0;
}

static void report_access(sim_gpu_t *g, sim_sm_t *sm, const gpuest_sim_l1c_event_t *ev)
{
    if (!g->opts->hooks.l1c_access)
        return;
    unsigned mask = g->opts->hooks.l1c_access(g->opts->hooks.ctx, ev);
    if (mask)
        invalidate_modes(sm, mask);
}

/* The event of a hit on way: its line's mode and LRU depth. */
static void hit_event(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way, gpuest_sim_l1c_event_t *ev)
{
    event_base(g, sm, way->tag, ev);
    ev->hit = 1;
    ev->mode = sm->l1comp->mode[way - sm->l1.ways];
    ev->depth = stack_depth(&sm->l1, way);
}

sim_time_t sim_l1c_hit(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way)
{
    struct sim_l1c_s *z = sm->l1comp;
    size_t w = (size_t)(way - sm->l1.ways);
    gpuest_sim_l1c_event_t ev;
    hit_event(g, sm, way, &ev);
    if (z->decomp[w] > 0)
        ev.extra_cycles = sim_dq_enter(&z->dq[z->mode[w]], g->now, g->period[GPUEST_CLK_CORE], z->decomp[w],
                                       &ev.queue_pos);
    ev.hit_latency = g->cfg->l1.hit_latency + ev.extra_cycles;
    report_access(g, sm, &ev);
    return (sim_time_t)ev.extra_cycles * g->period[GPUEST_CLK_CORE];
}

/* Fast-forward (sample.c): the clock stands still, so a hit enters no decompression queue; the
 * policy still sees it (its counters advance and may replace a code book, as in detailed mode). */
void sim_l1c_hit_functional(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way)
{
    gpuest_sim_l1c_event_t ev;
    hit_event(g, sm, way, &ev);
    ev.hit_latency = g->cfg->l1.hit_latency + sm->l1comp->decomp[way - sm->l1.ways];
    report_access(g, sm, &ev);
}

void sim_l1c_miss(sim_gpu_t *g, sim_sm_t *sm, uint64_t line)
{
    gpuest_sim_l1c_event_t ev;
    event_base(g, sm, line, &ev);
    report_access(g, sm, &ev);
}

/* Sub-blocks a raw line takes: the room a reservation frees. */
#define RAW_BLOCKS (GPUEST_LINE_BYTES / L1C_SUBBLOCK)

/* Sub-blocks of the set taken, leaving out `skip`: valid lines' data, and a raw line's room for
 * each reserved tag (its size is known only at its fill); *lru is the least recently used valid
 * line (NULL when none). */
static int used_blocks(const sim_sm_t *sm, const sim_way_t *s, const sim_way_t *skip, sim_way_t **lru)
{
    int used = 0;
    *lru = NULL;
    for (int i = 0; i < sm->l1.assoc; i++) {
        const sim_way_t *w = &s[i];
        if (w == skip)
            continue;
        if (w->reserved) {
            used += RAW_BLOCKS;
        } else if (w->valid) {
            used += sm->l1comp->blocks[w - sm->l1.ways];
            if (!*lru || w->lru < (*lru)->lru)
                *lru = (sim_way_t *)w;
        }
    }
    return used;
}

static sim_way_t *set_of_line(const sim_sm_t *sm, uint64_t line)
{
    return &sm->l1.ways[(size_t)set_index(&sm->l1, line) * (size_t)sm->l1.assoc];
}

/* Frees sub-blocks in the set of `keep` (LRU valid lines first) until `need` more fit. */
static void make_room(sim_sm_t *sm, sim_way_t *keep, int need)
{
    sim_way_t *s = set_of_line(sm, keep->tag), *lru;
    while (used_blocks(sm, s, keep, &lru) + need > sm->l1comp->blocks_per_set && lru)
        lru->valid = 0;
}

int sim_l1c_can_reserve(const sim_sm_t *sm, uint64_t line)
{
    int reserved = 0;
    const sim_way_t *s = set_of_line(sm, line);
    for (int i = 0; i < sm->l1.assoc; i++)
        reserved += s[i].reserved != 0;
    return (reserved + 1) * RAW_BLOCKS <= sm->l1comp->blocks_per_set; /* at most assoc reserved */
}

/* As the plain L1D drops one victim when a miss reserves a way of a full set, a reservation here
 * drops at most one line: the least recently used, when the set has no room left for a raw line.
 * Any further room the line needs is made at its fill. */
void sim_l1c_reserved(sim_sm_t *sm, sim_way_t *way)
{
    sim_way_t *lru;
    if (used_blocks(sm, set_of_line(sm, way->tag), way, &lru) + RAW_BLOCKS > sm->l1comp->blocks_per_set && lru)
        lru->valid = 0;
}

/* Sizes the line just filled into `way` (the l1c_fill hook on its bytes) and makes room for it. */
static void size_line(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way)
{
    struct sim_l1c_s *z = sm->l1comp;
    size_t w = (size_t)(way - sm->l1.ways);
    gpuest_sim_l1c_line_t out = {GPUEST_L1C_NONE, GPUEST_LINE_BYTES, 0};
    if (g->opts->hooks.l1c_fill) {
        uint8_t buf[GPUEST_LINE_BYTES];
        const uint8_t *data = g->src && g->src->read_line ? g->src->read_line(g->src->ctx, way->tag, buf) : NULL;
        gpuest_sim_l1c_event_t ev;
        event_base(g, sm, way->tag, &ev);
        g->opts->hooks.l1c_fill(g->opts->hooks.ctx, &ev, data, &out);
    }
    int bytes = out.bytes < 1 ? 1 : out.bytes > GPUEST_LINE_BYTES ? GPUEST_LINE_BYTES : out.bytes;
    int need = (bytes + L1C_SUBBLOCK - 1) / L1C_SUBBLOCK;
    z->mode[w] = (uint8_t)(out.mode & 3);
    z->blocks[w] = (uint8_t)need;
    z->decomp[w] = (uint8_t)(out.mode == GPUEST_L1C_NONE || out.decomp_cycles < 0 ? 0
                             : out.decomp_cycles > 255                            ? 255
                                                                                  : out.decomp_cycles);
    make_room(sm, way, need);
}

void sim_l1c_filled(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way, uint64_t miss_cycles)
{
    sm->l1comp->miss_lat_sum += miss_cycles;
    sm->l1comp->miss_lat_n++;
    size_line(g, sm, way);
}

/* Fast-forward's miss of a load: the policy sees the miss, the line is filled whole into a victim
 * tag (or into `way`, its tag with some sectors missing) and stored in the size and mode the
 * policy gives its real bytes; no miss latency is recorded (the clock stands still). 1 when filled,
 * 0 when every tag of the set is reserved. */
int sim_l1c_fill_functional(sim_gpu_t *g, sim_sm_t *sm, sim_way_t *way, uint64_t line)
{
    sim_l1c_miss(g, sm, line);
    if (way)
        way->lru = ++sm->l1.stamp;
    else if (!(way = sim_tags_victim(&sm->l1, line)))
        return 0;
    sim_tags_fill(&sm->l1, way, line, 0xF);
    size_line(g, sm, way);
    return 1;
}

