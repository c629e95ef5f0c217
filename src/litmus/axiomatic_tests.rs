//! Classic shapes with the verdicts known from the literature (and herd's models).

use super::*;
use crate::litmus::parse_str;
use crate::source::SourceMap;

/// A litmus test from columns of instructions.
fn lit(arch: &str, init: &str, threads: &[&[&str]], cond: &str) -> String {
    let rows = threads.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut s = format!("{arch} T\n{{ {init} }}\n");
    let head: Vec<String> = (0..threads.len()).map(|i| format!("P{i}")).collect();
    s += &format!(" {} ;\n", head.join(" | "));
    for r in 0..rows {
        let cells: Vec<&str> = threads.iter().map(|t| t.get(r).copied().unwrap_or("")).collect();
        s += &format!(" {} ;\n", cells.join(" | "));
    }
    s + &format!("exists ({cond})\n")
}

fn run(src: &str, mm: &str) -> AxResult {
    let mut map = SourceMap::default();
    let t = parse_str("t.litmus", src, &mut map).unwrap_or_else(|e| panic!("{}", e.render(&map, false)));
    let a = crate::arch::by_name(mm).unwrap();
    check(&t, a, &Limits::default()).unwrap_or_else(|e| panic!("{}", e.render(&map, false)))
}

fn reach(src: &str, mm: &str) -> bool {
    let r = run(src, mm);
    r.reachable.unwrap_or_else(|| panic!("no verdict: {:?}", r.reason))
}

fn expect(name: &str, src: &str, cases: &[(&str, bool)]) {
    for &(mm, want) in cases {
        assert_eq!(reach(src, mm), want, "{name} on {mm}: expected {}", if want { "reachable" } else { "unreachable" });
    }
}

// ---------------------------------------------------------------- x86 syntax

fn x86_sb(fence: bool) -> String {
    let f = if fence { "MFENCE" } else { "" };
    lit("X86", "", &[&["MOV [x],$1", f, "MOV EAX,[y]"], &["MOV [y],$1", f, "MOV EAX,[x]"]], "0:EAX=0 /\\ 1:EAX=0")
}

fn x86_mp(fence: bool) -> String {
    let f = if fence { "MFENCE" } else { "" };
    lit("X86", "", &[&["MOV [x],$1", f, "MOV [y],$1"], &["MOV EAX,[y]", f, "MOV EBX,[x]"]], "1:EAX=1 /\\ 1:EBX=0")
}

#[test]
fn sb_x86() {
    expect("SB", &x86_sb(false), &[("sc", false), ("tso", true), ("pso", true), ("rmo", true)]);
    expect("SB+mfences", &x86_sb(true), &[("sc", false), ("tso", false), ("pso", false), ("rmo", false)]);
}

#[test]
fn mp_x86() {
    expect("MP", &x86_mp(false), &[("sc", false), ("tso", false), ("pso", true), ("rmo", true)]);
    expect("MP+mfences", &x86_mp(true), &[("pso", false), ("rmo", false)]);
}

#[test]
fn lb_iriw_wrc_2plus2w_x86() {
    let lb = lit("X86", "", &[&["MOV EAX,[x]", "MOV [y],$1"], &["MOV EAX,[y]", "MOV [x],$1"]], "0:EAX=1 /\\ 1:EAX=1");
    expect("LB", &lb, &[("sc", false), ("tso", false), ("pso", false), ("rmo", true)]);
    let iriw = |f: &str| {
        lit("X86", "", &[&["MOV [x],$1"], &["MOV EAX,[x]", f, "MOV EBX,[y]"], &["MOV [y],$1"], &["MOV EAX,[y]", f, "MOV EBX,[x]"]], "1:EAX=1 /\\ 1:EBX=0 /\\ 3:EAX=1 /\\ 3:EBX=0")
    };
    expect("IRIW", &iriw(""), &[("tso", false), ("pso", false), ("rmo", true)]);
    expect("IRIW+mfences", &iriw("MFENCE"), &[("rmo", false)]);
    let wrc = lit("X86", "", &[&["MOV [x],$1"], &["MOV EAX,[x]", "MOV [y],$1"], &["MOV EAX,[y]", "MOV EBX,[x]"]], "1:EAX=1 /\\ 2:EAX=1 /\\ 2:EBX=0");
    expect("WRC", &wrc, &[("tso", false), ("pso", false), ("rmo", true)]);
    let w2 = |f: &str| lit("X86", "", &[&["MOV [x],$2", f, "MOV [y],$1"], &["MOV [y],$2", f, "MOV [x],$1"]], "x=2 /\\ y=2");
    expect("2+2W", &w2(""), &[("sc", false), ("tso", false), ("pso", true), ("rmo", true)]);
    expect("2+2W+mfences", &w2("MFENCE"), &[("pso", false), ("rmo", false)]);
}

