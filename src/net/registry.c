/* registry.c: the routing functions, by name. Adding one costs its file in impl/, its test and one line here. */
#include <stdio.h>
#include <string.h>

#include "net/net_int.h"

/* X(symbol, name): the order is the index stored in configurations; xy and yx are pinned at 0 and 1. */
#define NET_ROUTINGS(X)                                                                                              \
    X(gpuest_net_route_xy, "xy")                                                                                     \
    X(gpuest_net_route_yx, "yx")                                                                                     \
    X(gpuest_net_route_o1turn, "o1turn")

#define DECLARE(sym, name) extern const gpuest_net_routing_t sym;
NET_ROUTINGS(DECLARE)
#define ENTRY(sym, name) &sym,
static const gpuest_net_routing_t *const routings[] = {NET_ROUTINGS(ENTRY)};
#define NAME(sym, name) name,
const char *const gpuest_net_routing_names[] = {NET_ROUTINGS(NAME) NULL};

#define NUM_ROUTINGS ((int)(sizeof routings / sizeof routings[0]))

int gpuest_net_num_routings(void) { return NUM_ROUTINGS; }

const gpuest_net_routing_t *gpuest_net_routing(gpuest_routing_t id)
{
    return id >= 0 && id < NUM_ROUTINGS ? routings[id] : NULL;
}

const char *gpuest_net_routing_name(gpuest_routing_t id)
{
    return id >= 0 && id < NUM_ROUTINGS ? gpuest_net_routing_names[id] : "?";
}

gpuest_err gpuest_net_routing_find(const char *name, gpuest_routing_t *id, gpuest_error_t *err)
{
    char known[256] = "";
    for (int i = 0; i < NUM_ROUTINGS; i++) {
        if (strcmp(routings[i]->name, name) == 0) {
            *id = i;
            return GPUEST_OK;
        }
        size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", routings[i]->name);
    }
    return gpuest_fail(err, GPUEST_ENOKEY, "unknown routing function '%s' (expected %s)", name, known);
}
