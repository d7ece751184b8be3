#include "enc.h"