#[test]
fn uniproc_store_forwarding_and_locked_instructions() {
    // CoRR is forbidden everywhere (herd's uniproc), including rmo.
    let corr = lit("X86", "", &[&["MOV [x],$1"], &["MOV EAX,[x]", "MOV EBX,[x]"]], "1:EAX=1 /\\ 1:EBX=0");
    expect("CoRR", &corr, &[("sc", false), ("tso", false), ("rmo", false), ("power", false)]);
    // Store forwarding: a thread reads its own write early (SB+rfi-pos is allowed on TSO).
    let rfi = lit(
        "X86",
        "",
        &[&["MOV [x],$1", "MOV EAX,[x]", "MOV EBX,[y]"], &["MOV [y],$1", "MOV EAX,[y]", "MOV EBX,[x]"]],
        "0:EAX=1 /\\ 0:EBX=0 /\\ 1:EAX=1 /\\ 1:EBX=0",
    );
    expect("SB+rfi-pos", &rfi, &[("sc", false), ("tso", true)]);
    // XCHG is a locked (fenced, atomic) read-modify-write: SB with XCHG writes is forbidden.
    let sbx = lit("X86", "0:EAX=1; 1:EAX=1;", &[&["XCHG [x],EAX", "MOV EBX,[y]"], &["XCHG [y],EAX", "MOV EBX,[x]"]], "0:EBX=0 /\\ 1:EBX=0");
    expect("SB+xchgs", &sbx, &[("tso", false), ("rmo", false)]);
    // Atomicity: two increments never both read 0.
    let inc = lit("X86", "", &[&["LOCK INC [x]"], &["LOCK INC [x]"]], "x=1");
    expect("2 LOCK INC", &inc, &[("tso", false), ("rmo", false)]);
    let inc2 = lit("X86", "", &[&["LOCK INC [x]"], &["LOCK INC [x]"]], "x=2");
    expect("2 LOCK INC", &inc2, &[("tso", true), ("rmo", true)]);
}

// ---------------------------------------------------------------- Power

const PPC_INIT: &str = "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; 2:r2=y; 2:r4=x; 3:r2=y; 3:r4=x;";

/// MP with the writer's fence `f0` and the reader's link `f1` (a fence, `addr`, `ctrl`,
/// `ctrlisync`).
fn ppc_mp(f0: &str, f1: &str) -> String {
    let reader: Vec<&str> = match f1 {
        "addr" => vec!["lwz r1,0(r2)", "xor r5,r1,r1", "lwzx r3,r5,r4"],
        "ctrl" => vec!["lwz r1,0(r2)", "cmpw r1,r1", "beq LC00", "LC00:", "lwz r3,0(r4)"],
        "ctrlisync" => vec!["lwz r1,0(r2)", "cmpw r1,r1", "beq LC00", "LC00:", "isync", "lwz r3,0(r4)"],
        f => vec!["lwz r1,0(r2)", f, "lwz r3,0(r4)"],
    };
    lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&["li r1,1", "stw r1,0(r2)", f0, "li r3,1", "stw r3,0(r4)"], &reader], "1:r1=1 /\\ 1:r3=0")
}

