/* wire.c - placeholder */
#include "enc.h"
