// A C interface to the parts of CaDiCaL's C++ API that the `cadical` crate does not wrap:
// the terminator and the external propagator (IPASIR-UP, Fazekas et al., SAT 2023), which
// the built-in engine's order theory (src/bmc/acyclic.rs) implements in Rust. Every
// callback forwards to a Rust function with the `data` pointer it was given.

#include "cadical/cadical.hpp"

#include <cstddef>
#include <vector>

extern "C" {

struct weakc_callbacks {
  void *data;
  void (*assign) (void *data, int lit, int fixed);
  void (*new_level) (void *data);
  void (*backtrack) (void *data, size_t level);
  int (*check_model) (void *data, const int *model, size_t len);
  int (*has_clause) (void *data);
  int (*clause_lit) (void *data);
  int (*propagate) (void *data);
  int (*reason_lit) (void *data, int lit);
};

typedef int (*weakc_terminate_fn) (void *data);
}

namespace {

class Terminator : public CaDiCaL::Terminator {
public:
  void *data = nullptr;
  weakc_terminate_fn fn = nullptr;
  bool terminate () override { return fn && fn (data); }
};

class Propagator : public CaDiCaL::ExternalPropagator {
public:
  weakc_callbacks cb;
  explicit Propagator (weakc_callbacks c) : cb (c) {}
  void notify_assignment (int lit, bool fixed) override {
    cb.assign (cb.data, lit, fixed);
  }
  void notify_new_decision_level () override { cb.new_level (cb.data); }
  void notify_backtrack (size_t level) override {
    cb.backtrack (cb.data, level);
  }
  bool cb_check_found_model (const std::vector<int> &model) override {
    return cb.check_model (cb.data, model.data (), model.size ());
  }
  bool cb_has_external_clause () override { return cb.has_clause (cb.data); }
  int cb_add_external_clause_lit () override {
    return cb.clause_lit (cb.data);
  }
  int cb_propagate () override { return cb.propagate (cb.data); }
  int cb_add_reason_clause_lit (int lit) override {
    return cb.reason_lit (cb.data, lit);
  }
};

struct Handle {
  CaDiCaL::Solver solver;
  Terminator terminator;
  Propagator *propagator = nullptr;
};

} // namespace

extern "C" {

void *weakc_cadical_new () { return new Handle; }

void weakc_cadical_delete (void *h) {
  Handle *x = static_cast<Handle *> (h);
  if (x->propagator) {
    x->solver.disconnect_external_propagator ();
    delete x->propagator;
  }
  delete x;
}

void weakc_cadical_add (void *h, int lit) {
  static_cast<Handle *> (h)->solver.add (lit);
}

void weakc_cadical_assume (void *h, int lit) {
  static_cast<Handle *> (h)->solver.assume (lit);
}

// Sets CaDiCaL option `name` (before the first clause); nonzero when it exists.
int weakc_cadical_set_option (void *h, const char *name, int value) {
  return static_cast<Handle *> (h)->solver.set (name, value);
}

int weakc_cadical_solve (void *h) {
  return static_cast<Handle *> (h)->solver.solve ();
}

int weakc_cadical_val (void *h, int lit) {
  return static_cast<Handle *> (h)->solver.val (lit);
}

void weakc_cadical_set_terminate (void *h, void *data, weakc_terminate_fn fn) {
  Handle *x = static_cast<Handle *> (h);
  x->terminator.data = data;
  x->terminator.fn = fn;
  if (fn)
    x->solver.connect_terminator (&x->terminator);
  else
    x->solver.disconnect_terminator ();
}

// Connects the propagator (once per solver); `weakc_cadical_observe` then names the
// variables it is told about.
void weakc_cadical_connect (void *h, weakc_callbacks cb) {
  Handle *x = static_cast<Handle *> (h);
  x->propagator = new Propagator (cb);
  x->solver.connect_external_propagator (x->propagator);
}

void weakc_cadical_observe (void *h, int var) {
  static_cast<Handle *> (h)->solver.add_observed_var (var);
}
}
