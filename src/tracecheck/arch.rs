//! `trace-check --mm ARCH`: is the trace an execution the architecture allows? The trace
//! becomes a litmus test (one instruction per event, one register per read, the read values
//! as the final condition) in the architecture's own assembly ([`gen::lit_arch`]), decided
//! by the axiomatic engine ([`crate::litmus::axiomatic`]). The write order is left free
//! (timestamps are not used): the question is whether some execution of the architecture
//! reads these values.

use super::parse::{Kind, Trace};
use crate::arch::Arch;
use crate::litmus::axiomatic::{self, AxResult, Limits};
use crate::litmus::gen;
use crate::litmus::parse::{Atom, Condition, InitItem, Instr, LitArch, Litmus, Place, Prop, Quant, Thread, Value};
use crate::source::Loc;
use std::collections::BTreeMap;
use std::time::Duration;

/// Registers for addresses and read values, after the scratch register a write uses.
fn registers(asm: LitArch) -> Vec<String> {
    match asm {
        LitArch::X86 => ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"].map(String::from).to_vec(),
        LitArch::Ppc => (2..32).map(|n| format!("r{n}")).collect(),
        LitArch::Arm => (1..13).map(|n| format!("R{n}")).collect(),
        LitArch::AArch64 => (1..29).map(|n| n.to_string()).collect(),
    }
}

fn init(place: Place, val: Value) -> InitItem {
    InitItem { place, ty: None, val: Some(val), loc: Loc::default() }
}

/// The litmus test of `t` for `arch`, or why it does not fit one.
pub fn litmus(t: &Trace, arch: &Arch) -> Result<Litmus, String> {
    let asm = gen::lit_arch(arch.name).unwrap_or(LitArch::X86);
    let mut inits: Vec<InitItem> = t.locs.iter().zip(&t.init).map(|(x, &v)| init(Place::Mem(x.clone()), Value::Int(v))).collect();
    let mut threads = vec![];
    let mut atoms: Vec<Prop> = vec![];
    for (p, evs) in t.po.iter().enumerate() {
        let thread = Some(p as u32);
        let mut free = registers(asm).into_iter();
        let mut next_reg = || {
            free.next().ok_or_else(|| {
                format!("processor {} needs more registers than a {} litmus test has (one per read, and one per location on PPC, ARM and AArch64): the axiomatic engine decides small traces only", t.procs[p], asm.herd_name())
            })
        };
        let mut addr: BTreeMap<usize, String> = BTreeMap::new();
        let mut code: Vec<String> = vec![];
        for &e in evs {
            let ev = &t.events[e];
            if ev.kind == Kind::Fence {
                code.push(match asm {
                    LitArch::X86 => "MFENCE",
                    LitArch::Ppc => "sync",
                    LitArch::Arm => "DMB",
                    LitArch::AArch64 => "DMB SY",
                }.into());
                continue;
            }
            let x = &t.locs[ev.loc];
            // The location's address register (x86 names memory directly).
            let a = match (asm, addr.get(&ev.loc)) {
                (LitArch::X86, _) => x.clone(),
                (_, Some(r)) => r.clone(),
                _ => {
                    let r = next_reg()?;
                    let r = if asm == LitArch::AArch64 { format!("X{r}") } else { r };
                    inits.push(init(Place::Reg { thread, reg: r.clone() }, Value::Sym(x.clone())));
                    addr.insert(ev.loc, r.clone());
                    r
                }
            };
            let v = ev.val;
            if ev.kind == Kind::Write {
                code.extend(match asm {
                    LitArch::X86 => vec![format!("MOV [{a}],${v}")],
                    LitArch::Ppc => vec![format!("li r1,{v}"), format!("stw r1,0({a})")],
                    LitArch::Arm => vec![format!("MOV R0,#{v}"), format!("STR R0,[{a}]")],
                    LitArch::AArch64 => vec![format!("MOV W0,#{v}"), format!("STR W0,[{a}]")],
                });
                continue;
            }
            let r = next_reg()?;
            let r = if asm == LitArch::AArch64 { format!("W{r}") } else { r };
            code.push(match asm {
                LitArch::X86 => format!("MOV {r},[{a}]"),
                LitArch::Ppc => format!("lwz {r},0({a})"),
                LitArch::Arm | LitArch::AArch64 => format!("LDR {r},[{a}]"),
            });
            atoms.push(Prop::Atom(Atom { place: Place::Reg { thread, reg: r }, val: Value::Int(v), loc: Loc::default() }));
        }
        threads.push(Thread { name: format!("P{p}"), code: code.into_iter().map(|text| Instr { text, loc: Loc::default() }).collect() });
    }
    let prop = atoms.into_iter().reduce(|a, b| Prop::And(Box::new(a), Box::new(b))).unwrap_or(Prop::True);
    Ok(Litmus {
        arch: asm,
        arch_name: asm.herd_name().to_string(),
        name: "trace".into(),
        doc: None,
        keys: vec![],
        init: inits,
        threads,
        locations: vec![],
        cond: Condition { quant: Quant::Exists, prop, loc: Loc::default() },
        header_loc: Loc::default(),
    })
}

/// The axiomatic engine's answer (`reachable`: allowed, forbidden, or undecided with the
/// reason); `Err` when the trace does not fit a litmus test.
pub fn allowed(t: &Trace, arch: &Arch, timeout: Duration) -> Result<AxResult, String> {
    let lit = litmus(t, arch)?;
    axiomatic::check(&lit, arch, &Limits { timeout, ..Limits::default() }).map_err(|e| e.to_string())
}
