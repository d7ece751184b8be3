/*
 * coll_check.c - sweep of the collectives encore serves on MPI_COMM_WORLD.
 *
 * Runs MPI_Allreduce (also with MPI_IN_PLACE), MPI_Reduce (roots 0 and
 * size-1, and MPI_IN_PLACE at root size-1), MPI_Bcast (roots 0 and size-1),
 * MPI_Allgather, MPI_Allgatherv (uneven counts, gaps between blocks) and
 * MPI_Barrier over counts x every predefined C datatype x every predefined
 * op the MPI standard allows for it, plus a commutative and a
 * non-commutative user op from MPI_Op_create.  Each rank prints one line per
 * case:
 *
 *     <op-kind> <dtype> <op> count=<n> root=<r> digest=<fnv1a-64 hex>
 *
 * and nothing else, so the sorted output of two MPI implementations can be
 * compared byte for byte.  The input data make every result independent of
 * the reduction order, bit for bit: small integers for floating SUM, values
 * in {1,-1,2,0.5} for floating PROD, no integer SUM or PROD overflow (see
 * int_value), Gaussian integers u*(2+i) for complex
 * PROD (no partial product has a zero component, so no signed zero), modular
 * arithmetic for the user ops, no NaN and no -0.0 anywhere.  Digests cover only
 * significant bytes: 10 bytes of an x87 long double, pair types member by
 * member, never padding.
 *
 * Usage: coll_check [--counts a,b,...] [--reduced-above N] [--barrier-dir D]
 *                   [--out-dir D]
 *        coll_check --big [--out-dir D]
 *   --counts        element counts (default 0,1,1000,1048576)
 *   --reduced-above counts > N run a reduced sweep (default: none): every
 *                   datatype x every op valid for it in MPI_Allreduce, its
 *                   first op in MPI_Reduce to root size-1, and data movement
 *                   (bcast, allgather(v) with about N/size per rank) for one
 *                   datatype per memory layout
 *   --barrier-dir   every rank creates a file in D before each barrier and
 *                   checks after it that all ranks' files exist
 *   --out-dir       write rank r's lines to D/rank.<r> instead of stdout
 *   --big           one MPI_Bcast and one in-place MPI_Allreduce (BOR) of
 *                   2 GiB + 16 bytes (MPI_UINT64_T), every byte checked
 * Exit 0 on success; a failed self-check prints to stderr and aborts.
 */
#include <mpi.h>

#include <complex.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#define DEFAULT_COUNTS "0,1,1000,1048576"
#define MAX_COUNTS 32
#define SENTINEL 0xa5

/* C representation of a datatype's element. */
enum kind {
    K_I8, K_U8, K_I16, K_U16, K_I32, K_U32, K_I64, K_U64,
    K_F, K_D, K_LD, K_CF, K_CD, K_CLD,
    K_BOOL, K_BYTE, K_CHAR, K_WCHAR,
    K_P_FI, K_P_DI, K_P_LI, K_P_II, K_P_SI, K_P_LDI,
};

/* Which ops the MPI standard allows (MPI-3.1 section 5.9.2). */
enum dclass { DC_INT, DC_FLOAT, DC_COMPLEX, DC_BOOL, DC_BYTE, DC_CHAR, DC_PAIR };

/* Which data generator an op needs. */
enum gen { G_SUM, G_PROD, G_MAXMIN, G_LAND, G_LOR, G_LXOR, G_BITS, G_LOC, G_UCOMM, G_UNONCOMM };

struct dtype {
    const char *name;
    MPI_Datatype type;
    enum kind kind;
    enum dclass cls;
    size_t extent; /* C sizeof, checked against MPI at start-up */
    bool rep;      /* data movement at large counts (one per layout) */
};

struct op {
    const char *name;
    MPI_Op op;
    enum gen gen;
    unsigned classes;  /* bit mask of enum dclass */
    MPI_Datatype only; /* user ops: the one datatype they are defined on */
};

struct pair_fi { float v; int i; };
struct pair_di { double v; int i; };
struct pair_li { long v; int i; };
struct pair_ii { int v; int i; };
struct pair_si { short v; int i; };
struct pair_ldi { long double v; int i; };

