#include "unsupported.h"
int main(void) { return twice(1); }
