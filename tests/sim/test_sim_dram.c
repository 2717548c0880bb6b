/* test_sim_dram.c: the GDDR5 channel's command timing against schedules worked out by hand.
 *
 * A bare channel (one memory controller, so a line's channel-local address is
 * its address) with the fermi preset's timing, GPGPU-Sim's GTX480 values:
 * tRCD 12, tCL 12, tRP 12, tRAS 28, tRC 40, tRRD 6, tCCD 2, tCCDL 3, tRTPL 2,
 * WL 4, tCDLR 5, tWR 12, 4 bank groups (group = bank mod 4), burst 8 at data
 * rate 4 (2 bus cycles per column command), 2 chips x 4 bytes: 64 bytes per
 * column command, two per 128-byte line. Every expected cycle below is derived
 * in the comment next to it; a constraint left out or mis-applied moves one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

#define MAXCMD 512

typedef struct {
    int n;
    int cmd[MAXCMD], bank[MAXCMD];
    int64_t row[MAXCMD], cyc[MAXCMD];
} trace_t;

typedef struct {
    gpuest_config_t c;
    sim_gpu_t g;
    sim_mc_t mc;
    trace_t tr;
    int64_t cycle;
} rig_t;

static void record(void *ctx, int cmd, int bank, int64_t row, int64_t cycle)
{
    trace_t *t = ctx;
    assert_true(t->n < MAXCMD);
    t->cmd[t->n] = cmd;
    t->bank[t->n] = bank;
    t->row[t->n] = row;
    t->cyc[t->n] = cycle;
    t->n++;
}

static void rig_config(rig_t *r)
{
    memset(r, 0, sizeof *r);
    gpuest_error_t e;
    assert_int_equal(gpuest_config_preset(&r->c, "fermi", &e), GPUEST_OK);
    r->c.mc.num_mcs = 1;
}

static void rig_start(rig_t *r)
{
    sim_gpu_t *g = &r->g;
    gpuest_error_t e;
    g->cfg = &r->c;
    g->nchan = g->nsub = g->nmc = 1;
    g->line_bytes = 128;
    g->period[GPUEST_CLK_DRAM] = 1000;
    g->chan = calloc(1, sizeof *g->chan);
    assert_non_null(g->chan);
    g->mc = &r->mc;
    assert_int_equal(sim_dram_init(g, g->chan, &e), GPUEST_OK);
    g->chan->trace = record;
    g->chan->trace_ctx = &r->tr;
}

static void rig_free(rig_t *r)
{
    sim_dram_free(r->g.chan);
    free(r->g.chan);
    sim_tfifo_free(&r->mc.fills);
}

static uint64_t line_at(const rig_t *r, int bank, int64_t row, int col)
{
    const gpuest_dram_cfg_t *d = &r->c.dram;
    return (uint64_t)row * (uint64_t)d->banks * (uint64_t)d->row_bytes + (uint64_t)bank * (uint64_t)d->row_bytes +
           (uint64_t)col * 128u;
}

static void push(rig_t *r, int32_t req, int bank, int64_t row, int col, int write)
{
    assert_int_equal(sim_dram_push(&r->g, &r->mc, req, line_at(r, bank, row, col), write), 0);
}

static void run_to(rig_t *r, int64_t cycle)
{
    for (; r->cycle < cycle; r->cycle++) {
        r->g.now = r->cycle * r->g.period[GPUEST_CLK_DRAM];
        r->g.ticks[GPUEST_CLK_DRAM] = (uint64_t)r->cycle;
        sim_dram_cycle(&r->g, 0);
    }
}

/* Cycle of the k-th command of kind cmd (to bank, or any bank when bank < 0). */
static int64_t nth(const rig_t *r, int cmd, int bank, int k)
{
    for (int i = 0; i < r->tr.n; i++)
        if (r->tr.cmd[i] == cmd && (bank < 0 || r->tr.bank[i] == bank) && k-- == 0)
            return r->tr.cyc[i];
    return -1;
}

