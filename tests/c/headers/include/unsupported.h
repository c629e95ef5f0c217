static inline int twice(int a) {
  int r = a;

  r = _Generic(r, int: r * 2, default: 0);
  return r;
}
