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
    expect("CoRR", &corr, &[("sc", false), ("tso", false), ("rmo", false), ("power-esop", false)]);
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
    expect("MP", &ppc_mp("", ""), &[("power-esop", true), ("power", true), ("arm", true)]);
    expect("MP+syncs", &ppc_mp("sync", "sync"), &[("power-esop", false), ("power", false)]);
    expect("MP+sync+addr", &ppc_mp("sync", "addr"), &[("power-esop", false), ("power", false)]);
    // lwsync is not cumulative in the ESOP model, cumulative in herd's ppc.cat.
    expect("MP+lwsync+addr", &ppc_mp("lwsync", "addr"), &[("power-esop", true), ("power", false)]);
    expect("MP+lwsyncs", &ppc_mp("lwsync", "lwsync"), &[("power-esop", true), ("power", false)]);
    // A control dependency does not order read→read; with isync it does.
    expect("MP+lwsync+ctrl", &ppc_mp("lwsync", "ctrl"), &[("power", true)]);
    expect("MP+lwsync+ctrlisync", &ppc_mp("lwsync", "ctrlisync"), &[("power", false)]);
    expect("MP+sync+po", &ppc_mp("sync", ""), &[("power-esop", true), ("power", true)]);
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
    expect("WRC+lwsync+addr", &ppc_wrc("lwsync", true), &[("power-esop", true), ("power", false)]);
    expect("WRC+sync+addr", &ppc_wrc("sync", true), &[("power-esop", false), ("power", false)]);
    expect("WRC+sync+po", &ppc_wrc("sync", false), &[("power", true)]);
    let iriw = |f: &str| {
        let rd: Vec<&str> = match f {
            "addr" => vec!["lwz r1,0(r2)", "xor r5,r1,r1", "lwzx r3,r5,r4"],
            f => vec!["lwz r1,0(r2)", f, "lwz r3,0(r4)"],
        };
        lit("PPC", "0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 3:r2=y; 3:r4=x;", &[&["li r1,1", "stw r1,0(r2)"], &rd, &["li r1,1", "stw r1,0(r2)"], &rd], "1:r1=1 /\\ 1:r3=0 /\\ 3:r1=1 /\\ 3:r3=0")
    };
    expect("IRIW+addrs", &iriw("addr"), &[("power-esop", true), ("power", true), ("arm", true), ("tso", false)]);
    expect("IRIW+lwsyncs", &iriw("lwsync"), &[("power-esop", true), ("power", true)]);
    expect("IRIW+syncs", &iriw("sync"), &[("power-esop", false), ("power", false)]);
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
    expect("LB", &lb(""), &[("power-esop", true), ("power", true), ("tso", false)]);
    expect("LB+datas", &lb("data"), &[("power-esop", false), ("power", false)]);
    expect("LB+ctrls", &lb("ctrl"), &[("power-esop", false), ("power", false)]);
    let sb = |f: &str| lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&["li r1,1", "stw r1,0(r2)", f, "lwz r3,0(r4)"], &["li r1,1", "stw r1,0(r2)", f, "lwz r3,0(r4)"]], "0:r3=0 /\\ 1:r3=0");
    expect("SB+lwsyncs", &sb("lwsync"), &[("power-esop", true), ("power", true)]);
    expect("SB+syncs", &sb("sync"), &[("power-esop", false), ("power", false)]);
    let w2 = |f: &str| lit("PPC", "0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x;", &[&["li r1,2", "stw r1,0(r2)", f, "li r3,1", "stw r3,0(r4)"], &["li r1,2", "stw r1,0(r2)", f, "li r3,1", "stw r3,0(r4)"]], "x=2 /\\ y=2");
    expect("2+2W", &w2(""), &[("power-esop", true)]);
    expect("2+2W+lwsyncs", &w2("lwsync"), &[("power-esop", false), ("power", false)]);
    let _ = PPC_INIT;
}

