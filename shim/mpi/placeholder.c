#include "enc.h"
int encore_active(void) { return 0; }
