/*
 * tree.c - binomial trees over positions in the locality order.
 *
 * Positions are rotated so the root is 0.  Node p's parent is p - lowbit(p)
 * and its children p + 2^k for 2^k < lowbit(p), so the subtree of p is the
 * contiguous run [p, p + lowbit(p)): adjacent (hence host-local) ranks
 * share subtrees, and over the identity order a combine of self then
 * children in order yields rank order.
 */
#include "enc.h"

#include "topo/topo.h"

int enc_topo_pos(const int *order, int n, int rank)
{
    for (int i = 0; i < n; i++)
        if (order[i] == rank)
            return i;
    return -1;
}

/* Lowest set bit of p; for the root (p == 0) every child fits below it. */
static unsigned lowbit(unsigned p, unsigned n)
{
    return p != 0 ? (p & -p) : n;
}

static int rank_at(const int *order, int n, int base, unsigned rp)
{
    return order[((unsigned)base + rp) % (unsigned)n];
}

void enc_topo_tree(const int *order, int n, int root, int rank, struct enc_tree_node *out)
{
    int base = enc_topo_pos(order, n, root);
    int pos = enc_topo_pos(order, n, rank);
    unsigned rp, low;

    out->parent = -1;
    out->nchildren = 0;
    if (base < 0 || pos < 0)
        return;
    rp = (unsigned)(pos - base + n) % (unsigned)n;
    low = lowbit(rp, (unsigned)n);
    if (rp != 0)
        out->parent = rank_at(order, n, base, rp - low);
    for (unsigned step = 1; step < low && rp + step < (unsigned)n; step <<= 1)
        out->children[out->nchildren++] = rank_at(order, n, base, rp + step);
}