#[test]
fn branches_follow_the_values_read() {
    // The write is skipped unless r1 = 1: y = 1 with r1 = 0 never happens.
    let t = lit("PPC", "0:r2=x; 0:r4=y; 1:r2=x;", &[&["lwz r1,0(r2)", "cmpwi r1,1", "bne LC00", "li r3,1", "stw r3,0(r4)", "LC00:"], &["li r1,1", "stw r1,0(r2)"]], "y=1 /\\ 0:r1=0");
    expect("branch", &t, &[("sc", false), ("power-esop", false)]);
    let t2 = lit("PPC", "0:r2=x; 0:r4=y; 1:r2=x;", &[&["lwz r1,0(r2)", "cmpwi r1,1", "bne LC00", "li r3,1", "stw r3,0(r4)", "LC00:"], &["li r1,1", "stw r1,0(r2)"]], "y=1 /\\ 0:r1=1");
    expect("branch taken", &t2, &[("sc", true), ("power-esop", true)]);
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
    // [L]; po; [A]: a release store before an LDAR (not an LDAPR), even with a read between.
    let sb = |mid: &str, r: &str| {
        let t = |x: &str, y: &str| ["MOV W0,#1".to_string(), format!("STLR W0,[{x}]"), mid.to_string(), format!("{r} W3,[{y}]")];
        let (t0, t1) = (t("X1", "X2"), t("X2", "X1"));
        let (t0, t1): (Vec<&str>, Vec<&str>) = (t0.iter().map(String::as_str).collect(), t1.iter().map(String::as_str).collect());
        lit("AArch64", "0:X1=x; 0:X2=y; 0:X4=z; 1:X1=x; 1:X2=y; 1:X4=z;", &[&t0, &t1], "0:X3=0 /\\ 1:X3=0")
    };
    expect("SB+polas", &sb("NOP", "LDAR"), &[("aarch64", false)]);
    expect("SB+rel-po-acq", &sb("LDR W5,[X4]", "LDAR"), &[("aarch64", false)]);
    expect("SB+rel-acqpc", &sb("NOP", "LDAPR"), &[("aarch64", true)]);
}

