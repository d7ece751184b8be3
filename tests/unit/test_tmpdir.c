/*
 * test_tmpdir.c - shim/core/tmpdir: a job directory is orphaned exactly when
 * its .owner names a process that is gone (exited and reaped, or a zombie).
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tmpdir.h"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof(dir), "/tmp/" ENC_JOBDIR_PREFIX "XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) { cr_expect_eq(enc_rmtree(dir), ENC_OK); }

static void write_owner(const char *text)
{
    char path[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/" ENC_JOBDIR_OWNER, dir);
    cr_assert_not_null(f = fopen(path, "w"));
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

static void write_pid(pid_t pid)
{
    char text[32];

    snprintf(text, sizeof(text), "%d\n", (int)pid);
    write_owner(text);
}

/* A child that exits at once; reaped unless zombie is true. */
static pid_t dead_child(bool zombie)
{
    pid_t pid = fork();
    siginfo_t si;

    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(0);
    cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | (zombie ? WNOWAIT : 0)), 0);
    return pid;
}

TestSuite(tmpdir, .init = make_dir, .fini = remove_dir);

Test(tmpdir, no_owner_file_is_not_orphaned)
{
    cr_expect_not(enc_jobdir_orphaned(dir));
}

Test(tmpdir, live_owner_is_not_orphaned)
{
    write_pid(getpid());
    cr_expect_not(enc_jobdir_orphaned(dir));
}

Test(tmpdir, reaped_owner_is_orphaned)
{
    write_pid(dead_child(false));
    cr_expect(enc_jobdir_orphaned(dir));
}

Test(tmpdir, zombie_owner_is_orphaned)
{
    pid_t pid = dead_child(true);

    write_pid(pid);
    cr_expect(enc_jobdir_orphaned(dir));
    waitpid(pid, NULL, 0);
}

Test(tmpdir, malformed_owner_is_not_orphaned)
{
    const char *bad[] = {"", "0\n", "-5\n", "abc\n", "99999999999999999999\n"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_owner(bad[i]);
        cr_expect_not(enc_jobdir_orphaned(dir), "'%s' taken for a gone owner", bad[i]);
    }
}

Test(tmpdir, rmtree_removes_a_tree_and_accepts_a_missing_one)
{
    char sub[128];

    snprintf(sub, sizeof(sub), "%s/rank0.0", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    strcat(sub, "/ompi.x.0");
    cr_assert_eq(mkdir(sub, 0700), 0);
    write_pid(getpid());
    cr_expect_eq(enc_rmtree(dir), ENC_OK);
    cr_expect_neq(access(dir, F_OK), 0);
    cr_expect_eq(enc_rmtree(dir), ENC_OK);
}