#define DT(n, k, c, t) { #n, n, k, c, sizeof(t), false }
#define DTR(n, k, c, t) { #n, n, k, c, sizeof(t), true }
static struct dtype dtypes[] = {
    DTR(MPI_CHAR, K_CHAR, DC_CHAR, char),
    DT(MPI_SIGNED_CHAR, K_I8, DC_INT, signed char),
    DT(MPI_UNSIGNED_CHAR, K_U8, DC_INT, unsigned char),
    DTR(MPI_SHORT, K_I16, DC_INT, short),
    DT(MPI_UNSIGNED_SHORT, K_U16, DC_INT, unsigned short),
    DTR(MPI_INT, K_I32, DC_INT, int),
    DT(MPI_UNSIGNED, K_U32, DC_INT, unsigned),
    DT(MPI_LONG, K_I64, DC_INT, long),
    DT(MPI_UNSIGNED_LONG, K_U64, DC_INT, unsigned long),
    DT(MPI_LONG_LONG_INT, K_I64, DC_INT, long long),
    DT(MPI_UNSIGNED_LONG_LONG, K_U64, DC_INT, unsigned long long),
    DT(MPI_WCHAR, K_WCHAR, DC_CHAR, wchar_t),
    DT(MPI_INT8_T, K_I8, DC_INT, int8_t),
    DT(MPI_INT16_T, K_I16, DC_INT, int16_t),
    DT(MPI_INT32_T, K_I32, DC_INT, int32_t),
    DT(MPI_INT64_T, K_I64, DC_INT, int64_t),
    DT(MPI_UINT8_T, K_U8, DC_INT, uint8_t),
    DT(MPI_UINT16_T, K_U16, DC_INT, uint16_t),
    DT(MPI_UINT32_T, K_U32, DC_INT, uint32_t),
    DT(MPI_UINT64_T, K_U64, DC_INT, uint64_t),
    DT(MPI_AINT, K_I64, DC_INT, MPI_Aint),
    DT(MPI_OFFSET, K_I64, DC_INT, MPI_Offset),
    DT(MPI_COUNT, K_I64, DC_INT, MPI_Count),
    DT(MPI_FLOAT, K_F, DC_FLOAT, float),
    DTR(MPI_DOUBLE, K_D, DC_FLOAT, double),
    DTR(MPI_LONG_DOUBLE, K_LD, DC_FLOAT, long double),
    DT(MPI_C_FLOAT_COMPLEX, K_CF, DC_COMPLEX, float _Complex),
    DT(MPI_C_DOUBLE_COMPLEX, K_CD, DC_COMPLEX, double _Complex),
    DTR(MPI_C_LONG_DOUBLE_COMPLEX, K_CLD, DC_COMPLEX, long double _Complex),
    DT(MPI_C_BOOL, K_BOOL, DC_BOOL, bool),
    DT(MPI_BYTE, K_BYTE, DC_BYTE, unsigned char),
    DT(MPI_FLOAT_INT, K_P_FI, DC_PAIR, struct pair_fi),
    DT(MPI_DOUBLE_INT, K_P_DI, DC_PAIR, struct pair_di),
    DT(MPI_LONG_INT, K_P_LI, DC_PAIR, struct pair_li),
    DT(MPI_2INT, K_P_II, DC_PAIR, struct pair_ii),
    DTR(MPI_SHORT_INT, K_P_SI, DC_PAIR, struct pair_si),
    DT(MPI_LONG_DOUBLE_INT, K_P_LDI, DC_PAIR, struct pair_ldi),
};
#define NDTYPES (sizeof(dtypes) / sizeof(dtypes[0]))

