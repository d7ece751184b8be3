/*
 * inject.c - deterministic fault injection for tests and demos.
 *
 * encore-run --inject kill:rank=R:op=K sets ENCORE_INJECT=kill:K for that
 * rank and incarnation; the rank then sends itself a real SIGKILL (or
 * SIGSTOP) on entering its K-th collective.
 */
#include "enc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/state.h"

void enc_inject_parse(void)
{
    const char *s = enc_tunable_str(ENC_TUNE_INJECT);
    unsigned long long at;
    char kind[12];

    enc_eng.inject_kind = ENC_INJECT_NONE;
    enc_eng.inject_calls = 0;
    if (*s == '\0')
        return;
    if (sscanf(s, "%11[a-z]:%llu", kind, &at) != 2 || at == 0 ||
        (strcmp(kind, "kill") != 0 && strcmp(kind, "stop") != 0 &&
         strcmp(kind, "snapkill") != 0)) {
        ENC_WARN("inject", "ignoring malformed ENCORE_INJECT='%s' (want kill:K, stop:K or "
                 "snapkill:K)", s);
        return;
    }
    enc_eng.inject_kind = strcmp(kind, "kill") == 0   ? ENC_INJECT_KILL
                          : strcmp(kind, "stop") == 0 ? ENC_INJECT_STOP
                                                      : ENC_INJECT_SNAPKILL;
    enc_eng.inject_at = at;
}

/* Counts this incarnation's collective calls (not sequence numbers, which
 * jump when a restarted rank loads a checkpoint; a rank restored from a
 * snapshot counts from its restore). */
void enc_inject_check(void)
{
    uint64_t nth = ++enc_eng.inject_calls;

    if ((enc_eng.inject_kind != ENC_INJECT_KILL && enc_eng.inject_kind != ENC_INJECT_STOP) ||
        nth != enc_eng.inject_at)
        return;
    ENC_INFO("inject", "injecting SIG%s at collective %llu",
             enc_eng.inject_kind == ENC_INJECT_KILL ? "KILL" : "STOP", (unsigned long long)nth);
    raise(enc_eng.inject_kind == ENC_INJECT_KILL ? SIGKILL : SIGSTOP);
}

bool enc_inject_snapshot(uint64_t nth)
{
    if (enc_eng.inject_kind != ENC_INJECT_SNAPKILL || nth != enc_eng.inject_at)
        return false;
    ENC_INFO("inject", "injecting SIGKILL right after the fork of snapshot %llu",
             (unsigned long long)nth);
    return true;
}
