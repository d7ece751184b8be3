/*
 * join.c - joining the encore job, and leaving it by abort.
 *
 * MPI_Init in encore mode lands here: read the job description from the
 * environment, start the link listener, register with the tracker and wait
 * for the world (regroup.c).  A layer above the engine (recovery) has
 * registered its ops by then.
 */
#include "enc.h"
#include "core/tmpdir.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/state.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/msgs.h"
#include "topo/topo.h"

struct enc_engine enc_eng = {.lst = {.listen_fd = -1, .wake_fd = -1, .stop_fd = -1}};

/* The job variables were checked (types, rank < size) by MPI_Init's
 * enc_tunables_check(). */
static enc_status_t read_job_env(void)
{
    enc_status_t rv;

    enc_eng.rank = (int)enc_tunable_uint(ENC_TUNE_RANK);
    enc_eng.size = (int)enc_tunable_uint(ENC_TUNE_SIZE);
    enc_eng.incarnation = (uint32_t)enc_tunable_uint(ENC_TUNE_INCARNATION);
    if ((rv = enc_secret_from_env(&enc_eng.secret)) != ENC_OK) {
        ENC_ERROR("engine", "no valid job secret (ENCORE_SECRET or ENCORE_SECRET_FILE)");
        return rv;
    }
    unsetenv("ENCORE_SECRET"); /* the application has no use for it */
    return ENC_OK;
}

static void read_tunables(void)
{
    enc_eng.tree_max_bytes = (size_t)enc_tunable_ll(ENC_TUNE_TREE_MAX_BYTES);
    enc_eng.ring_min_count = (size_t)ENC_MAX(enc_tunable_ll(ENC_TUNE_RING_MIN_COUNT_PER_RANK), 1);
    enc_eng.bcast_segment = (size_t)ENC_MAX(enc_tunable_ll(ENC_TUNE_BCAST_SEGMENT_BYTES), 4096);
    enc_eng.coll_timeout_ms = (int)enc_tunable_ll(ENC_TUNE_COLL_TIMEOUT_MS);
    enc_eng.shm_on = enc_tunable_bool(ENC_TUNE_SHM);
    enc_eng.connect_timeout_ms = (int)enc_tunable_ll(ENC_TUNE_CONNECT_TIMEOUT_MS);
}

/* The local address peers should use: the one that routes to the tracker
 * (ENCORE_ADDR overrides). */
static void local_addr(const char *tracker, char *out, size_t cap)
{
    char host[ENC_HOST_MAX];
    uint16_t port;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int fd;

    snprintf(out, cap, "127.0.0.1");
    if (enc_tunable_isset(ENC_TUNE_ADDR)) {
        snprintf(out, cap, "%s", enc_tunable_str(ENC_TUNE_ADDR));
        return;
    }
    if (enc_parse_hostport(tracker, host, sizeof(host), &port) != ENC_OK ||
        getaddrinfo(host, "9", &hints, &ai) != 0)
        return;
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        inet_ntop(AF_INET, &sa.sin_addr, out, (socklen_t)cap);
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
}

static enc_status_t register_with_tracker(const char *tracker)
{
    struct enc_msg_register reg = {
        .rank = (uint32_t)enc_eng.rank,
        .size = (uint32_t)enc_eng.size,
        .incarnation = enc_eng.incarnation,
        .pid = (uint32_t)getpid(),
        .data_port = enc_eng.lst.port,
        .completed = enc_eng.seq, /* a restored snapshot: where it stands */
    };
    uint64_t deadline = enc_deadline_ms(enc_tunable_ll(ENC_TUNE_CONNECT_TIMEOUT_MS));

    local_addr(tracker, reg.addr, sizeof(reg.addr));
    if (enc_locality_detect(&reg.loc) != ENC_OK)
        ENC_DEBUG("engine", "hwloc locality unknown; locality order by host only");
    return enc_tclient_open(&enc_eng.tc, tracker, &enc_eng.secret, &reg, deadline);
}

/* The host's segment, when the launcher offered one: world collectives
 * use it when every rank shares it (coll_shm.c). */
static void attach_shm(void)
{
    enc_eng.shm_world = false;
    if (enc_shm_attach(&enc_eng.shm, enc_eng.rank, enc_eng.size) != ENC_OK)
        return;
    enc_eng.shm_world = true;
    for (int i = 0; i < enc_eng.size; i++)
        enc_eng.shm_world &= enc_shm_has(&enc_eng.shm, i);
    ENC_DEBUG("shm", "segment of %zu bytes mapped; world collectives %s%s", enc_eng.shm.len,
              enc_eng.shm_world ? "use it" : "use TCP (ranks on other hosts)",
              enc_eng.shm.cma ? "; cross-memory attach on" : "");
}

