#include "broken.h"
int main(void) { return broken(1); }
