//! CaDiCaL through `csrc/propagator.cpp`: clauses, assumptions, models, a terminate
//! callback, and an external propagator ([`Theory`]) told about the variables it observes.
//! The `cadical` crate compiles and links the solver; its Rust API has no propagators.

use std::ffi::c_void;
use std::os::raw::c_int;

/// Asked now and then while solving; `true` stops the search.
pub trait Terminate {
    fn terminate(&mut self) -> bool;
}

/// What CaDiCaL's external propagator interface asks of a theory (IPASIR-UP). Only valid
/// lemmas may be returned: clauses every model of the theory satisfies.
pub trait Theory {
    /// An observed literal became true (`fixed`: at the root, for good).
    fn assign(&mut self, lit: i32, fixed: bool);
    fn new_level(&mut self);
    fn backtrack(&mut self, level: usize);
    /// Whether the complete assignment `model` satisfies the theory; if not, a lemma must
    /// be pending ([`Theory::next_clause`]).
    fn check_model(&mut self, model: &[i32]) -> bool;
    /// The next pending lemma's next literal: `Some(0)` closes the lemma, `None` when no
    /// lemma is pending.
    fn next_clause(&mut self) -> Option<i32>;
    fn has_clause(&mut self) -> bool;
    /// A literal the theory implies now (0: none).
    fn propagate(&mut self) -> i32;
    /// The reason clause of a literal [`Theory::propagate`] gave, one literal per call
    /// (the literal itself among them), then 0.
    fn reason_lit(&mut self, lit: i32) -> i32;
}

#[repr(C)]
struct Callbacks {
    data: *mut c_void,
    assign: extern "C" fn(*mut c_void, c_int, c_int),
    new_level: extern "C" fn(*mut c_void),
    backtrack: extern "C" fn(*mut c_void, usize),
    check_model: extern "C" fn(*mut c_void, *const c_int, usize) -> c_int,
    has_clause: extern "C" fn(*mut c_void) -> c_int,
    clause_lit: extern "C" fn(*mut c_void) -> c_int,
    propagate: extern "C" fn(*mut c_void) -> c_int,
    reason_lit: extern "C" fn(*mut c_void, c_int) -> c_int,
}

extern "C" {
    fn weakc_cadical_new() -> *mut c_void;
    fn weakc_cadical_delete(h: *mut c_void);
    fn weakc_cadical_add(h: *mut c_void, lit: c_int);
    fn weakc_cadical_assume(h: *mut c_void, lit: c_int);
    fn weakc_cadical_solve(h: *mut c_void) -> c_int;
    fn weakc_cadical_set_option(h: *mut c_void, name: *const std::ffi::c_char, value: c_int) -> c_int;
    fn weakc_cadical_val(h: *mut c_void, lit: c_int) -> c_int;
    fn weakc_cadical_set_terminate(h: *mut c_void, data: *mut c_void, f: Option<extern "C" fn(*mut c_void) -> c_int>);
    fn weakc_cadical_connect(h: *mut c_void, cb: Callbacks);
    fn weakc_cadical_observe(h: *mut c_void, var: c_int);
}

/// One CaDiCaL instance, its terminate callback and its theory.
pub struct Solver<T: Theory, F: Terminate> {
    handle: *mut c_void,
    // Boxed: C++ keeps pointers to them.
    theory: Option<Box<T>>,
    terminate: Option<Box<F>>,
}

fn theory<'a, T: Theory>(data: *mut c_void) -> &'a mut T {
    // SAFETY: `data` is the `Box<T>` the solver owns, alive while the solver is; CaDiCaL
    // calls back only from inside `solve`/`add`, when no other reference to it is used.
    unsafe { &mut *(data as *mut T) }
}

extern "C" fn on_assign<T: Theory>(d: *mut c_void, lit: c_int, fixed: c_int) {
    theory::<T>(d).assign(lit, fixed != 0)
}
extern "C" fn on_new_level<T: Theory>(d: *mut c_void) {
    theory::<T>(d).new_level()
}
extern "C" fn on_backtrack<T: Theory>(d: *mut c_void, level: usize) {
    theory::<T>(d).backtrack(level)
}
extern "C" fn on_check_model<T: Theory>(d: *mut c_void, model: *const c_int, len: usize) -> c_int {
    // SAFETY: CaDiCaL passes its model vector's data and length.
    let m = if len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(model, len) } };
    theory::<T>(d).check_model(m) as c_int
}
extern "C" fn on_has_clause<T: Theory>(d: *mut c_void) -> c_int {
    theory::<T>(d).has_clause() as c_int
}
extern "C" fn on_clause_lit<T: Theory>(d: *mut c_void) -> c_int {
    theory::<T>(d).next_clause().unwrap_or(0)
}
extern "C" fn on_propagate<T: Theory>(d: *mut c_void) -> c_int {
    theory::<T>(d).propagate()
}
extern "C" fn on_reason_lit<T: Theory>(d: *mut c_void, lit: c_int) -> c_int {
    theory::<T>(d).reason_lit(lit)
}
extern "C" fn on_terminate<F: Terminate>(d: *mut c_void) -> c_int {
    // SAFETY: `d` is the `Box<F>` the solver owns (see `theory`).
    let f = unsafe { &mut *(d as *mut F) };
    f.terminate() as c_int
}

