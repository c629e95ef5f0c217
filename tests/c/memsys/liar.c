/* A memory that makes up values: not causal. */
int mem[LOCATIONS];
int enabled_read(int p, int l) { return 1; }
int read(int p, int l) { return mem[l] + 7; }
int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; }
