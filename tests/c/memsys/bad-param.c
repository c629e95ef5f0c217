int mem[LOCATIONS];
int enabled_read(int p, int l) { return 1; }
int read(int p, int l) { return mem[l]; }
int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; }
int enabled_evict(int p, int x) { return 1; }
void evict(int p, int x) { }
