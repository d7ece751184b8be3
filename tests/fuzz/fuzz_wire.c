/*
 * fuzz_wire.c - the bounds-checked payload reader (proto/wire.c) driven by
 * the input itself: the first bytes are a little program of reads (u8,
 * u16, u32, u64, bytes, str with a small or large cap) run over the rest.
 * Oracle: the reader never goes past its buffer, and once err is set it
 * stays set and the offset stops moving.
 */
#include "enc.h"
#include "fuzz.h"

#include <string.h>

static void one_read(struct enc_rbuf *r, uint8_t op)
{
    uint64_t v64;
    uint32_t v32;
    uint16_t v16;
    uint8_t v8, bytes[64];
    char s[300];

    switch (op % 7) {
    case 0: enc_r_u8(r, &v8); break;
    case 1: enc_r_u16(r, &v16); break;
    case 2: enc_r_u32(r, &v32); break;
    case 3: enc_r_u64(r, &v64); break;
    case 4: enc_r_bytes(r, bytes, op % sizeof(bytes)); break;
    case 5: enc_r_str(r, s, 1 + op % 16); break;
    default:
        enc_r_str(r, s, sizeof(s));
        FUZZ_CHECK(r->err || strlen(s) < sizeof(s));
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nops = size > 0 ? data[0] % 32 : 0;
    struct enc_rbuf r;

    if (size < 1 + nops)
        return 0;
    enc_r_init(&r, data + 1 + nops, size - 1 - nops);
    for (size_t i = 0; i < nops; i++) {
        int was_err = r.err;
        size_t was_off = r.off;

        one_read(&r, data[1 + i]);
        FUZZ_CHECK(r.off <= r.len);
        FUZZ_CHECK(!was_err || (r.err && r.off == was_off));
    }
    FUZZ_CHECK((enc_r_done(&r) == ENC_OK) == (!r.err && r.off == r.len));
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    uint8_t buf[64] = {4, 0, 1, 2, 47}; /* 47: a string, cap 16 */
    struct enc_wbuf w;

    /* u8, u16, u32, then the string */
    enc_w_init(&w, buf + 5, sizeof(buf) - 5);
    enc_w_u8(&w, 1);
    enc_w_u16(&w, 2);
    enc_w_u32(&w, 3);
    enc_w_str(&w, "host");
    emit("u8-u16-u32-str", buf, 5 + w.len);
}
