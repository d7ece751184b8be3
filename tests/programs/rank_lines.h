/*
 * rank_lines.h - test programs whose ranks print many lines: each rank
 * keeps its lines, and rank 0 prints every rank's in rank order at the end
 * (ranks writing at once would mix their lines), through MPI_Gather(v) on
 * the world.  Included by one program each (the functions are static).
 */
#ifndef ENC_TESTS_RANK_LINES_H
#define ENC_TESTS_RANK_LINES_H

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    char *text;
    int len, cap;
} rank_lines;

/* Keeps the line "rank R what v0 v1 ..." (R: the world rank). */
static void say(const char *what, const int *v, int n)
{
    char line[4096];
    int me, k;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    k = snprintf(line, sizeof(line), "rank %d %s", me, what);
    for (int i = 0; i < n && k < (int)sizeof(line) - 16; i++)
        k += snprintf(line + k, sizeof(line) - (size_t)k, " %d", v[i]);
    line[k++] = '\n';
    if (rank_lines.len + k > rank_lines.cap) {
        rank_lines.cap = 2 * (rank_lines.len + k);
        if ((rank_lines.text = realloc(rank_lines.text, (size_t)rank_lines.cap)) == NULL)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memcpy(rank_lines.text + rank_lines.len, line, (size_t)k);
    rank_lines.len += k;
}

/* Rank 0 prints every rank's lines; collective over the world. */
static void say_flush(void)
{
    int me, size, total = 0, *len, *dsp;
    char *all;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    len = malloc(sizeof(int) * (size_t)size);
    dsp = malloc(sizeof(int) * (size_t)size);
    MPI_Gather(&rank_lines.len, 1, MPI_INT, len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; me == 0 && i < size; i++) {
        dsp[i] = total;
        total += len[i];
    }
    all = malloc((size_t)total + 1);
    MPI_Gatherv(rank_lines.text, rank_lines.len, MPI_CHAR, all, len, dsp, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (me == 0)
        fwrite(all, 1, (size_t)total, stdout);
    free(all);
    free(len);
    free(dsp);
}

#endif