#define C(x) (1u << (x))
static struct op ops[] = {
    { "MPI_MAX", MPI_OP_NULL, G_MAXMIN, C(DC_INT) | C(DC_FLOAT), MPI_DATATYPE_NULL },
    { "MPI_MIN", MPI_OP_NULL, G_MAXMIN, C(DC_INT) | C(DC_FLOAT), MPI_DATATYPE_NULL },
    { "MPI_SUM", MPI_OP_NULL, G_SUM, C(DC_INT) | C(DC_FLOAT) | C(DC_COMPLEX), MPI_DATATYPE_NULL },
    { "MPI_PROD", MPI_OP_NULL, G_PROD, C(DC_INT) | C(DC_FLOAT) | C(DC_COMPLEX), MPI_DATATYPE_NULL },
    { "MPI_LAND", MPI_OP_NULL, G_LAND, C(DC_INT) | C(DC_BOOL), MPI_DATATYPE_NULL },
    { "MPI_LOR", MPI_OP_NULL, G_LOR, C(DC_INT) | C(DC_BOOL), MPI_DATATYPE_NULL },
    { "MPI_LXOR", MPI_OP_NULL, G_LXOR, C(DC_INT) | C(DC_BOOL), MPI_DATATYPE_NULL },
    { "MPI_BAND", MPI_OP_NULL, G_BITS, C(DC_INT) | C(DC_BYTE), MPI_DATATYPE_NULL },
    { "MPI_BOR", MPI_OP_NULL, G_BITS, C(DC_INT) | C(DC_BYTE), MPI_DATATYPE_NULL },
    { "MPI_BXOR", MPI_OP_NULL, G_BITS, C(DC_INT) | C(DC_BYTE), MPI_DATATYPE_NULL },
    { "MPI_MAXLOC", MPI_OP_NULL, G_LOC, C(DC_PAIR), MPI_DATATYPE_NULL },
    { "MPI_MINLOC", MPI_OP_NULL, G_LOC, C(DC_PAIR), MPI_DATATYPE_NULL },
    /* (a+1)(b+1)-1 mod 2^32 on MPI_UNSIGNED: commutative and associative */
    { "USER_COMM", MPI_OP_NULL, G_UCOMM, C(DC_INT), MPI_DATATYPE_NULL },
    /* composition of affine maps x -> a*x+b mod 2^32 packed in MPI_UINT64_T */
    { "USER_NONCOMM", MPI_OP_NULL, G_UNONCOMM, C(DC_INT), MPI_DATATYPE_NULL },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

enum rkind { RK_ALLREDUCE, RK_ALLREDUCE_INPLACE, RK_REDUCE_ROOT0, RK_REDUCE_LAST, RK_REDUCE_INPLACE };
static const char *const rkind_name[] = { "allreduce", "allreduce_inplace", "reduce", "reduce",
                                          "reduce_inplace" };
#define NRKINDS 5

static int rank, size;
static FILE *outf; /* stdout, or <out-dir>/rank.<r> */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "coll_check rank %d: ", rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

static void check_mpi(int rc, const char *what, const char *dt)
{
    if (rc != MPI_SUCCESS)
        die("%s on %s failed (error %d)", what, dt, rc);
}

/* ---- digest ------------------------------------------------------------ */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* x87 long double: 64-bit mantissa + 16-bit sign/exponent; the rest is padding. */
#define LD_SIG ((sizeof(long double) > 10) ? 10 : sizeof(long double))

static uint64_t digest_elem(uint64_t h, const struct dtype *d, const unsigned char *e)
{
    switch (d->kind) {
    case K_LD:
        return fnv(h, e, LD_SIG);
    case K_CLD:
        h = fnv(h, e, LD_SIG);
        return fnv(h, e + sizeof(long double), LD_SIG);
    case K_P_FI: {
        const struct pair_fi *p = (const void *)e;
        return fnv(fnv(h, &p->v, sizeof(p->v)), &p->i, sizeof(p->i));
    }
    case K_P_DI: {
        const struct pair_di *p = (const void *)e;
        return fnv(fnv(h, &p->v, sizeof(p->v)), &p->i, sizeof(p->i));
    }
    case K_P_LI: {
        const struct pair_li *p = (const void *)e;
        return fnv(fnv(h, &p->v, sizeof(p->v)), &p->i, sizeof(p->i));
    }
    case K_P_II: {
        const struct pair_ii *p = (const void *)e;
        return fnv(fnv(h, &p->v, sizeof(p->v)), &p->i, sizeof(p->i));
    }
    case K_P_SI: {
        const struct pair_si *p = (const void *)e;
        return fnv(fnv(h, &p->v, sizeof(p->v)), &p->i, sizeof(p->i));
    }
    case K_P_LDI: {
        const struct pair_ldi *p = (const void *)e;
        return fnv(fnv(h, &p->v, LD_SIG), &p->i, sizeof(p->i));
    }
    default:
        return fnv(h, e, d->extent);
    }
}

static uint64_t digest(const struct dtype *d, const void *buf, size_t n)
{
    const unsigned char *c = buf;
    uint64_t h = FNV_OFFSET;
    if (d->kind < K_LD || (d->kind > K_CLD && d->kind < K_P_FI) || d->kind == K_P_FI ||
        d->kind == K_P_II)
        return fnv(h, c, n * d->extent); /* no padding: one pass */
    for (size_t i = 0; i < n; i++)
        h = digest_elem(h, d, c + i * d->extent);
    return h;
}

static void print_case(const char *kind, const struct dtype *d, const char *op, size_t count,
                       int root, uint64_t h)
{
    fprintf(outf, "%s %s %s count=%zu root=%d digest=%016llx\n", kind, d ? d->name : "-", op, count,
           root, (unsigned long long)h);
}

/* ---- deterministic input data ------------------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t rnd(int salt, int r, size_t i)
{
    return mix(((uint64_t)salt << 56) ^ ((uint64_t)(unsigned)r << 40) ^ (uint64_t)i);
}

static void put_int(void *e, enum kind k, int64_t v)
{
    switch (k) {
    case K_I8: case K_U8: case K_BYTE: case K_CHAR: { uint8_t x = (uint8_t)v; memcpy(e, &x, 1); break; }
    case K_BOOL: { bool x = v != 0; memcpy(e, &x, sizeof(x)); break; }
    case K_I16: case K_U16: { uint16_t x = (uint16_t)v; memcpy(e, &x, 2); break; }
    case K_I32: case K_U32: case K_WCHAR: { uint32_t x = (uint32_t)v; memcpy(e, &x, 4); break; }
    case K_I64: case K_U64: { uint64_t x = (uint64_t)v; memcpy(e, &x, 8); break; }
    default: break;
    }
}

static void put_real(void *e, enum kind k, double re, double im)
{
    switch (k) {
    case K_F: { float x = (float)re; memcpy(e, &x, sizeof(x)); break; }
    case K_D: memcpy(e, &re, sizeof(re)); break;
    case K_LD: { long double x = re; memcpy(e, &x, LD_SIG); break; }
    case K_CF: { float x[2] = { (float)re, (float)im }; memcpy(e, x, sizeof(x)); break; }
    case K_CD: { double x[2] = { re, im }; memcpy(e, x, sizeof(x)); break; }
    case K_CLD: {
        long double x = re, y = im;
        memcpy(e, &x, LD_SIG);
        memcpy((char *)e + sizeof(long double), &y, LD_SIG);
        break;
    }
    default: break;
    }
}

static void put_pair(void *e, enum kind k, int v, int idx)
{
    switch (k) {
    case K_P_FI: { struct pair_fi *p = e; p->v = (float)v; p->i = idx; break; }
    case K_P_DI: { struct pair_di *p = e; p->v = v; p->i = idx; break; }
    case K_P_LI: { struct pair_li *p = e; p->v = v; p->i = idx; break; }
    case K_P_II: { struct pair_ii *p = e; p->v = v; p->i = idx; break; }
    case K_P_SI: { struct pair_si *p = e; p->v = (short)v; p->i = idx; break; }
    case K_P_LDI: { struct pair_ldi *p = e; p->v = v; p->i = idx; break; }
    default: break;
    }
}

static bool is_real(enum kind k) { return k >= K_F && k <= K_CLD; }
static bool is_pair(enum kind k) { return k >= K_P_FI; }

/*
 * Integer input for an op.  SUM and PROD never overflow even the 8-bit
 * types: Open MPI 4.1.4's AVX kernels (op/avx) saturate 8- and 16-bit MPI_SUM
 * (100 + 100 = 127 in MPI_SIGNED_CHAR), so wrap-around results would depend
 * on which elements took the vector path.  PROD: only one rank per element
 * contributes a factor other than +-1.
 */
static bool is_unsigned(enum kind k)
{
    return k == K_U8 || k == K_U16 || k == K_U32 || k == K_U64;
}

static int64_t int_value(enum gen g, enum kind k, int r, size_t i)
{
    uint64_t x = rnd((int)g, r, i);
    static const int64_t big_factor[4] = { 2, 3, -2, -3 };
    switch (g) {
    case G_SUM: return is_unsigned(k) ? (int64_t)(x % 31) : (int64_t)(x % 31) - 15;
    case G_PROD:
        if ((size_t)r == i % (size_t)size)
            return is_unsigned(k) ? 2 + (int64_t)(x % 2) : big_factor[x % 4];
        return (is_unsigned(k) || (x & 1)) ? 1 : -1;
    case G_LAND: return (x % 13 == 0) ? 0 : (int64_t)(x >> 58) + 1;
    case G_LOR: return (x % 13 == 0) ? (int64_t)(x >> 58) + 1 : 0;
    case G_LXOR: return (x & 1) ? (int64_t)(x >> 60) + 1 : 0;
    case G_UCOMM: return (int64_t)(x & 0xffffffffu);
    case G_UNONCOMM: return (int64_t)((x & 0xffffffff00000000ull) | 1ull << 32 | (x & 0xffffffffu));
    default: return (int64_t)x; /* MAX/MIN, bitwise, data movement: all bits */
    }
}

/* Floating input: exact and order-independent for the op. */
static void real_value(enum gen g, int r, size_t i, double *re, double *im)
{
    uint64_t x = rnd((int)g + 16, r, i);
    static const double prod_vals[4] = { 1.0, -1.0, 2.0, 0.5 };
    *im = 0;
    switch (g) {
    case G_SUM:
        *re = (double)(int)(x % 17) - 8;
        *im = (double)(int)((x >> 8) % 17) - 8;
        break;
    case G_PROD:
        *re = prod_vals[x % 4];
        *im = prod_vals[(x >> 8) % 4];
        break;
    default: /* MAX/MIN and data movement */
        *re = (double)(int)(x % 2001) - 1000.0 + 0.25 * (double)((x >> 16) % 4);
        *im = (double)(int)((x >> 20) % 2001) - 1000.0;
        if (*re == 0)
            *re = 0.5;
        break;
    }
}

static void fill_elem(const struct dtype *d, enum gen g, int r, size_t i, unsigned char *e)
{
    if (is_pair(d->kind)) {
        uint64_t x = rnd(40, r, i);
        put_pair(e, d->kind, (int)(x % 5) - 2, (int)((x >> 8) % 11) + r % 3);
    } else if (d->kind == K_CF || d->kind == K_CD || d->kind == K_CLD) {
        /* u * (2+i) for the units u: no partial product has a zero component */
        static const double cprod[4][2] = { { 2, 1 }, { -2, -1 }, { -1, 2 }, { 1, -2 } };
        double re, im;
        if (g == G_PROD) {
            uint64_t x = rnd(41, r, i);
            re = cprod[x % 4][0];
            im = cprod[x % 4][1];
        } else {
            real_value(g, r, i, &re, &im);
        }
        put_real(e, d->kind, re, im);
    } else if (is_real(d->kind)) {
        double re, im;
        real_value(g, r, i, &re, &im);
        put_real(e, d->kind, re, 0);
    } else {
        int64_t v = int_value(g, d->kind, r, i);
        /* Open MPI 4.1.4 reduces MPI_UNSIGNED_LONG MAX/MIN as signed and
         * MPI_OFFSET MAX/MIN as unsigned (max(-7, 3) = -7): keep the sign bit
         * clear so native mpirun is a usable reference for them. */
        if (g == G_MAXMIN && (d->type == MPI_UNSIGNED_LONG || d->type == MPI_OFFSET))
            v = (int64_t)((uint64_t)v >> 2);
        put_int(e, d->kind, v);
    }
}

static void *alloc_buf(const struct dtype *d, size_t n)
{
    size_t bytes = n * d->extent;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory for %s x %zu", d->name, n);
    memset(p, SENTINEL, bytes ? bytes : 1);
    return p;
}

static void fill(const struct dtype *d, enum gen g, int r, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fill_elem(d, g, r, i, (unsigned char *)buf + i * d->extent);
}

/* ---- user ops ---------------------------------------------------------- */

static void user_comm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = (a[i] + 1u) * (b[i] + 1u) - 1u;
}

