/*
 * parse.h - strict parsing of numbers given by users (options, environment
 * variables): the whole string must be the number, in range, or the call
 * fails with ENC_ERR_INVAL and leaves *out alone.
 */
#ifndef ENC_CORE_PARSE_H
#define ENC_CORE_PARSE_H

#include <stdint.h>

#include "core/status.h"

/* Decimal digits only (no sign, no spaces), min <= value <= max. */
enc_status_t enc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Like enc_parse_uint with an optional K, M, G, T or P suffix (powers of 1024). */
enc_status_t enc_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* 1/0, yes/no, true/false, on/off (any case). */
enc_status_t enc_parse_bool(const char *s, int *out);
/* A finite decimal number > 0 and <= max (seconds, for example). */
enc_status_t enc_parse_positive(const char *s, double max, double *out);
/* A finite decimal number >= min and <= max (no sign, exponent is allowed). */
enc_status_t enc_parse_decimal(const char *s, double min, double max, double *out);

#endif
