/*
 * topo.h - where ranks are (hwloc) and the locality order and trees built
 * from it.
 *
 * The tracker orders ranks (the locality order) so that ranks on the same host, then
 * the same package, NUMA node and core are adjacent.  Trees are binomial
 * trees over positions in that order: each subtree is a contiguous run of positions,
 * so most tree edges stay inside a host, and a tree over the identity order
 * combines contributions in rank order (used for non-commutative ops).
 */
#ifndef ENC_TOPO_TOPO_H
#define ENC_TOPO_TOPO_H

#include <stdint.h>

#define ENC_LOC_HOST_MAX 64
#define ENC_TREE_MAX_CHILDREN 32

/* -1 in a field means unknown. */
struct enc_locality {
    char host[ENC_LOC_HOST_MAX];  /* host identity (hostname, or ENCORE_HOST) */
    int32_t package;
    int32_t numa;
    int32_t core;
};

/* Fills loc for the calling process: ENCORE_HOST overrides the hostname
 * (tests use it to fake several hosts); package/NUMA/core come from hwloc
 * and the process binding (HWLOC_SYNTHETIC / HWLOC_XMLFILE are honoured). */
enc_status_t enc_locality_detect(struct enc_locality *loc);

/* order[pos] = rank, sorted by (host, package, numa, core, rank). */
void enc_topo_locality_order(const struct enc_locality *locs, int n, int *order);

struct enc_tree_node {
    int parent;                  /* rank, or -1 at the root */
    int nchildren;
    int children[ENC_TREE_MAX_CHILDREN]; /* ranks, in increasing position */
};

/* The binomial tree over positions of order[] (n entries) re-rooted so that
 * the rank `root` is at the top: positions are rotated so root is 0, node at
 * rotated position p has parent p - lowbit(p) and children p + 2^k for every
 * 2^k < lowbit(p) (all k for the root) with p + 2^k < n.  Fills the node of
 * rank `rank`. */
void enc_topo_tree(const int *order, int n, int root, int rank, struct enc_tree_node *out);

/* Position of rank in order[], -1 if absent. */
int enc_topo_pos(const int *order, int n, int rank);

/* Binds the calling process: policy "core", "package" or "none"; index
 * selects the core/package (round robin) among those hwloc sees. */
enc_status_t enc_topo_bind(const char *policy, int index);

/* hwloc cannot bind against a synthetic or XML topology (HWLOC_SYNTHETIC,
 * HWLOC_XMLFILE without HWLOC_THISSYSTEM=1): there enc_topo_bind() records
 * the cpuset it chose (hwloc list syntax, "2-3") in this variable, which
 * enc_locality_detect() reads back, also after exec.  Tests and demos use
 * it to fake bound ranks on a small host. */
#define ENC_TOPO_SIM_CPUBIND_ENV "ENCORE_SIM_CPUBIND"

#endif
