/*
 * fuzz_hostfile.c - encore-run's host lists (run/launcher/placement.c,
 * slurm.c): --hostfile contents, -H lists, and Slurm's SLURM_JOB_NODELIST
 * and SLURM_TASKS_PER_NODE.  The first byte picks the parser (and, for the
 * task counts, how many nodes), the rest is the text.
 * Oracle: whatever was accepted, every host has a name of 1..63 printable
 * characters, distinct from the others, and 1..ENC_RUN_MAX_SLOTS slots; a
 * refusal says why in one non-empty message.
 */
#include "enc.h"
#include "launcher/placement.h"
#include "fuzz.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static struct enc_run_hostlist hl;
static char names[ENC_RUN_MAX_HOSTS][ENC_RUN_HOST_NAME_MAX];

static void check_name(const char *name)
{
    size_t len = strnlen(name, ENC_RUN_HOST_NAME_MAX);

    FUZZ_CHECK(len >= 1 && len < ENC_RUN_HOST_NAME_MAX);
    for (size_t i = 0; i < len; i++)
        FUZZ_CHECK(isgraph((unsigned char)name[i]));
}

static void check_hosts(void)
{
    FUZZ_CHECK(hl.n >= 0 && hl.n <= ENC_RUN_MAX_HOSTS);
    for (int i = 0; i < hl.n; i++) {
        check_name(hl.h[i].name);
        FUZZ_CHECK(hl.h[i].slots >= 1 && hl.h[i].slots <= ENC_RUN_MAX_SLOTS);
        for (int k = 0; k < i; k++)
            FUZZ_CHECK(strcmp(hl.h[i].name, hl.h[k].name) != 0);
    }
}

/* Each line as a hostfile line, as enc_run_hosts_parse_file feeds them. */
static void hostfile(char *text)
{
    char msg[512] = "";

    for (char *line = text, *nl; line != NULL; line = nl) {
        if ((nl = strchr(line, '\n')) != NULL)
            *nl++ = '\0';
        if (enc_run_hosts_parse_line(&hl, line, 2, msg, sizeof(msg)) != ENC_OK) {
            FUZZ_CHECK(msg[0] != '\0');
            break;
        }
    }
    check_hosts();
}

static void host_list(const char *text)
{
    char msg[512] = "";

    if (enc_run_hosts_parse_list(&hl, text, msg, sizeof(msg)) == ENC_OK)
        FUZZ_CHECK(hl.n >= 1);
    else
        FUZZ_CHECK(msg[0] != '\0');
    check_hosts();
}

static void nodelist(const char *text)
{
    int n = -1;

    if (enc_run_slurm_nodelist(text, names, &n, ENC_RUN_MAX_HOSTS) != ENC_OK)
        return;
    FUZZ_CHECK(n >= 1 && n <= ENC_RUN_MAX_HOSTS);
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(names[i][0] != '\0' && strlen(names[i]) < ENC_RUN_HOST_NAME_MAX);
}

static void tasks(const char *text, int n)
{
    int slots[ENC_RUN_MAX_HOSTS];

    if (enc_run_slurm_tasks(text, slots, n) != ENC_OK)
        return;
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(slots[i] >= 0 && slots[i] <= ENC_RUN_MAX_SLOTS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text;

    if (size < 1)
        return 0;
    memset(&hl, 0, sizeof(hl));
    text = fuzz_strndup(data + 1, size - 1);
    switch (data[0] % 4) {
    case 0: hostfile(text); break;
    case 1: host_list(text); break;
    case 2: nodelist(text); break;
    default: tasks(text, 1 + (data[0] / 4) % 16); break;
    }
    free(text);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const char *const seeds[][2] = {
        {"hostfile", "\x00# cluster\nnode1 slots=4 max_slots=8\nnode2   # cores\n\tnode1 slots=2\n"},
        {"hostfile-bad", "\x00node1 slots=x\n"},
        {"list", "\x01" "a:2,b,c:3,a"},
        {"list-bad", "\x01" "a:2,h:0"},
        {"nodelist", "\x02node[1-3,05],login,gpu[07-08]"},
        {"tasks", "\x0f" "2(x3),1"},
    };

    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
        emit(seeds[i][0], seeds[i][1], 1 + strlen(seeds[i][1] + 1));
}
