static int cell;

void setup(void) { cell = 0; }

void put(int v) { cell = v; }

int get(void) { return cell; }