#[test]
fn mp_power() {
    expect("MP", &ppc_mp("", ""), &[("power", true), ("power-herd", true), ("arm", true)]);
    expect("MP+syncs", &ppc_mp("sync", "sync"), &[("power", false), ("power-herd", false)]);
    expect("MP+sync+addr", &ppc_mp("sync", "addr"), &[("power", false), ("power-herd", false)]);
    // lwsync is not cumulative in the ESOP model, cumulative in herd's ppc.cat.
    expect("MP+lwsync+addr", &ppc_mp("lwsync", "addr"), &[("power", true), ("power-herd", false)]);
    expect("MP+lwsyncs", &ppc_mp("lwsync", "lwsync"), &[("power", true), ("power-herd", false)]);
    // A control dependency does not order read→read; with isync it does.
    expect("MP+lwsync+ctrl", &ppc_mp("lwsync", "ctrl"), &[("power-herd", true)]);
    expect("MP+lwsync+ctrlisync", &ppc_mp("lwsync", "ctrlisync"), &[("power-herd", false)]);
    expect("MP+sync+po", &ppc_mp("sync", ""), &[("power", true), ("power-herd", true)]);
}

fn ppc_wrc(f1: &str, dep2: bool) -> String {
    let t2: Vec<&str> = if dep2 { vec!["lwz r1,0(r2)", "xor r5,r1,r1", "lwzx r3,r5,r4"] } else { vec!["lwz r1,0(r2)", "lwz r3,0(r4)"] };
    lit(
        "PPC",
        "0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 2:r4=x;",
        &[&["li r1,1", "stw r1,0(r2)"], &["lwz r1,0(r2)", f1, "li r3,1", "stw r3,0(r4)"], &t2],
        "1:r1=1 /\\ 2:r1=1 /\\ 2:r3=0",
    )
}

#[test]
fn wrc_iriw_power() {
    expect("WRC+lwsync+addr", &ppc_wrc("lwsync", true), &[("power", true), ("power-herd", false)]);
    expect("WRC+sync+addr", &ppc_wrc("sync", true), &[("power", false), ("power-herd", false)]);
    expect("WRC+sync+po", &ppc_wrc("sync", false), &[("power-herd", true)]);
    let iriw = |f: &str| {
        let rd: Vec<&str> = match f {
            "addr" => vec!["lwz r1,0(r2)", "xor r5,r1,r1", "lwzx r3,r5,r4"],
            f => vec!["lwz r1,0(r2)", f, "lwz r3,0(r4)"],
        };
        lit("PPC", "0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 3:r2=y; 3:r4=x;", &[&["li r1,1", "stw r1,0(r2)"], &rd, &["li r1,1", "stw r1,0(r2)"], &rd], "1:r1=1 /\\ 1:r3=0 /\\ 3:r1=1 /\\ 3:r3=0")
    };
    expect("IRIW+addrs", &iriw("addr"), &[("power", true), ("power-herd", true), ("arm", true), ("tso", false)]);
    expect("IRIW+lwsyncs", &iriw("lwsync"), &[("power", true), ("power-herd", true)]);
    expect("IRIW+syncs", &iriw("sync"), &[("power", false), ("power-herd", false)]);
}

#[test]
fn lb_sb_2plus2w_power() {
    let lb = |dep: &str| {
        let t: Vec<&str> = match dep {
            "data" => vec!["lwz r1,0(r2)", "xor r3,r1,r1", "addi r3,r3,1", "stw r3,0(r4)"],
            "ctrl" => vec!["lwz r1,0(r2)", "cmpw r1,r1", "beq LC00", "LC00:", "li r3,1", "stw r3,0(r4)"],
            _ => vec!["lwz r1,0(r2)", "li r3,1", "stw r3,0(r4)"],
        };
        lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&t, &t], "0:r1=1 /\\ 1:r1=1")
    };
    expect("LB", &lb(""), &[("power", true), ("power-herd", true), ("tso", false)]);
    expect("LB+datas", &lb("data"), &[("power", false), ("power-herd", false)]);
    expect("LB+ctrls", &lb("ctrl"), &[("power", false), ("power-herd", false)]);
    let sb = |f: &str| lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&["li r1,1", "stw r1,0(r2)", f, "lwz r3,0(r4)"], &["li r1,1", "stw r1,0(r2)", f, "lwz r3,0(r4)"]], "0:r3=0 /\\ 1:r3=0");
    expect("SB+lwsyncs", &sb("lwsync"), &[("power", true), ("power-herd", true)]);
    expect("SB+syncs", &sb("sync"), &[("power", false), ("power-herd", false)]);
    let w2 = |f: &str| lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&["li r1,2", "stw r1,0(r2)", f, "li r3,1", "stw r3,0(r4)"], &["li r1,2", "stw r1,0(r2)", f, "li r3,1", "stw r3,0(r4)"]], "x=2 /\\ y=2");
    expect("2+2W", &w2(""), &[("power", true)]);
    expect("2+2W+lwsyncs", &w2("lwsync"), &[("power", false), ("power-herd", false)]);
    let _ = PPC_INIT;
}

