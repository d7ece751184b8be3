/*
 * fuzz_tunables.c - tunables from the environment (core/tunables.c): the
 * first byte picks an ENCORE_* variable, the rest is its value.
 * Oracle: the string read back is the value set (or the default for an
 * empty value); the start-up check accepts or refuses it with a message,
 * and the typed accessor never faults, whatever the text.
 */
#include "enc.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum enc_tunable_id id;
    char msg[512];
    char *value;

    if (size < 1)
        return 0;
    id = (enum enc_tunable_id)(data[0] % ENC_TUNE_COUNT);
    value = fuzz_strndup(data + 1, size - 1);
    setenv(enc_tunables[id].name, value, 1);
    FUZZ_CHECK(strcmp(enc_tunable_str(id), *value ? value : enc_tunables[id].def) == 0);
    msg[0] = '\0';
    if (enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)) != ENC_OK)
        FUZZ_CHECK(msg[0] != '\0');
    switch (enc_tunables[id].type) {
    case ENC_TTYPE_BOOL: (void)enc_tunable_bool(id); break;
    case ENC_TTYPE_ENUM: (void)enc_tunable_enum(id); break;
    case ENC_TTYPE_UINT: case ENC_TTYPE_SIZE: case ENC_TTYPE_MS: (void)enc_tunable_uint(id); break;
    default: break;
    }
    unsetenv(enc_tunables[id].name);
    free(value);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const char *const values[] = {"0", "65536", "-5", "abc", "0x10", "99999999999999999999"};
    char buf[64], name[32];

    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        buf[0] = (char)(ENC_TUNE_TREE_MAX_BYTES + i);
        snprintf(buf + 1, sizeof(buf) - 1, "%s", values[i]);
        snprintf(name, sizeof(name), "value-%zu", i);
        emit(name, buf, 1 + strlen(values[i]));
    }
}
