/*
 * test_vec.c - shim/core/vec: a growable array doubles until what is asked
 * for fits, zeroes what it adds, and leaves the array as it was when the
 * size would overflow.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/vec.h"

static int *a;
static size_t cap;

static void release(void)
{
    free(a);
    a = NULL;
    cap = 0;
}

TestSuite(vec, .fini = release);

static void assert_zero_from(size_t i)
{
    for (; i < cap; i++)
        cr_assert_eq(a[i], 0, "element %zu", i);
}

Test(vec, first_reserve_allocates_the_minimum_zeroed)
{
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, 1), ENC_OK);
    cr_assert_not_null(a);
    cr_assert_eq(cap, ENC_VEC_MIN);
    assert_zero_from(0);
}

Test(vec, doubles_until_need_fits_and_keeps_the_elements)
{
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, ENC_VEC_MIN), ENC_OK);
    for (int i = 0; i < ENC_VEC_MIN; i++)
        a[i] = i + 1;
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, 5 * ENC_VEC_MIN), ENC_OK);
    cr_assert_eq(cap, 8 * ENC_VEC_MIN);
    for (int i = 0; i < ENC_VEC_MIN; i++)
        cr_assert_eq(a[i], i + 1);
    assert_zero_from(ENC_VEC_MIN);
}

Test(vec, need_within_capacity_changes_nothing)
{
    int *before;

    cr_assert_eq(ENC_VEC_RESERVE(a, cap, 3), ENC_OK);
    before = a;
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, ENC_VEC_MIN), ENC_OK);
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, 0), ENC_OK);
    cr_assert_eq(a, before);
    cr_assert_eq(cap, ENC_VEC_MIN);
}

Test(vec, overflow_is_nomem_and_leaves_the_array)
{
    int *before;

    cr_assert_eq(ENC_VEC_RESERVE(a, cap, 1), ENC_OK);
    before = a;
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, SIZE_MAX / 2), ENC_ERR_NOMEM); /* bytes overflow */
    cr_assert_eq(ENC_VEC_RESERVE(a, cap, SIZE_MAX), ENC_ERR_NOMEM);     /* count overflows */
    cr_assert_eq(a, before);
    cr_assert_eq(cap, ENC_VEC_MIN);
}
