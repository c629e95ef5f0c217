/* The simplest memory system: one memory, no caches, every event atomic. Sequentially
 * consistent by construction (the order of the events is a serialisation).
 *   weakc memsys --depth 6 examples/memsys/single-memory.c */
int mem[LOCATIONS];

int enabled_read(int p, int l) { return 1; }
int read(int p, int l) { return mem[l]; }

int enabled_write(int p, int l, int d) { return 1; }
void write(int p, int l, int d) { mem[l] = d; }
