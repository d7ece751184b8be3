/*
 * topo_log.c - ENCORE_LOG=debug shows the ring and the tree the tracker
 * sends with WORLD: ranks grouped host by host, and each tree node's
 * children (tree rooted at the first rank of the ring).
 */
#include "enc.h"
#include "topo/topo.h"
#include "tracker/tracker_int.h"

#include <stdio.h>
#include <string.h>

static void log_ring(const struct enc_locality *locs, const int *order, int n)
{
    char line[4096];
    size_t k = 0;

    for (int p = 0; p < n && k + 80 < sizeof(line); p++) {
        bool new_host = p == 0 || strcmp(locs[order[p]].host, locs[order[p - 1]].host) != 0;

        if (new_host)
            k += (size_t)snprintf(line + k, sizeof(line) - k, "%s[%s:", p ? "] " : "",
                                  locs[order[p]].host);
        k += (size_t)snprintf(line + k, sizeof(line) - k, " %d", order[p]);
    }
    ENC_DEBUG("tracker", "ring, host by host: %s]", line);
}

static void log_tree(const int *order, int n)
{
    char line[4096];
    size_t k = 0;
    struct enc_tree_node node;

    for (int p = 0; p < n && k + 200 < sizeof(line); p++) {
        enc_topo_tree(order, n, order[0], order[p], &node);
        if (node.nchildren == 0)
            continue;
        k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%d->", k ? " " : "", order[p]);
        for (int c = 0; c < node.nchildren; c++)
            k += (size_t)snprintf(line + k, sizeof(line) - k, "%s%d", c ? "," : "",
                                  node.children[c]);
    }
    ENC_DEBUG("tracker", "tree (root %d): %s", order[0], k ? line : "(one rank)");
}

void enc_trk_log_topology(const struct enc_locality *locs, const int *order, int n)
{
    if (enc_log_level() < ENC_LOG_DEBUG)
        return;
    log_ring(locs, order, n);
    log_tree(order, n);
}