/* inout = in o inout, "apply in first": x -> a2*(a1*x+b1)+b2 */
static void user_noncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const uint64_t *x = in;
    uint64_t *y = inout;
    for (int i = 0; i < *len; i++) {
        uint32_t a1 = (uint32_t)(x[i] >> 32), b1 = (uint32_t)x[i];
        uint32_t a2 = (uint32_t)(y[i] >> 32), b2 = (uint32_t)y[i];
        uint32_t a = a1 * a2, b = a2 * b1 + b2;
        y[i] = (uint64_t)a << 32 | b;
    }
}

static void setup_ops(void)
{
    MPI_Op predefined[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC };
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        ops[i].op = predefined[i];
    check_mpi(MPI_Op_create(user_comm, 1, &ops[NOPS - 2].op), "MPI_Op_create", "USER_COMM");
    ops[NOPS - 2].only = MPI_UNSIGNED;
    check_mpi(MPI_Op_create(user_noncomm, 0, &ops[NOPS - 1].op), "MPI_Op_create", "USER_NONCOMM");
    ops[NOPS - 1].only = MPI_UINT64_T;
}

static void check_types(void)
{
    for (size_t i = 0; i < NDTYPES; i++) {
        MPI_Aint lb, ext;
        check_mpi(MPI_Type_get_extent(dtypes[i].type, &lb, &ext), "MPI_Type_get_extent",
                  dtypes[i].name);
        if (lb != 0 || (size_t)ext != dtypes[i].extent)
            die("%s: MPI lb %ld extent %ld, C size %zu", dtypes[i].name, (long)lb, (long)ext,
                dtypes[i].extent);
    }
}

