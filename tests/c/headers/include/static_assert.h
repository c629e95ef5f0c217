#include <stdint.h>
_Static_assert(sizeof(intptr_t) == 8, "LP64");
_Static_assert(sizeof(int) == 8, "int is not 8 bytes here");
