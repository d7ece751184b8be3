/*
 * fuzz_inject.c - the fault-injection specs: encore-run's --inject parser
 * (run/launcher/inject_plan.c) and the rank's ENCORE_INJECT parser
 * (engine/inject.c).  The first byte says how many injections are already
 * recorded (up to the limit), the rest is the spec.
 * Oracle: an accepted fault names a rank >= 0 and an op >= 1; an accepted
 * ENCORE_INJECT is kill or stop at a collective >= 1.
 */
#include "enc.h"
#include "engine/state.h"
#include "launcher/launcher.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* engine/inject.c keeps its result in the engine state (engine/join.c). */
struct enc_engine enc_eng;

static void launcher_spec(const char *spec, int ninj)
{
    static struct enc_run_opts o;
    char value[64];

    memset(&o, 0, sizeof(o));
    o.ninj = ninj;
    if (enc_run_parse_inject(&o, spec) != ENC_OK)
        return;
    if (o.random_every_s > 0)
        return;
    FUZZ_CHECK(o.ninj == ninj + 1);
    FUZZ_CHECK(o.inj[ninj].rank >= 0 && o.inj[ninj].op >= 1);
    enc_run_inject_value(&o, o.inj[ninj].rank, o.inj[ninj].incarnation, value, sizeof(value));
    FUZZ_CHECK(value[0] != '\0');
}

static void rank_env(const char *value)
{
    setenv("ENCORE_INJECT", value, 1);
    enc_inject_parse();
    FUZZ_CHECK(enc_eng.inject_kind == ENC_INJECT_NONE ||
               ((enc_eng.inject_kind == ENC_INJECT_KILL || enc_eng.inject_kind == ENC_INJECT_STOP ||
                 enc_eng.inject_kind == ENC_INJECT_SNAPKILL) &&
                enc_eng.inject_at >= 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec;

    if (size < 1)
        return 0;
    spec = fuzz_strndup(data + 1, size - 1);
    launcher_spec(spec, data[0] % (ENC_RUN_MAX_INJECT + 1));
    rank_env(spec);
    free(spec);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const char *const specs[] = {
        "kill:rank=2:op=40", "stop:rank=0:op=1:incarnation=1", "random:every=0.5:seed=7",
        "kill:40", "stop:3",
    };
    char buf[64], name[16];

    for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        buf[0] = (char)i;
        snprintf(buf + 1, sizeof(buf) - 1, "%s", specs[i]);
        snprintf(name, sizeof(name), "spec-%zu", i);
        emit(name, buf, 1 + strlen(specs[i]));
    }
}
