//! `trace-check --mm ARCH`: is the trace an execution the architecture allows? The trace
//! becomes a herd litmus test (one instruction per event, one register per read, the read
//! values as the final condition) in the architecture's own assembly, decided by the
//! axiomatic engine ([`crate::litmus::axiomatic`]). The write order is left free (timestamps
//! are not used): the question is whether some execution of the architecture reads these
//! values.

use super::parse::{Kind, Trace};
use crate::arch::Arch;
use crate::litmus::axiomatic::{self, AxResult, Limits};
use crate::litmus::parse::parse_str;
use crate::source::{Error, SourceMap};
use std::collections::BTreeMap;
use std::time::Duration;

/// The assembly a model's test is written in, with its register file and instructions.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Asm {
    X86,
    Ppc,
    Arm,
    AArch64,
}

impl Asm {
    fn of(arch: &Arch) -> Asm {
        match arch.name {
            "power" | "power-esop" => Asm::Ppc,
            "arm" => Asm::Arm,
            "aarch64" => Asm::AArch64,
            _ => Asm::X86,
        }
    }
    fn header(self) -> &'static str {
        match self {
            Asm::X86 => "X86",
            Asm::Ppc => "PPC",
            Asm::Arm => "ARM",
            Asm::AArch64 => "AArch64",
        }
    }
    /// Registers for addresses and read values, after the scratch register.
    fn regs(self) -> Vec<String> {
        match self {
            Asm::X86 => ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"]
                .map(String::from)
                .to_vec(),
            Asm::Ppc => (2..32).map(|n| format!("r{n}")).collect(),
            Asm::Arm => (1..13).map(|n| format!("R{n}")).collect(),
            Asm::AArch64 => (1..29).map(|n| format!("{n}")).collect(),
        }
    }
}

/// The litmus test of `t` for `arch`.
pub fn litmus_text(t: &Trace, arch: &Arch) -> Result<String, String> {
    let asm = Asm::of(arch);
    let mut init = String::new();
    for (l, x) in t.locs.iter().enumerate() {
        init += &format!("{x}={}; ", t.init[l]);
    }
    let mut columns: Vec<Vec<String>> = vec![];
    let mut cond: Vec<String> = vec![];
    for (p, evs) in t.po.iter().enumerate() {
        let mut free = asm.regs().into_iter();
        let mut addr: BTreeMap<usize, String> = BTreeMap::new();
        let mut code = vec![];
        let too_many = || {
            format!("processor {} needs more registers than a {} litmus test has (one per read, and one per location on PPC, ARM and AArch64): the axiomatic engine decides small traces only", t.procs[p], asm.header())
        };
        for &e in evs {
            let ev = &t.events[e];
            let x = t.locs.get(ev.loc).cloned().unwrap_or_default();
            let mut a = |free: &mut dyn Iterator<Item = String>| -> Result<String, String> {
                if asm == Asm::X86 {
                    return Ok(x.clone());
                }
                if let Some(r) = addr.get(&ev.loc) {
                    return Ok(r.clone());
                }
                let r = free.next().ok_or_else(too_many)?;
                let r = if asm == Asm::AArch64 {
                    format!("X{r}")
                } else {
                    r
                };
                init += &format!("{p}:{r}={x}; ");
                addr.insert(ev.loc, r.clone());
                Ok(r)
            };
            match ev.kind {
                Kind::Fence => code.push(match asm {
                    Asm::X86 => "MFENCE".into(),
                    Asm::Ppc => "sync".into(),
                    Asm::Arm => "DMB".into(),
                    Asm::AArch64 => "DMB SY".into(),
                }),
                Kind::Write => {
                    let ar = a(&mut free)?;
                    let v = ev.val;
                    match asm {
                        Asm::X86 => code.push(format!("MOV [{ar}],${v}")),
                        Asm::Ppc => code.extend([format!("li r1,{v}"), format!("stw r1,0({ar})")]),
                        Asm::Arm => code.extend([format!("MOV R0,#{v}"), format!("STR R0,[{ar}]")]),
                        Asm::AArch64 => {
                            code.extend([format!("MOV W0,#{v}"), format!("STR W0,[{ar}]")])
                        }
                    }
                }
                Kind::Read => {
                    let ar = a(&mut free)?;
                    let r = free.next().ok_or_else(too_many)?;
                    let r = if asm == Asm::AArch64 {
                        format!("W{r}")
                    } else {
                        r
                    };
                    code.push(match asm {
                        Asm::X86 => format!("MOV {r},[{ar}]"),
                        Asm::Ppc => format!("lwz {r},0({ar})"),
                        Asm::Arm | Asm::AArch64 => format!("LDR {r},[{ar}]"),
                    });
                    cond.push(format!("{p}:{r}={}", ev.val));
                }
            }
        }
        columns.push(code);
    }
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let mut s = format!("{} trace\n{{ {init}}}\n", asm.header());
    let head: Vec<String> = (0..columns.len()).map(|p| format!("P{p}")).collect();
    s += &format!(" {} ;\n", head.join(" | "));
    for i in 0..rows {
        let row: Vec<&str> = columns
            .iter()
            .map(|c| c.get(i).map_or("", String::as_str))
            .collect();
        s += &format!(" {} ;\n", row.join(" | "));
    }
    s += &format!("exists ({})\n", cond.join(" /\\ "));
    Ok(s)
}

/// The axiomatic engine's answer: `Ok(Some(true))` allowed, `Ok(Some(false))` forbidden,
/// `Ok(None)` undecided (with the reason); `Err` when the trace does not fit a litmus test.
pub fn allowed(t: &Trace, arch: &Arch, timeout: Duration) -> Result<AxResult, String> {
    if !t.events.iter().any(|e| e.kind == Kind::Read) {
        // Nothing observed: every architecture can perform the writes.
        return Ok(AxResult {
            reachable: Some(true),
            reason: None,
            candidates: 0,
        });
    }
    let text = litmus_text(t, arch)?;
    let mut map = SourceMap::default();
    let lit = parse_str("trace.litmus", &text, &mut map).map_err(|e| describe(&e, &map))?;
    axiomatic::check(
        &lit,
        arch,
        &Limits {
            timeout,
            ..Limits::default()
        },
    )
    .map_err(|e| describe(&e, &map))
}

fn describe(e: &Error, map: &SourceMap) -> String {
    match e {
        Error::Unsupported { loc, msg } | Error::Syntax { loc, msg } => format!(
            "{msg} (in the litmus test made from the trace: {})",
            map.line_text(*loc).unwrap_or("")
        ),
        e => e.to_string(),
    }
}
