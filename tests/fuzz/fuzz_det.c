/*
 * fuzz_det.c - determinant records as a restored rank reads them from its
 * host's ring or a survivor sends them (p2p/chanseq.c).
 * Oracle: a record that decodes re-encodes to exactly the same bytes (one
 * encoding per determinant), and formats without overrunning.
 */
#include "enc.h"
#include "p2p/chanseq.h"
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct enc_det d;
    uint8_t again[ENC_DET_WIRE];
    char line[160];

    if (enc_det_decode(&d, data, size) != ENC_OK)
        return 0;
    FUZZ_CHECK(size == ENC_DET_WIRE);
    enc_det_encode(&d, again);
    FUZZ_CHECK(memcmp(again, data, ENC_DET_WIRE) == 0);
    enc_det_format(&d, line, sizeof(line));
    FUZZ_CHECK(strlen(line) < sizeof(line) - 1);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    const struct enc_det dets[] = {
        {.kind = ENC_DET_MATCH, .creator = 3, .clock = 12, .cid = 5, .src = 2, .tag = 7, .seq = 40},
        {.kind = ENC_DET_NONE, .creator = 1, .clock = 100, .seq = 65536},
        {.kind = ENC_DET_DONE, .creator = 0, .clock = 7, .idx = 3, .flags = ENC_DET_LAST},
        {.kind = ENC_DET_DONE, .creator = 0, .clock = 8, .idx = ENC_DET_ALL},
        {.kind = ENC_DET_CANCEL, .creator = 2, .clock = 9, .cid = 1, .seq = 1},
        {.kind = ENC_DET_SEND, .creator = 2, .clock = 10, .cid = 1, .src = 3, .tag = 4, .seq = 5},
    };
    uint8_t buf[ENC_DET_WIRE];
    char name[16];

    for (size_t i = 0; i < sizeof(dets) / sizeof(dets[0]); i++) {
        enc_det_encode(&dets[i], buf);
        snprintf(name, sizeof(name), "kind-%u-%zu", (unsigned)dets[i].kind, i);
        emit(name, buf, sizeof(buf));
    }
}