#[test]
fn branches_follow_the_values_read() {
    // The write is skipped unless r1 = 1: y = 1 with r1 = 0 never happens.
    let t = lit("PPC", "0:r2=x; 0:r4=y; 1:r2=x;", &[&["lwz r1,0(r2)", "cmpwi r1,1", "bne LC00", "li r3,1", "stw r3,0(r4)", "LC00:"], &["li r1,1", "stw r1,0(r2)"]], "y=1 /\\ 0:r1=0");
    expect("branch", &t, &[("sc", false), ("power", false)]);
    let t2 = lit("PPC", "0:r2=x; 0:r4=y; 1:r2=x;", &[&["lwz r1,0(r2)", "cmpwi r1,1", "bne LC00", "li r3,1", "stw r3,0(r4)", "LC00:"], &["li r1,1", "stw r1,0(r2)"]], "y=1 /\\ 0:r1=1");
    expect("branch taken", &t2, &[("sc", true), ("power", true)]);
}

// ---------------------------------------------------------------- ARM

#[test]
fn arm_shapes() {
    let mp = |f0: &str, addr: bool| {
        let rd: Vec<&str> = if addr { vec!["LDR R0,[R1]", "EOR R2,R0,R0", "LDR R3,[R4,R2]"] } else { vec!["LDR R0,[R1]", "LDR R3,[R4]"] };
        lit("ARM", "0:R1=x; 0:R3=y; 1:R1=y; 1:R4=x;", &[&["MOV R0,#1", "STR R0,[R1]", f0, "MOV R2,#1", "STR R2,[R3]"], &rd], "1:R0=1 /\\ 1:R3=0")
    };
    expect("MP", &mp("", false), &[("arm", true)]);
    expect("MP+dmb+addr", &mp("DMB", true), &[("arm", false)]);
    expect("MP+dmb.st+addr", &mp("DMB ST", true), &[("arm", false)]);
    expect("MP+dmb+po", &mp("DMB", false), &[("arm", true)]);
}

#[test]
fn aarch64_acquire_release() {
    let mp = |w: &str, r: &str| lit("AArch64", "0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;", &[&["MOV W0,#1", "STR W0,[X1]", "MOV W2,#1", &format!("{w} W2,[X3]")], &[&format!("{r} W0,[X1]"), "LDR W2,[X3]"]], "1:X0=1 /\\ 1:X2=0");
    expect("MP", &mp("STR", "LDR"), &[("aarch64", true)]);
    expect("MP+rel+acq", &mp("STLR", "LDAR"), &[("aarch64", false)]);
    expect("MP+rel+po", &mp("STLR", "LDR"), &[("aarch64", true)]);
}

// ---------------------------------------------------------------- limits and errors

#[test]
fn bound_gives_unknown_with_reason() {
    let mut map = SourceMap::default();
    let t = parse_str("t.litmus", &x86_sb(true), &mut map).unwrap();
    let r = check(&t, crate::arch::by_name("tso").unwrap(), &Limits { max_candidates: 1, ..Default::default() }).unwrap();
    assert_eq!(r.reachable, None);
    assert!(r.reason.unwrap().contains("candidate executions"));
}

#[test]
fn backward_branch_is_unsupported() {
    let mut map = SourceMap::default();
    let src = lit("PPC", "0:r2=x;", &[&["LC00:", "lwz r1,0(r2)", "cmpwi r1,0", "beq LC00"]], "0:r1=1");
    let t = parse_str("t.litmus", &src, &mut map).unwrap();
    let e = check(&t, crate::arch::by_name("power").unwrap(), &Limits::default()).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
}
