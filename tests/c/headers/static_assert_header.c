#include "static_assert.h"
int main(void) { return 0; }
