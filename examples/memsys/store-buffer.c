/* x86-TSO as a memory system: each processor's writes wait in a FIFO store buffer
 * (BUFFER entries) until a `flush` step moves the oldest to memory; a read takes the
 * newest buffered write of its own processor to the location, or memory.
 * Not sequentially consistent: store buffering (SB) is a 2-nice cycle.
 *   weakc memsys --processors 2 --locations 2 --depth 6 examples/memsys/store-buffer.c */
#ifndef BUFFER
#define BUFFER 2
#endif

int mem[LOCATIONS];
int buf_loc[PROCESSORS][BUFFER];
int buf_val[PROCESSORS][BUFFER];
int buf_len[PROCESSORS];

int enabled_write(int p, int l, int d) { return buf_len[p] < BUFFER; }
void write(int p, int l, int d) {
    buf_loc[p][buf_len[p]] = l;
    buf_val[p][buf_len[p]] = d;
    buf_len[p]++;
}

int enabled_read(int p, int l) { return 1; }
int read(int p, int l) {
    for (int i = BUFFER - 1; i >= 0; i--)
        if (i < buf_len[p] && buf_loc[p][i] == l)
            return buf_val[p][i];
    return mem[l];
}

int enabled_flush(int p) { return buf_len[p] > 0; }
void flush(int p) {
    mem[buf_loc[p][0]] = buf_val[p][0];
    for (int i = 1; i < BUFFER; i++) {
        buf_loc[p][i - 1] = buf_loc[p][i];
        buf_val[p][i - 1] = buf_val[p][i];
    }
    buf_len[p]--;
}