/* DRAM cycle at which request req completed (its data or write is done). */
static int64_t done_of(const rig_t *r, int32_t req)
{
    const sim_tfifo_t *f = &r->mc.fills;
    for (uint32_t i = 0; i < f->len; i++) {
        const sim_timed_t *t = &f->buf[(f->head + i) % f->cap];
        if (t->req == req)
            return t->ready / r->g.period[GPUEST_CLK_DRAM];
    }
    return -1;
}

/* ---------------------------------------------------------------- tRRD, tRRDL */
static int64_t second_act(int bank_b, int trrd, int trrdl)
{
    rig_t r;
    rig_config(&r);
    r.c.dram.tRRD = trrd;
    r.c.dram.tRRDL = trrdl;
    rig_start(&r);
    push(&r, 0, 0, 0, 0, 0);
    push(&r, 1, bank_b, 0, 0, 0);
    run_to(&r, 60);
    assert_int_equal(nth(&r, SIM_DRAM_ACT, 0, 0), 0);
    int64_t t = nth(&r, SIM_DRAM_ACT, bank_b, 0);
    rig_free(&r);
    return t;
}

static void test_trrd(void **st)
{
    (void)st;
    assert_int_equal(second_act(1, 6, 0), 6);   /* preset: ACT, then tRRD = 6 before the next */
    assert_int_equal(second_act(1, 9, 0), 9);   /* the key is honoured */
    assert_int_equal(second_act(4, 6, 10), 10); /* banks 0 and 4 share group 0: tRRDL */
    assert_int_equal(second_act(1, 6, 10), 6);  /* banks 0 and 1 do not */
}

/* ---------------------------------------------------------------- tRCD, tCCD, tCCDL */
static void column_times(int tccd, const int64_t *expect)
{
    rig_t r;
    rig_config(&r);
    r.c.dram.tCCD = tccd;
    rig_start(&r);
    push(&r, 0, 0, 0, 0, 0); /* bank 0, group 0 */
    push(&r, 1, 1, 0, 0, 0); /* bank 1, group 1 */
    run_to(&r, 80);
    assert_int_equal(nth(&r, SIM_DRAM_ACT, 0, 0), 0);
    assert_int_equal(nth(&r, SIM_DRAM_ACT, 1, 0), 6);
    for (int k = 0; k < 4; k++)
        assert_int_equal(nth(&r, SIM_DRAM_RD, -1, k), expect[k]);
    rig_free(&r);
}

static void test_tccd(void **st)
{
    (void)st;
    /* preset: bank 0 reads at tRCD = 12; its second burst waits tCCDL = 3 (same
     * group) -> 15; bank 1 (ACT at 6) may read at 6 + tRCD = 18, then its second
     * burst at 18 + tCCDL = 21 */
    const int64_t preset[4] = {12, 15, 18, 21};
    column_times(2, preset);
    /* tCCD = 4 > tCCDL: every column command waits 4 after the previous one:
     * 12, 16, then bank 1 at max(18, 20) = 20, and 24 */
    const int64_t wide[4] = {12, 16, 20, 24};
    column_times(4, wide);
}

/* ---------------------------------------------------------------- tRAS, tRP, tRC */
static void row_cycle(int tras, int trc, int64_t pre, int64_t act2)
{
    rig_t r;
    rig_config(&r);
    r.c.dram.tRAS = tras;
    r.c.dram.tRC = trc;
    rig_start(&r);
    push(&r, 0, 0, 0, 0, 0);
    push(&r, 1, 0, 1, 0, 0); /* same bank, next row: a row conflict */
    run_to(&r, 120);
    assert_int_equal(nth(&r, SIM_DRAM_ACT, 0, 0), 0);
    assert_int_equal(nth(&r, SIM_DRAM_PRE, 0, 0), pre);
    assert_int_equal(nth(&r, SIM_DRAM_ACT, 0, 1), act2);
    assert_int_equal(nth(&r, SIM_DRAM_RD, 0, 2), act2 + 12); /* tRCD after the new activate */
    assert_int_equal(r.g.ctr.v[SC_dram_acts], 2);
    rig_free(&r);
}

