/* test_tunables.c - core/tunables and core/parse: the table is consistent
 * with itself, values are parsed strictly, the check names what is wrong. */
#include "enc.h"
#include "core/parse.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void clear_env(void)
{
    for (int i = 0; i < ENC_TUNE_COUNT; i++)
        unsetenv(enc_tunables[i].name);
}

TestSuite(tunables, .init = clear_env);

Test(tunables, every_default_passes_its_own_check)
{
    char msg[256] = "";

    for (int i = 0; i < ENC_TUNE_COUNT; i++)
        if (*enc_tunables[i].def)
            setenv(enc_tunables[i].name, enc_tunables[i].def, 1);
    /* job variables need a consistent job */
    setenv("ENCORE_TRACKER", "h:1", 1);
    setenv("ENCORE_RANK", "0", 1);
    setenv("ENCORE_SIZE", "1", 1);
    setenv("ENCORE_SECRET", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1);
    cr_expect_eq(enc_tunables_check(ENC_TCLASS_ALL, msg, sizeof(msg)), ENC_OK, "%s", msg);
}

Test(tunables, names_are_unique_and_prefixed)
{
    for (int i = 0; i < ENC_TUNE_COUNT; i++) {
        cr_expect_eq(strncmp(enc_tunables[i].name, "ENCORE_", 7), 0);
        for (int k = i + 1; k < ENC_TUNE_COUNT; k++)
            cr_expect_str_neq(enc_tunables[i].name, enc_tunables[k].name);
    }
}

Test(tunables, typed_accessors)
{
    setenv("ENCORE_LOG_MEM_MAX", "2M", 1);
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_LOG_MEM_MAX), 2u << 20);
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_REPLICAS), 3);
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_SPIN_US), UINT64_MAX); /* auto */
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_SPILL_MAX), UINT64_MAX); /* auto, the default */
    setenv("ENCORE_SPILL_MAX", "0", 1);
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_SPILL_MAX), 0); /* no spill */
    unsetenv("ENCORE_SPILL_MAX");
    setenv("ENCORE_RECOVERY", "off", 1);
    cr_expect_eq(enc_tunable_bool(ENC_TUNE_RECOVERY), 0);
    setenv("ENCORE_LOG", "debug", 1);
    cr_expect_eq(enc_tunable_enum(ENC_TUNE_LOG), ENC_LOG_DEBUG);
    cr_expect_eq(enc_tunable_isset(ENC_TUNE_RANK), 0);
    setenv("ENCORE_REPLICAS", "abc", 1); /* unchecked: warning, default */
    cr_expect_eq(enc_tunable_uint(ENC_TUNE_REPLICAS), 3);
}

Test(tunables, check_names_the_first_bad_variable)
{
    char msg[256];

    setenv("ENCORE_REPLICAS", "1..256", 1);
    cr_expect_eq(enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_expect_str_eq(msg, "ENCORE_REPLICAS='1..256': expected an integer in 1..256");
    unsetenv("ENCORE_REPLICAS");
    setenv("ENCORE_HEARTBEAT_MS", "5001", 1);
    cr_expect_eq(enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_expect_str_eq(msg, "ENCORE_HEARTBEAT_TIMEOUT_MS=5000 must be greater than "
                          "ENCORE_HEARTBEAT_MS=5001");
}

Test(parse, uint_and_size_are_strict)
{
    uint64_t v = 42;

    cr_expect_eq(enc_parse_uint("7", 0, 9, &v), ENC_OK);
    cr_expect_eq(v, 7);
    cr_expect_eq(enc_parse_uint("10", 0, 9, &v), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_uint("-1", 0, 9, &v), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_uint(" 1", 0, 9, &v), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_uint("", 0, 9, &v), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_uint("99999999999999999999", 0, UINT64_MAX, &v), ENC_ERR_INVAL);
    cr_expect_eq(v, 7);
    cr_expect_eq(enc_parse_size("4k", 0, UINT64_MAX, &v), ENC_OK);
    cr_expect_eq(v, 4096);
    cr_expect_eq(enc_parse_size("1P", 0, UINT64_MAX, &v), ENC_OK);
    cr_expect_eq(v, 1ull << 50);
    cr_expect_eq(enc_parse_size("1KB", 0, UINT64_MAX, &v), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_size("99999999P", 0, UINT64_MAX, &v), ENC_ERR_INVAL);
}

Test(parse, bool_and_positive)
{
    int b = -1;
    double d = 0;

    cr_expect_eq(enc_parse_bool("Yes", &b), ENC_OK);
    cr_expect_eq(b, 1);
    cr_expect_eq(enc_parse_bool("off", &b), ENC_OK);
    cr_expect_eq(b, 0);
    cr_expect_eq(enc_parse_bool("2", &b), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_positive("0.5", 10, &d), ENC_OK);
    cr_expect_eq(enc_parse_positive("0", 10, &d), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_positive("inf", 1e9, &d), ENC_ERR_INVAL);
    cr_expect_eq(enc_parse_positive("11", 10, &d), ENC_ERR_INVAL);
}

Test(tunables, seconds_auto_zero_and_fractions)
{
    const char *bad[] = {"abc", "-1", "2x", " 3", "nan", "inf", "auto2", "1e400", "86401"};
    char msg[256];

    unsetenv("ENCORE_SNAPSHOT_S");
    cr_expect_eq(enc_tunable_seconds(ENC_TUNE_SNAPSHOT_S), -1); /* default auto */
    setenv("ENCORE_SNAPSHOT_S", "0", 1);
    cr_expect_eq(enc_tunable_seconds(ENC_TUNE_SNAPSHOT_S), 0);
    setenv("ENCORE_SNAPSHOT_S", "2.5", 1);
    cr_expect_eq(enc_tunable_seconds(ENC_TUNE_SNAPSHOT_S), 2.5);
    for (size_t i = 0; i < ENC_ARRAY_SIZE(bad); i++) {
        setenv("ENCORE_SNAPSHOT_S", bad[i], 1);
        cr_expect_eq(enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)), ENC_ERR_INVAL, "%s",
                     bad[i]);
    }
    setenv("ENCORE_SNAPSHOT_S", "soon", 1);
    enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg));
    cr_expect_str_eq(msg, "ENCORE_SNAPSHOT_S='soon': expected auto or seconds, a decimal "
                          "number in 0..86400");
    unsetenv("ENCORE_SNAPSHOT_S");
}
