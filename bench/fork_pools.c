/*
 * fork_pools.c - does a library's thread pool survive a fork?  The
 * measurement behind recovery's thread-pool rules (docs/snapshots.md): the
 * process warms the pool up, forks, and reports the threads the parent
 * has right after the fork and the child at birth, and whether the child's
 * next use of the pool finishes with the parent's result (its report comes
 * through a pipe; none within 10 s: it hung).
 *
 *   fork_pools blas|omp fork|vfork [pause]
 *
 * blas   a 400 x 400 dgemm through libblas.so.3 (dlopen: Debian's
 *        alternative, OpenBLAS when libopenblas0-pthread is installed)
 * omp    a parallel loop (run with LD_PRELOAD=libomp.so.5 for LLVM's
 *        runtime standing in for GCC's libgomp)
 * fork   a plain fork(): the child is this process's child
 * vfork  fork() from a vfork() child, as libencore takes a snapshot
 * pause  omp_pause_resource_all(omp_pause_hard) first
 *
 * Build: gcc -O1 -fopenmp -o fork_pools bench/fork_pools.c -ldl
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void dgemm_fn(const char *, const char *, const int *, const int *, const int *,
                      const double *, const double *, const int *, const double *,
                      const int *, const double *, double *, const int *);

static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    while (d != NULL && (e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    if (d != NULL)
        closedir(d);
    return n;
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double blas(void)
{
    static dgemm_fn *dgemm;
    static double a[400 * 400], c[400 * 400];
    int n = 400;
    double one = 1, zero = 0, s = 0;
    void *h;

    if (dgemm == NULL && ((h = dlopen("libblas.so.3", RTLD_NOW)) == NULL ||
                          (dgemm = (dgemm_fn *)dlsym(h, "dgemm_")) == NULL)) {
        fprintf(stderr, "fork_pools: no dgemm_ in libblas.so.3\n");
        exit(2);
    }
    for (int i = 0; i < n * n; i++)
        a[i] = (i % 7) * 0.5;
    dgemm("N", "N", &n, &n, &n, &one, a, &n, a, &n, &zero, c, &n);
    for (int i = 0; i < n * n; i++)
        s += c[i];
    return s;
}

static double omp(void)
{
    double s = 0;

#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 10000000; i++)
        s += (i % 13) * 0.25;
    return s;
}

/* fork() or fork() of a vfork() child: 0 in the child, its pid here. */
static pid_t copy(int plain)
{
    volatile pid_t img = 0;
    pid_t mid;

    if (plain)
        return fork();
    if ((mid = vfork()) == 0) {
        pid_t p = fork();

        if (p == 0)
            return 0;
        img = p;
        _exit(0);
    }
    waitpid(mid, NULL, 0);
    return img;
}

/* The child's report; without one within 10 s, what became of it (an
 * orphan's fate is not ours to see). */
static void report(int fd, pid_t pid, int plain)
{
    char line[256] = "";
    struct timeval tv = {10, 0};
    fd_set set;
    ssize_t n = 0;
    int st = 0;

    FD_ZERO(&set);
    FD_SET(fd, &set);
    if (select(fd + 1, &set, NULL, NULL, &tv) == 1)
        n = read(fd, line, sizeof(line) - 1);
    line[n > 0 ? n : 0] = '\0';
    if (n > 0)
        printf("%s\n", line);
    else if (plain && waitpid(pid, &st, WNOHANG) == pid && WIFSIGNALED(st))
        printf("child: died of signal %d before its work ended\n", WTERMSIG(st));
    else
        printf("child: no report within 10 s (%s)\n", plain ? "hung" : "hung or died");
}

int main(int argc, char **argv)
{
    int use_blas = argc > 1 && strcmp(argv[1], "blas") == 0;
    int plain = argc > 2 && strcmp(argv[2], "fork") == 0;
    double (*work)(void) = use_blas ? blas : omp;
    double ref, t0;
    int before, after, fds[2];
    pid_t pid;

    if (argc < 3 || pipe(fds) != 0) {
        fprintf(stderr, "usage: fork_pools blas|omp fork|vfork [pause]\n");
        return 2;
    }
    ref = work();
    before = threads();
    t0 = now();
    if (argc > 3 && strcmp(argv[3], "pause") == 0)
        printf("omp_pause_resource_all(omp_pause_hard) = %d, ",
               omp_pause_resource_all(omp_pause_hard));
    fflush(stdout);
    if ((pid = copy(plain)) == 0) {
        int born = threads();
        double r;

        alarm(12); /* a hung child goes */
        r = work();
        dprintf(fds[1], "child: %d thread(s) at birth, %d after its work, result %s", born,
                threads(), r == ref ? "exact" : "WRONG");
        _exit(0);
    }
    t0 = now() - t0;
    after = threads();
    printf("parent: %d thread(s) before, %d right after the fork (%.2f ms), result %s\n", before,
           after, t0 * 1e3, work() == ref ? "exact" : "WRONG");
    report(fds[0], pid, plain);
    if (plain && pid > 0)
        waitpid(pid, NULL, 0);
    return 0;
}
