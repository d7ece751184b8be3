/*
 * hier.h - the hosts of a communicator in the current epoch (coll_hier.c):
 * which of its ranks share a host, their leaders, and the channel of the
 * host's segment the ranks of this host use.
 */
#ifndef ENC_ENGINE_HIER_H
#define ENC_ENGINE_HIER_H

#include <stdbool.h>

struct enc_group;
struct enc_hier;

/* g's hosts (NULL: the world's), rebuilt once per epoch and kept (the
 * world's by coll_hier.c, a group's on the group); NULL before the first
 * world or out of memory. */
const struct enc_hier *enc_coll_hosts(struct enc_group *g);
/* Every rank on one host; this host's channel (-1: TCP within it). */
bool enc_coll_hosts_one(const struct enc_hier *h);
int enc_coll_hosts_chan(const struct enc_hier *h);
void enc_hier_free(struct enc_hier *h);

#endif