#[test]
fn aarch64_atomics_are_atomic_read_modify_writes() {
    let init = "0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y;";
    let p0 = ["MOV W0,#1", "STR W0,[X1]", "MOV W2,#1", "STLR W2,[X3]"];
    let mp = |rmw: &str, mid: &str, cond: &str| lit("AArch64", init, &[&p0, &["MOV W4,#2", rmw, mid, "LDR W0,[X1]"]], cond);
    // y=2 puts the SWP's write after P0's y=1; atomicity makes its read read it (herd:
    // MP+rel+SWP-dmb.ld is forbidden).
    expect("MP+rel+SWP-dmb.ld", &mp("SWP W4,W2,[X3]", "DMB LD", "y=2 /\\ 1:X0=0"), &[("aarch64", false)]);
    expect("MP+rel+SWP-po", &mp("SWP W4,W2,[X3]", "NOP", "y=2 /\\ 1:X0=0"), &[("aarch64", true)]);
    // An atomic without result register is not ordered by DMB LD (herd's NoRet).
    expect("MP+rel+LDADD-dmb.ld", &mp("LDADD W4,W5,[X3]", "DMB LD", "y=3 /\\ 1:X0=0"), &[("aarch64", false)]);
    expect("MP+rel+LDADDnoret-dmb.ld", &mp("LDADD W4,WZR,[X3]", "DMB LD", "y=3 /\\ 1:X0=0"), &[("aarch64", true)]);
    expect("MP+rel+STADD-dmb.sy", &mp("STADD W4,[X3]", "DMB SY", "y=3 /\\ 1:X0=0"), &[("aarch64", false)]);
    // CAS: a failing one only reads (y stays P0's 1), its register gets the old value.
    expect("CAS fails", &mp("CAS W4,W4,[X3]", "NOP", "y=1 /\\ 1:X4=1"), &[("aarch64", true)]);
    expect("CAS no write", &mp("CAS W4,W4,[X3]", "NOP", "y=2"), &[("aarch64", false)]);
    // The acquire read of CASA orders the later read; with WZR it is not acquire.
    let casa = |rs: &str| lit("AArch64", &format!("y=2; {init}"), &[&["MOV W0,#1", "STR W0,[X1]", "MOV W2,#0", "STLR W2,[X3]"], &["MOV W4,#1", "MOV W2,#0", &format!("CASA {rs},W4,[X3]"), "LDR W0,[X1]"]], "y=1 /\\ 1:X0=0");
    expect("MP+rel+CASacq-ok", &casa("W2"), &[("aarch64", false)]);
    expect("MP+rel+CASacq-noret-ok", &casa("WZR"), &[("aarch64", true)]);
    // An acquire-release atomic orders what precedes it before what follows (SB).
    let sb = |m: &str| lit("AArch64", "0:X1=x; 0:X3=y; 0:X5=z; 1:X1=y; 1:X3=x; 1:X5=w;", &[&["MOV W0,#1", "STR W0,[X1]", &format!("{m} W0,W6,[X5]"), "LDR W2,[X3]"], &["MOV W0,#1", "STR W0,[X1]", &format!("{m} W0,W6,[X5]"), "LDR W2,[X3]"]], "0:X2=0 /\\ 1:X2=0");
    expect("SB+swpals", &sb("SWPAL"), &[("aarch64", false)]);
    expect("SB+swps", &sb("SWP"), &[("aarch64", true)]);
    // rmw; lrs; [A]: the SWP's read is ordered before the acquire read of its location.
    expect("MP+rel+swp-acq", &mp("SWP W4,W2,[X3]", "LDAR W6,[X3]", "1:X2=1 /\\ 1:X0=0"), &[("aarch64", false)]);
}

#[test]
fn aarch64_csel_and_post_indexing() {
    // CSEL's result depends on the selected register only (herd: LB+rel+CSEL is allowed,
    // it selects the constant); selecting the loaded value is a data dependency.
    let lb = |cmp: &str| lit("AArch64", "0:X5=x; 0:X4=y; 1:X4=y; 1:X5=x;", &[&["LDR W0,[X5]", "MOV W2,#1", "STLR W2,[X4]"], &["LDR W3,[X4]", cmp, "MOV W1,#7", "CSEL W1,W1,W3,EQ", "STR W1,[X5]"]], "0:X0=7 /\\ 1:X3=1");
    expect("LB+rel+CSEL", &lb("CMP W0,#0"), &[("aarch64", true)]);
    let sel = lit("AArch64", "0:X5=x; 0:X4=y; 1:X4=y; 1:X5=x;", &[&["LDR W0,[X5]", "MOV W2,#1", "STLR W2,[X4]"], &["LDR W3,[X4]", "CMP W0,#1", "MOV W1,#7", "CSEL W1,W1,W3,EQ", "STR W1,[X5]"]], "0:X0=1 /\\ 1:X3=1");
    expect("LB+rel+CSEL-data", &sel, &[("aarch64", false)]);
    // STR W2,[X3],#4: the store goes to x, X3 moves on.
    let post = lit("AArch64", "0:X0=x; 0:X3=y; 1:X0=y; 1:X3=x;", &[&["LDR W1,[X0]", "MOV W2,#1", "STLR W2,[X3]"], &["LDR W1,[X0]", "ORR W2,W1,#1", "STR W2,[X3],#4"]], "0:X1=1 /\\ 1:X1=1");
    expect("LB+rel+data-post", &post, &[("aarch64", false)]);
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
    let e = check(&t, crate::arch::by_name("power-esop").unwrap(), &Limits::default()).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
}