/* ---- the sweeps -------------------------------------------------------- */

static bool op_applies(const struct op *o, const struct dtype *d)
{
    if (!(o->classes & C(d->cls)))
        return false;
    return o->only == MPI_DATATYPE_NULL || o->only == d->type;
}

static void run_reduce(enum rkind rk, const struct dtype *d, const struct op *o, size_t n)
{
    int count = (int)n, root = -1, rc;
    void *in = alloc_buf(d, n), *out = alloc_buf(d, n);
    bool have_result = true;

    fill(d, o->gen, rank, in, n);
    switch (rk) {
    case RK_ALLREDUCE:
        rc = MPI_Allreduce(in, out, count, d->type, o->op, MPI_COMM_WORLD);
        break;
    case RK_ALLREDUCE_INPLACE:
        memcpy(out, in, n * d->extent);
        rc = MPI_Allreduce(MPI_IN_PLACE, out, count, d->type, o->op, MPI_COMM_WORLD);
        break;
    case RK_REDUCE_ROOT0:
    case RK_REDUCE_LAST:
        root = rk == RK_REDUCE_ROOT0 ? 0 : size - 1;
        have_result = rank == root;
        rc = MPI_Reduce(in, have_result ? out : NULL, count, d->type, o->op, root, MPI_COMM_WORLD);
        break;
    default:
        root = size - 1;
        have_result = rank == root;
        if (have_result) {
            memcpy(out, in, n * d->extent);
            rc = MPI_Reduce(MPI_IN_PLACE, out, count, d->type, o->op, root, MPI_COMM_WORLD);
        } else {
            rc = MPI_Reduce(in, NULL, count, d->type, o->op, root, MPI_COMM_WORLD);
        }
        break;
    }
    check_mpi(rc, rkind_name[rk], d->name);
    if (have_result)
        print_case(rkind_name[rk], d, o->name, n, root, digest(d, out, n));
    else
        fprintf(outf, "%s %s %s count=%zu root=%d digest=-\n", rkind_name[rk], d->name, o->name, n, root);
    free(in);
    free(out);
}

