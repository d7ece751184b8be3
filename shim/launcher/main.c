/* main.c - encore-run (placeholder until the launcher lands). */
#include "enc.h"
int main(void) { return 1; }
