//! weakc: find weak-memory bugs in concurrent C programs by program transformation
//! (Alglave, Kroening, Nimal, Tautschnig, ESOP 2013).
//!
//! Pipeline, one module each, data flowing one way:
//! `frontend` (C → [`ir`]) → `normalize` (§4.4) → [`aeg`] (alias analysis, abstract event
//! graph, §4.2) → `cycles` (critical cycles per [`arch`], §4.3) → `select` (delay pairs,
//! §4.5) → `rewrite` (instrumented C, §3.1/§4.4).

// Output goes through `output::stdout` (a closed stdout must not panic).
#![deny(clippy::print_stdout)]

pub mod aeg;
pub mod atomics;
pub mod backend;
pub mod bmc;
pub mod cprint;
pub mod frontend;
pub mod inline;
pub mod ir;
pub mod libconfig;
pub mod litmus;
pub mod normalize;
pub mod rewrite;
pub mod source;

pub mod arch;
pub mod cycles;
pub mod fences;
pub mod select;
pub mod pipeline;
pub mod compdb;
pub mod report;
pub mod sarif;
pub mod execgraph;
pub mod guard;
pub mod verify;
pub mod trace;
pub mod memsys;
pub mod check;
pub mod tracecheck;
pub mod output;
#[doc(hidden)]
pub mod fuzzing;