static void run_bcast(const struct dtype *d, size_t n, int root)
{
    void *buf = alloc_buf(d, n);
    if (rank == root)
        fill(d, G_MAXMIN, root, buf, n);
    check_mpi(MPI_Bcast(buf, (int)n, d->type, root, MPI_COMM_WORLD), "MPI_Bcast", d->name);
    print_case("bcast", d, "-", n, root, digest(d, buf, n));
    free(buf);
}

static void run_allgather(const struct dtype *d, size_t n)
{
    /* n elements from every rank (n/size in the reduced sweep) */
    void *in = alloc_buf(d, n), *out = alloc_buf(d, n * (size_t)size);
    fill(d, G_MAXMIN, rank, in, n);
    check_mpi(MPI_Allgather(in, (int)n, d->type, out, (int)n, d->type, MPI_COMM_WORLD),
              "MPI_Allgather", d->name);
    print_case("allgather", d, "-", n, -1, digest(d, out, n * (size_t)size));
    free(in);
    free(out);
}

/* Rank r contributes n*(r+1)/size elements; one untouched element between blocks. */
static void run_allgatherv(const struct dtype *d, size_t n)
{
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    size_t total = 0;
    if (!counts || !displs)
        die("out of memory");
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(n * (size_t)(r + 1) / (size_t)size);
        displs[r] = (int)total;
        total += (size_t)counts[r] + 1;
    }
    void *in = alloc_buf(d, (size_t)counts[rank]), *out = alloc_buf(d, total);
    fill(d, G_MAXMIN, rank, in, (size_t)counts[rank]);
    check_mpi(MPI_Allgatherv(in, counts[rank], d->type, out, counts, displs, d->type,
                             MPI_COMM_WORLD), "MPI_Allgatherv", d->name);
    print_case("allgatherv", d, "-", n, -1, digest(d, out, total));
    free(in);
    free(out);
    free(counts);
    free(displs);
}

