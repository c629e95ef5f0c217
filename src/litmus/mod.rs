//! Litmus tests: herd7 `.litmus` files ([`parse`]), their translation to C in the ESOP 2013
//! conventions ([`translate`]), and batch runs against reference verdicts ([`runner`],
//! the `weakc litmus` command), tests generated from diy-style cycles ([`gen`], the
//! `weakc litmus-gen` command), C11 litmus tests compiled per architecture ([`c11`], the
//! `weakc litmus-c11` command), and an independent axiomatic reference engine
//! ([`axiomatic`], `weakc litmus --engine axiomatic|both`).

pub mod axiomatic;
pub mod c11;
pub mod gen;
pub mod parse;
pub mod runner;
pub mod translate;

pub use parse::{parse_file, parse_str, LitArch, Litmus};
pub use translate::{translate, CTest};

use crate::source::{Error, SourceMap};

/// Parses and translates litmus text to C (diagnostics refer to `name`, registered in `map`).
pub fn to_c(name: &str, text: &str, map: &mut SourceMap) -> Result<(Litmus, CTest), Error> {
    let l = parse_str(name, text, map)?;
    let c = translate(&l)?;
    Ok((l, c))
}

#[cfg(test)]
mod tests;
