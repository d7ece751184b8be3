/* main.c - encore-tracker (placeholder). */
#include "enc.h"
int main(void) { return 1; }
