/* A protocol checking its own invariant: a counter of writes that must stay below 2. */
int mem[LOCATIONS];
int count;
int enabled_read(int p, int l) { return 1; }
int read(int p, int l) { return mem[l]; }
int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; count++; __VERIFIER_assert(count < 2); }
