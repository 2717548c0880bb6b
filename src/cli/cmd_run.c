/* cmd_run.c: 'gpuest run': the main job on the built-in default design point (mesh56). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static void run_help(FILE *out)
{
    fprintf(out, "usage: gpuest run [--preset P] [--config FILE] [--set S.K=V ...]\n\n"
                 "Runs the main job on the built-in default (the mesh56 preset): prints the machine\n"
                 "and the best answer this version can give for it.\n\noptions:\n" CLI_CONFIG_HELP);
}

static void print_machine(const gpuest_config_t *c)
{
    printf("machine: %s (%s)\n", c->name, gpuest_preset_description(c->name) ? gpuest_preset_description(c->name) : "");
    printf("  SMs %d x %d warps, %s, core %.0f MHz | L1D %d KB %d-way, %d B lines | L2 %d KB x %d MCs\n",
           c->core.num_sms, c->core.warps_per_sm, c->core.scheduler == GPUEST_WSCHED_GTO ? "GTO" : "LRR",
           c->core.clock_mhz, c->l1.size_bytes / 1024, c->l1.assoc, c->l1.line_bytes, c->l2.size_per_mc_bytes / 1024,
           c->mc.num_mcs);
    if (c->noc.topology == GPUEST_TOPO_MESH)
        printf("  NoC %dx%d mesh, %d VCs x %d flits, %d B flits, %s-%s routing, MCs %s, %.0f MHz\n", c->noc.k, c->noc.k,
               c->noc.vcs, c->noc.buffer_flits, c->noc.flit_bytes, gpuest_routing_name(c->noc.routing_request),
               gpuest_routing_name(c->noc.routing_reply), gpuest_mc_placement_name(c->noc.mc_placement),
               c->noc.clock_mhz);
    else
        printf("  NoC request + reply crossbars, %d B flits, %d flit(s)/cycle/port, %.0f MHz\n", c->noc.flit_bytes,
               c->noc.xbar_port_flits, c->noc.clock_mhz);
}

int cli_cmd_run(int argc, char **argv)
{
    cli_config_t cc;
    cli_config_init(&cc, "mesh56");
    cli_args_t a;
    cli_args_init(&a, argc, argv, "run");
    while (cli_args_next(&a)) {
        if (cli_args_is(&a, "help")) {
            run_help(stdout);
            return 0;
        }
        int used = a.name ? cli_config_option(&cc, &a) : 0;
        if (used < 0)
            return 2;
        if (used == 0)
            return cli_usage_error("run", "unexpected argument '%s'", a.name ? a.name : a.value);
    }
    int rc = cli_config_finish(&cc, "run");
    if (rc != 0)
        return rc;
    print_machine(&cc.cfg);
    return 0;
}
