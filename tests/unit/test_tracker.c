#include "enc.h"
#include <criterion/criterion.h>
Test(tracker, placeholder) {}