impl<T: Theory, F: Terminate> Solver<T, F> {
    pub fn new() -> Self {
        // SAFETY: plain constructor; the handle is freed in `drop`.
        let s = Solver { handle: unsafe { weakc_cadical_new() }, theory: None, terminate: None };
        // For experiments: WEAKC_BMC_CADICAL=name=value,... sets CaDiCaL's options.
        if let Ok(spec) = std::env::var("WEAKC_BMC_CADICAL") {
            for (name, value) in spec.split(',').filter_map(|kv| kv.split_once('=')) {
                let (Ok(name), Ok(value)) = (std::ffi::CString::new(name.trim()), value.trim().parse::<c_int>()) else { continue };
                // SAFETY: valid handle, NUL-terminated name; no clause added yet.
                if unsafe { weakc_cadical_set_option(s.handle, name.as_ptr(), value) } == 0 {
                    eprintln!("weakc: WEAKC_BMC_CADICAL: CaDiCaL has no option {}", name.to_string_lossy());
                }
            }
        }
        s
    }

    pub fn add_clause(&mut self, lits: &[i32]) {
        for &l in lits {
            // SAFETY: valid handle; literals are non-zero DIMACS literals.
            unsafe { weakc_cadical_add(self.handle, l) };
        }
        unsafe { weakc_cadical_add(self.handle, 0) };
    }

    /// Connects `t` (once); [`Solver::observe`] then names its variables.
    pub fn connect(&mut self, t: T) {
        assert!(self.theory.is_none(), "one theory per solver");
        let mut b = Box::new(t);
        let data = &mut *b as *mut T as *mut c_void;
        let cb = Callbacks {
            data,
            assign: on_assign::<T>,
            new_level: on_new_level::<T>,
            backtrack: on_backtrack::<T>,
            check_model: on_check_model::<T>,
            has_clause: on_has_clause::<T>,
            clause_lit: on_clause_lit::<T>,
            propagate: on_propagate::<T>,
            reason_lit: on_reason_lit::<T>,
        };
        // SAFETY: the box outlives the connection (dropped after the handle).
        unsafe { weakc_cadical_connect(self.handle, cb) };
        self.theory = Some(b);
    }

    pub fn theory(&self) -> Option<&T> {
        self.theory.as_deref()
    }

    pub fn theory_mut(&mut self) -> Option<&mut T> {
        self.theory.as_deref_mut()
    }

    pub fn observe(&mut self, var: i32) {
        debug_assert!(self.theory.is_some());
        // SAFETY: valid handle with a propagator connected.
        unsafe { weakc_cadical_observe(self.handle, var) };
    }

    /// Asks `f` now and then while solving whether to stop.
    pub fn set_terminate(&mut self, f: Option<F>) {
        self.terminate = f.map(Box::new);
        // SAFETY: the box lives in `self` until replaced, and replacing it first
        // reconnects (or disconnects) the terminator.
        unsafe {
            match self.terminate.as_deref_mut() {
                Some(b) => weakc_cadical_set_terminate(self.handle, b as *mut F as *mut c_void, Some(on_terminate::<F>)),
                None => weakc_cadical_set_terminate(self.handle, std::ptr::null_mut(), None),
            }
        }
    }

    pub fn terminate_fn(&mut self) -> Option<&mut F> {
        self.terminate.as_deref_mut()
    }

    /// `Some(sat)`, or `None` when the terminate callback stopped it.
    pub fn solve(&mut self, assumptions: &[i32]) -> Option<bool> {
        // SAFETY: valid handle.
        let r = unsafe {
            for &a in assumptions {
                weakc_cadical_assume(self.handle, a);
            }
            weakc_cadical_solve(self.handle)
        };
        match r {
            10 => Some(true),
            20 => Some(false),
            _ => None,
        }
    }

    /// The value of `lit` in the model (CaDiCaL's `val`: its sign is the literal's value; a
    /// variable the solver never saw is false).
    pub fn value(&self, lit: i32) -> bool {
        // SAFETY: valid handle, called after a satisfiable `solve`.
        unsafe { weakc_cadical_val(self.handle, lit) > 0 }
    }
}

impl<T: Theory, F: Terminate> Drop for Solver<T, F> {
    fn drop(&mut self) {
        // SAFETY: the handle is valid and deleted once; the boxes it points to are dropped
        // after it (fields drop after this body).
        unsafe { weakc_cadical_delete(self.handle) };
    }
}