static void touch(const char *dir, int k, int r, bool create)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/barrier.%d.%d", dir, k, r);
    if (create) {
        FILE *f = fopen(path, "w");
        if (!f || fclose(f) != 0)
            die("cannot create %s: %s", path, strerror(errno));
    } else if (access(path, F_OK) != 0) {
        die("MPI_Barrier %d returned before rank %d arrived", k, r);
    }
}

static void run_barrier(const char *dir, int k)
{
    if (dir)
        touch(dir, k, rank, true);
    check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", "-");
    if (dir)
        for (int r = 0; r < size; r++)
            touch(dir, k, r, false);
    print_case("barrier", NULL, "-", 0, -1, fnv(FNV_OFFSET, &k, sizeof(k)));
}

static void sweep(size_t n, bool reduced, const char *bdir, int *nbarrier)
{
    for (size_t di = 0; di < NDTYPES; di++) {
        const struct dtype *d = &dtypes[di];
        bool first = true;
        for (size_t oi = 0; oi < NOPS; oi++) {
            const struct op *o = &ops[oi];
            if (!op_applies(o, d))
                continue;
            for (int rk = 0; rk < NRKINDS; rk++) {
                if (reduced && rk != RK_ALLREDUCE && !(rk == RK_REDUCE_LAST && first))
                    continue;
                run_reduce((enum rkind)rk, d, o, n);
            }
            first = false;
        }
        if (reduced && !d->rep)
            continue;
        run_bcast(d, n, 0);
        run_bcast(d, n, size - 1);
        run_allgather(d, reduced ? n / (size_t)size : n);
        run_allgatherv(d, n);
    }
    run_barrier(bdir, (*nbarrier)++);
}

