/* A header with a mistake in a function the program uses. */
static inline int fine(int a) { return a; }

static inline int broken(int a) { int r = a @ 2; return r; }