static enc_status_t alloc_world(void)
{
    size_t n = (size_t)enc_eng.size;

    enc_eng.locality = malloc(n * sizeof(int));
    enc_eng.identity = malloc(n * sizeof(int));
    if (!enc_eng.locality || !enc_eng.identity)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        enc_eng.identity[i] = (int)i;
    attach_shm();
    return enc_links_alloc(enc_eng.size);
}

enc_status_t enc_engine_register(const struct enc_engine_ops *ops, void *arg)
{
    if (enc_eng.active)
        return ENC_ERR_STATE;
    enc_eng.ops = ops;
    enc_eng.ops_arg = arg;
    ENC_DEBUG("engine", "layer %s registered", ops && ops->name ? ops->name : "(none)");
    return ENC_OK;
}

enc_status_t enc_engine_init(void)
{
    const char *tracker = enc_tunable_str(ENC_TUNE_TRACKER);
    char tag[32];
    enc_status_t rv;

    if (!enc_tunable_isset(ENC_TUNE_TRACKER))
        return ENC_ERR_STATE;
    if ((rv = read_job_env()) != ENC_OK)
        return rv;
    snprintf(tag, sizeof(tag), "rank %d", enc_eng.rank);
    enc_log_set_tag(tag);
    read_tunables();
    enc_inject_parse();
    if ((rv = alloc_world()) != ENC_OK ||
        (rv = enc_listener_start(&enc_eng.lst, &enc_eng.secret)) != ENC_OK)
        return rv;
    if ((rv = register_with_tracker(tracker)) != ENC_OK) {
        ENC_ERROR("engine", "cannot join the tracker at %s: %s", tracker, encore_strerror(rv));
        return rv;
    }
    if ((rv = enc_engine_join_world()) != ENC_OK)
        return rv;
    enc_eng.active = true;
    ENC_DEBUG("engine", "joined: rank %d of %d, incarnation %u, epoch %u, port %u",
              enc_eng.rank, enc_eng.size, enc_eng.incarnation, enc_eng.epoch, enc_eng.lst.port);
    return ENC_OK;
}

/* The copy's world is the tracker's next one: forget the old one's news. */
static void forget_world(void)
{
    if (enc_eng.have_world)
        enc_msg_world_free(&enc_eng.pending_world);
    if (enc_eng.have_resume)
        enc_msg_resume_free(&enc_eng.pending_resume);
    enc_eng.have_world = enc_eng.have_resume = false;
    enc_eng.future = NULL;
    enc_eng.nfuture = enc_eng.capfuture = 0;
}

enc_status_t enc_engine_rejoin(uint32_t inc)
{
    const char *tracker = enc_tunable_str(ENC_TUNE_TRACKER);
    enc_status_t rv;

    enc_eng.incarnation = inc;
    forget_world();
    if (enc_eng.shm.base != NULL) /* this copy is the rank now */
        atomic_store(&enc_eng.shm.flags[enc_eng.rank].pid, (int32_t)getpid());
    enc_inject_parse();
    if ((rv = enc_listener_start(&enc_eng.lst, &enc_eng.secret)) != ENC_OK)
        return rv;
    if ((rv = register_with_tracker(tracker)) != ENC_OK) {
        ENC_ERROR("engine", "cannot rejoin the tracker at %s: %s", tracker, encore_strerror(rv));
        return rv;
    }
    enc_tclient_set_progress(enc_eng.tc, enc_eng.seq);
    if ((rv = enc_engine_join_world()) != ENC_OK)
        return rv;
    enc_eng.active = true;
    ENC_DEBUG("engine", "rejoined: rank %d incarnation %u, epoch %u, next seq %llu",
              enc_eng.rank, inc, enc_eng.epoch, (unsigned long long)enc_eng.seq);
    return ENC_OK;
}

bool enc_engine_active(void) { return enc_eng.active; }
int enc_engine_rank(void) { return enc_eng.rank; }
int enc_engine_size(void) { return enc_eng.size; }

void enc_engine_abort(int code, const char *reason)
{
    struct enc_msg_abort m = {.code = code};

    snprintf(m.reason, sizeof(m.reason), "%s", reason ? reason : "");
    if (enc_eng.tc != NULL) {
        enc_tclient_send_abort(enc_eng.tc, &m);
        /* The launcher ends the job; give it a moment to print the reason. */
        usleep(200 * 1000);
    }
    enc_rank_tmpdir_remove();
    _exit(code > 0 && code < 256 ? code : 1);
}