/* ---- --big ------------------------------------------------------------- */

#define BIG_BYTES (((size_t)2 << 30) + 16)

static int big(void)
{
    size_t n = (BIG_BYTES) / sizeof(uint64_t);
    uint64_t *buf = malloc(n * sizeof(uint64_t)), mask = 0;
    int root = size - 1;
    if (!buf)
        die("cannot allocate %zu bytes", BIG_BYTES);
    for (int b = 0; b < 64; b++)
        if (b % size == rank)
            mask |= 1ull << b;

    for (size_t i = 0; i < n; i++)
        buf[i] = rank == root ? mix(i ^ 0x5a5a) : 0;
    check_mpi(MPI_Bcast(buf, (int)n, MPI_UINT64_T, root, MPI_COMM_WORLD), "MPI_Bcast", "big");
    for (size_t i = 0; i < n; i++)
        if (buf[i] != mix(i ^ 0x5a5a))
            die("big bcast: wrong data at element %zu", i);
    fprintf(outf, "big bcast MPI_UINT64_T count=%zu bytes=%zu root=%d ok\n", n, n * 8, root);

    for (size_t i = 0; i < n; i++)
        buf[i] = mix(i) & mask;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD),
              "MPI_Allreduce", "big");
    for (size_t i = 0; i < n; i++)
        if (buf[i] != mix(i))
            die("big allreduce: wrong data at element %zu", i);
    fprintf(outf, "big allreduce_inplace MPI_UINT64_T MPI_BOR count=%zu bytes=%zu ok\n", n, n * 8);
    free(buf);
    return 0;
}

/* Lines go to stdout, line buffered so ranks' lines do not tear, or with
 * --out-dir to one file per rank, which two launchers' runs can be diffed by. */
static void open_out(const char *dir)
{
    char path[4096];
    if (!dir) {
        outf = stdout;
        setvbuf(stdout, NULL, _IOLBF, 0);
        return;
    }
    snprintf(path, sizeof(path), "%s/rank.%d", dir, rank);
    if (!(outf = fopen(path, "w")))
        die("cannot create %s: %s", path, strerror(errno));
}

/* ---- main -------------------------------------------------------------- */

static size_t parse_counts(const char *s, size_t *out)
{
    size_t k = 0;
    char *end;
    while (*s && k < MAX_COUNTS) {
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || errno || v > INT_MAX || (*end && *end != ','))
            return 0;
        out[k++] = (size_t)v;
        s = *end ? end + 1 : end;
    }
    return k;
}

int main(int argc, char **argv)
{
    size_t counts[MAX_COUNTS], ncounts = parse_counts(DEFAULT_COUNTS, counts);
    size_t reduced_above = SIZE_MAX;
    const char *bdir = NULL;
    const char *odir = NULL;
    bool do_big = false;
    int nbarrier = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            if (!(ncounts = parse_counts(argv[++i], counts)))
                die("bad --counts %s", argv[i]);
        } else if (!strcmp(argv[i], "--reduced-above") && i + 1 < argc) {
            reduced_above = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--barrier-dir") && i + 1 < argc) {
            bdir = argv[++i];
        } else if (!strcmp(argv[i], "--out-dir") && i + 1 < argc) {
            odir = argv[++i];
        } else if (!strcmp(argv[i], "--big")) {
            do_big = true;
        } else {
            die("usage: coll_check [--counts a,b,...] [--reduced-above N] [--barrier-dir D] "
                "[--out-dir D] [--big] (bad argument %s)", argv[i]);
        }
    }
    open_out(odir);
    check_types();
    setup_ops();
    if (do_big) {
        big();
    } else {
        run_barrier(bdir, nbarrier++);
        for (size_t c = 0; c < ncounts; c++)
            sweep(counts[c], counts[c] > reduced_above, bdir, &nbarrier);
    }
    if (fclose(outf) != 0)
        die("cannot write the output: %s", strerror(errno));
    MPI_Op_free(&ops[NOPS - 2].op);
    MPI_Op_free(&ops[NOPS - 1].op);
    MPI_Finalize();
    return 0;
}