static void test_tras_trc(void **st)
{
    (void)st;
    /* reads at 12 and 15 end before tRAS: PRE at tRAS = 28, ACT at max(PRE + tRP,
     * ACT + tRC) = max(40, 40) = 40 */
    row_cycle(28, 40, 28, 40);
    row_cycle(28, 48, 28, 48); /* tRC = 48 is the later bound */
    row_cycle(32, 40, 32, 44); /* tRAS = 32: PRE at 32, ACT at 32 + tRP = 44 */
}

/* ---------------------------------------------------------------- tWTR (tCDLR), write latency */
static void write_then_read(int tcdlr, int64_t rd)
{
    rig_t r;
    rig_config(&r);
    r.c.dram.tCDLR = tcdlr;
    rig_start(&r);
    push(&r, 0, 0, 0, 0, 0); /* open row 0 in banks 0 and 1 */
    push(&r, 1, 1, 0, 0, 0);
    run_to(&r, 40);
    assert_int_equal(nth(&r, SIM_DRAM_RD, -1, 3), 21);
    push(&r, 7, 0, 0, 1, 1); /* write, bank 0 (row hit) */
    push(&r, 8, 1, 0, 1, 0); /* read, bank 1 (row hit), younger */
    run_to(&r, 120);
    /* WR at 40 (tRTW = tCL + 2 + 2 - WL = 12 after the read at 21: 33 <= 40),
     * second WR at 40 + tCCDL = 43; write data WL = 4 after it, 2 cycles: done at 49 */
    assert_int_equal(nth(&r, SIM_DRAM_WR, 0, 0), 40);
    assert_int_equal(nth(&r, SIM_DRAM_WR, 0, 1), 43);
    assert_int_equal(done_of(&r, 7), 49);
    /* the read waits tWTR = WL + burst + tCDLR after the last WR */
    assert_int_equal(nth(&r, SIM_DRAM_RD, 1, 2), rd); /* bank 1's third RD (18 and 21 were the warm-up) */
    assert_int_equal(done_of(&r, 8), rd + 3 + 12 + 2); /* second burst tCCDL later, tCL, burst */
    assert_int_equal(r.g.ctr.v[SC_dram_row_hits], 2);
    rig_free(&r);
}

static void test_twtr(void **st)
{
    (void)st;
    write_then_read(5, 43 + 4 + 2 + 5); /* 54 */
    write_then_read(0, 43 + 4 + 2);     /* 49: tCDLR is the only difference */
}

/* Read/write turnarounds (a statistic for the estimate's bus model): a read, two writes and a
 * read, all row hits in bank 0 and served in order, issue RD RD WR WR WR WR RD RD: two turns. Fails
 * when write commands (4), write accesses (2 by chance, but 0 in the all-read run below) or only
 * write-to-read turns (1) are counted. */
static void test_turnarounds_counted(void **st)
{
    (void)st;
    rig_t r;
    rig_config(&r);
    rig_start(&r);
    push(&r, 0, 0, 0, 0, 0);
    push(&r, 1, 0, 0, 1, 1);
    push(&r, 2, 0, 0, 2, 1);
    push(&r, 3, 0, 0, 3, 0);
    run_to(&r, 200);
    assert_true(done_of(&r, 3) > 0);
    assert_int_equal(r.g.ctr.v[SC_dram_turns], 2);
    rig_free(&r);
}

