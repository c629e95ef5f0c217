static int cell;

void init(void) { cell = 0; }

void put(int *p) { cell = *p; }

int get(void) { return cell; }
