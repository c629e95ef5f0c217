int mem[LOCATIONS];
int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; }