/* ---------------------------------------------------------------- FR-FCFS */
static void test_frfcfs_row_hit_first(void **st)
{
    (void)st;
    for (int fcfs = 0; fcfs <= 1; fcfs++) {
        rig_t r;
        rig_config(&r);
        r.c.dram.scheduler = fcfs ? GPUEST_DSCHED_FCFS : GPUEST_DSCHED_FRFCFS;
        rig_start(&r);
        push(&r, 0, 0, 0, 0, 0); /* A: opens row 0 of bank 0 */
        run_to(&r, 1);
        push(&r, 1, 0, 1, 0, 0); /* B: row 1, older */
        run_to(&r, 2);
        push(&r, 2, 0, 0, 1, 0); /* C: row 0 again, younger */
        run_to(&r, 200);
        /* A: ACT 0, RD 12 and 15, done 15 + 12 + 2 = 29 */
        assert_int_equal(done_of(&r, 0), 29);
        if (!fcfs) {
            /* the row hit C overtakes B: RD at 18 (tCCDL after 15) and 21 -> done 35;
             * B then: PRE at tRAS = 28, ACT 40, RD 52 and 55 -> done 69 */
            assert_int_equal(done_of(&r, 2), 35);
            assert_int_equal(done_of(&r, 1), 69);
            assert_int_equal(r.g.ctr.v[SC_dram_row_hits], 1);
        } else {
            /* in order: B done 69; C finds row 1 open: PRE at ACT + tRAS = 68, ACT 80,
             * RD 92 and 95 -> done 109 */
            assert_int_equal(done_of(&r, 1), 69);
            assert_int_equal(done_of(&r, 2), 109);
            assert_int_equal(r.g.ctr.v[SC_dram_row_hits], 0);
        }
        rig_free(&r);
    }
}

/* ---------------------------------------------------------------- peak bandwidth */
static void test_bus_saturates_at_peak(void **st)
{
    (void)st;
    rig_t r;
    rig_config(&r);
    rig_start(&r);
    const gpuest_dram_cfg_t *d = &r.c.dram;
    /* the computed peak: chips x chip width x transfers per command clock */
    int peak = d->chips_per_channel * d->chip_bytes * d->data_rate;
    assert_int_equal(peak, 32); /* GTX480: 2 x 4 B x 4 = 32 B per command cycle (29.6 GB/s at 924 MHz) */
    int32_t req = 0;
    for (int col = 0; col < 16; col++) /* a whole row (16 lines) in each of banks 0..3 (four groups) */
        for (int b = 0; b < 4; b++)
            push(&r, req++, b, 0, col, 0);
    run_to(&r, 600);
    /* every bank is open by cycle 30 (ACTs at 0, 6, 12, 18, tRCD 12) and at least two
     * banks of different groups have lines left until well past cycle 200, so from
     * 30 to 200 the bus must carry a burst every 2 cycles: 85 column commands */
    int rds = 0, in_window = 0;
    for (int i = 0; i < r.tr.n; i++) {
        if (r.tr.cmd[i] != SIM_DRAM_RD)
            continue;
        rds++;
        in_window += r.tr.cyc[i] >= 30 && r.tr.cyc[i] < 200;
    }
    assert_int_equal(rds, 128); /* 64 lines x 2 column commands */
    assert_int_equal(in_window, 85);
    double bytes = 64.0 * in_window, cycles = 200.0 - 30.0;
    assert_true(bytes / cycles == (double)peak);
    assert_int_equal(r.g.ctr.v[SC_dram_bus], 256); /* 128 commands x 2 bus cycles */
    assert_int_equal(r.g.ctr.v[SC_dram_reads], 64);
    assert_int_equal(r.g.ctr.v[SC_dram_turns], 0); /* reads only: no turnaround */
    rig_free(&r);
}

/* ---------------------------------------------------------------- one command per cycle */
static void test_one_command_per_cycle(void **st)
{
    (void)st;
    rig_t r;
    rig_config(&r);
    r.c.dram.tRRD = 1; /* nothing else keeps two activates apart */
    rig_start(&r);
    for (int b = 0; b < 4; b++)
        push(&r, b, b, 0, 0, 0);
    run_to(&r, 100);
    for (int i = 1; i < r.tr.n; i++)
        assert_true(r.tr.cyc[i] > r.tr.cyc[i - 1]);
    for (int b = 0; b < 4; b++)
        assert_int_equal(nth(&r, SIM_DRAM_ACT, b, 0), b); /* 0, 1, 2, 3 */
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trrd),         cmocka_unit_test(test_tccd),
        cmocka_unit_test(test_tras_trc),     cmocka_unit_test(test_twtr),
        cmocka_unit_test(test_frfcfs_row_hit_first), cmocka_unit_test(test_bus_saturates_at_peak),
        cmocka_unit_test(test_one_command_per_cycle), cmocka_unit_test(test_turnarounds_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
