use super::parse::{Place, Prop, Quant, Value};
use super::*;
use crate::arch;
use crate::bmc::{self, BmcOptions, Verdict};
use crate::pipeline;
use crate::source::{Error, SourceMap};

const MP_LWSYNC_ADDR: &str = r#"PPC MP+lwsync+addr
"LwSyncdWW Rfe DpAddrdR Fre"
Cycle=Rfe DpAddrdR Fre LwSyncdWW
{
0:r2=x; 0:r4=y;
1:r2=y; 1:r5=x;
}
 P0           | P1            ;
 li r1,1      | lwz r1,0(r2)  ;
 stw r1,0(r2) | xor r3,r1,r1  ;
 lwsync       | lwzx r4,r3,r5 ;
 li r3,1      |               ;
 stw r3,0(r4) |               ;
exists
(1:r1=1 /\ 1:r4=0)
"#;

fn mp_po() -> String {
    MP_LWSYNC_ADDR.replace("MP+lwsync+addr", "MP+lwsync+po").replace(" lwzx r4,r3,r5 ;", " lwz r4,0(r5)  ;")
}

fn c_of(text: &str) -> String {
    let mut map = SourceMap::default();
    match to_c("t.litmus", text, &mut map) {
        Ok((_, c)) => c.c,
        Err(e) => panic!("{}", e.render(&map, false)),
    }
}

fn err_of(text: &str) -> (Error, String) {
    let mut map = SourceMap::default();
    match to_c("t.litmus", text, &mut map) {
        Ok((_, c)) => panic!("expected an error, got\n{}", c.c),
        Err(e) => {
            let r = e.render(&map, false);
            (e, r)
        }
    }
}

/// Critical cycles of the translated test on `mm`.
fn cycles(text: &str, mm: &str) -> usize {
    let mut map = SourceMap::default();
    let (_, c) = to_c("t.litmus", text, &mut map).expect("translates");
    let fopts = crate::frontend::Options { preprocess: crate::frontend::Preprocess::Never, ..Default::default() };
    let mut p = crate::frontend::load_str("t.c", &c.c, &fopts, &mut map).unwrap_or_else(|e| panic!("{}\n{}", e.render(&map, false), c.c));
    let a = pipeline::analyze_program(&mut p, arch::by_name(mm).unwrap(), &Default::default(), map, Default::default(), 0).expect("analyses");
    a.cycles.cycles.len()
}

/// Is the final condition's proposition reachable on `mm` (instrument + BMC)?
fn reachable(text: &str, mm: &str) -> bool {
    let mut map = SourceMap::default();
    let (_, c) = to_c("t.litmus", text, &mut map).expect("translates");
    let fopts = crate::frontend::Options { preprocess: crate::frontend::Preprocess::Never, ..Default::default() };
    let mut p = crate::frontend::load_str("t.c", &c.c, &fopts, &mut map).unwrap_or_else(|e| panic!("{}\n{}", e.render(&map, false), c.c));
    let a_ = arch::by_name(mm).unwrap();
    let mut a = pipeline::analyze_program(&mut p, a_, &Default::default(), map, Default::default(), 0).expect("analyses");
    let ins = pipeline::instrument(&mut a, a_, Default::default(), &Default::default());
    match bmc::verify(&ins.rewritten.program, &BmcOptions { unwind: 3, ..Default::default() }).expect("verifies").verdict {
        Verdict::Unsafe => true,
        Verdict::Safe { complete: true } => false,
        v => panic!("no verdict: {v:?}"),
    }
}

#[test]
fn parses_header_init_table_and_condition() {
    let mut map = SourceMap::default();
    let l = parse_str("t.litmus", MP_LWSYNC_ADDR, &mut map).unwrap();
    assert_eq!(l.arch, LitArch::Ppc);
    assert_eq!(l.name, "MP+lwsync+addr");
    assert_eq!(l.doc.as_deref(), Some("LwSyncdWW Rfe DpAddrdR Fre"));
    assert_eq!(l.keys, vec![("Cycle".to_string(), "Rfe DpAddrdR Fre LwSyncdWW".to_string())]);
    assert_eq!(l.init.len(), 4);
    assert_eq!(l.init[0].place, Place::Reg { thread: Some(0), reg: "r2".into() });
    assert_eq!(l.init[0].val, Some(Value::Sym("x".into())));
    assert_eq!(l.threads.len(), 2);
    assert_eq!(l.threads[0].code.len(), 5);
    assert_eq!(l.threads[1].code.len(), 3);
    assert_eq!(l.threads[1].code[2].text, "lwzx r4,r3,r5");
    assert_eq!(l.threads[1].code[2].loc.line, 11);
    assert_eq!(l.cond.quant, Quant::Exists);
    assert_eq!(l.cond.prop.atoms().len(), 2);
    // Round trip through the printer.
    let again = parse_str("u.litmus", &l.to_herd(), &mut map).unwrap();
    assert!(l.same_as(&again), "{}", l.to_herd());
}

#[test]
fn condition_syntax() {
    let base = "X86 T\n{ x=1; int *p; uint64_t y; }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\n";
    let mut map = SourceMap::default();
    let l = parse_str("t", &format!("{base}~exists (1:EAX=1 \\/ ~([x]=2 /\\ y=0))\n"), &mut map).unwrap();
    assert_eq!(l.cond.quant, Quant::NotExists);
    match &l.cond.prop {
        Prop::Or(a, b) => {
            assert!(matches!(**a, Prop::Atom(_)));
            assert!(matches!(**b, Prop::Not(_)));
        }
        p => panic!("{p:?}"),
    }
    assert_eq!(l.init[1].ty.as_deref(), Some("int *"));
    assert_eq!(l.init[2].ty.as_deref(), Some("uint64_t"));
    // /\ binds tighter than \/, conditions may span lines, comments nest.
    let l = parse_str("t", &format!("{base}(* a (* nested *) comment *)\nforall\n  0:EAX=0 /\\ x=1\n  \\/ 1:EAX=1\n"), &mut map).unwrap();
    assert_eq!(l.cond.quant, Quant::Forall);
    assert!(matches!(&l.cond.prop, Prop::Or(a, _) if matches!(**a, Prop::And(..))));
    let l = parse_str("t", &format!("{base}locations [x; 1:EAX;]\nexists (0: EAX = 0)\n"), &mut map).unwrap();
    assert_eq!(l.locations, vec![Place::Mem("x".into()), Place::Reg { thread: Some(1), reg: "EAX".into() }]);
}

#[test]
fn malformed_files_give_diagnostics_at_the_line() {
    let mut map = SourceMap::default();
    let cases = [
        ("PPC T\n{\n}\n P0 | P1 ;\n li r1,1 ;\nexists (0:r1=1)\n", 5, "row has 1 cells"),
        ("PPC T\n{ x=1;\n P0 ;\n", 2, "never closed"),
        ("PPC T\n{}\n P0 ;\n li r1,1 ;\nexists (0:r1=1 /\\ )\n", 5, "expected a proposition"),
        ("PPC T\n{}\n P0 ;\n li r1,1 ;\nexists (0:r1=1\n", 5, "expected `)`"),
        ("MIPS T\n{}\n P0 ;\n", 1, "litmus architecture"),
        ("PPC T\n(* open\n{}\n", 2, "unterminated comment"),
        ("PPC T\ngarbage here\n{}\n", 2, "Key=value"),
        ("PPC T\n{}\n P1 ;\n li r1,1 ;\nexists (0:r1=1)\n", 3, "expected thread name `P0`"),
    ];
    for (text, line, msg) in cases {
        let e = parse_str("bad.litmus", text, &mut map).expect_err(text);
        let loc = match &e {
            Error::Syntax { loc, .. } | Error::Unsupported { loc, .. } => *loc,
            other => panic!("{other:?}"),
        };
        assert_eq!(loc.line, line, "{text}: {e}");
        let r = e.render(&map, false);
        assert!(r.contains(msg), "{r}");
        assert!(r.contains(&format!("bad.litmus:{line}:")), "{r}");
    }
}

#[test]
fn unsupported_instruction_is_a_diagnostic_at_its_cell() {
    let (e, r) = err_of("AArch64 T\n{ 0:X1=x; }\n P0 ;\n MOV W0,#1 ;\n SWPB W0,W2,[X1] ;\nexists (0:X2=0)\n");
    assert!(matches!(e, Error::Unsupported { loc, .. } if loc.line == 5 && loc.col == 1), "{r}");
    assert!(r.contains("SWPB") && r.contains("byte atomic"), "{r}");
    let (e, _) = err_of("PPC T\n{ 0:r2=x; }\n P0 ;\n lwz r1,4(r2) ;\nexists (0:r1=0)\n");
    assert!(matches!(e, Error::Unsupported { loc, .. } if loc.line == 4));
}

#[test]
fn dependencies_become_c_dependencies() {
    let c = c_of(MP_LWSYNC_ADDR);
    assert!(c.contains("__unbuffered_p1_r1 = y;"), "{c}");
    assert!(c.contains("__unbuffered_p1_r3 = __unbuffered_p1_r1 ^ __unbuffered_p1_r1;"), "{c}");
    assert!(c.contains("__unbuffered_p1_r4 = *(&x + __unbuffered_p1_r3);"), "{c}");
    assert!(c.contains("asm(\"lwsync\");"), "{c}");
    assert!(c.contains("__CPROVER_assert(!((__unbuffered_p1_r1 == 1 && __unbuffered_p1_r4 == 0))"), "{c}");
}

#[test]
fn mp_lwsync_addr_has_no_critical_cycle_on_power_but_mp_lwsync_po_does() {
    assert_eq!(cycles(MP_LWSYNC_ADDR, "power"), 0);
    assert!(cycles(&mp_po(), "power") > 0);
    // The ESOP model's lwsync is not cumulative: the rfe stays relaxed.
    assert!(cycles(MP_LWSYNC_ADDR, "power-esop") > 0);
}

#[test]
fn arm_register_offset_and_control_dependencies() {
    // Address dependency through [R1,%y0], control dependency through CMP/BNE.
    let lb = "ARM LB+addr+ctrl\n{\n%x0=x; %y0=y;\n%y1=y; %x1=x;\n}\n P0              | P1           ;\n LDR R0,[%x0]    | LDR R0,[%y1] ;\n EOR R1,R0,R0    | CMP R0,R0    ;\n MOV R2,#1       | BNE LC00     ;\n STR R2,[R1,%y0] | LC00:        ;\n                 | MOV R1,#1    ;\n                 | STR R1,[%x1] ;\nexists\n(0:R0=1 /\\ 1:R0=1)\n";
    let c = c_of(lb);
    assert!(c.contains("*(&y + __unbuffered_p0_R1) = __unbuffered_p0_R2;"), "{c}");
    assert!(c.contains("if (__unbuffered_p1_R0 != __unbuffered_p1_R0) goto LC00;"), "{c}");
    // ARM's rfe is relaxed, so the cycle stays critical; the dependencies make the outcome
    // unreachable. Without them (or on a model ignoring them) LB is reachable.
    assert!(!reachable(lb, "arm"));
    let po = lb.replace("STR R2,[R1,%y0]", "STR R2,[%y0]     ").replace("BNE LC00 ", "MOV R3,#0");
    let po = po.replace(" LC00:        ;", " MOV R4,#0    ;");
    assert!(reachable(&po, "arm"), "{}", c_of(&po));
    // On aarch64 (rfe safe) the dependencies leave no critical cycle at all.
    let v8 = "AArch64 LB+addr+ctrl\n{\n0:X0=x; 0:X1=y;\n1:X2=y; 1:X3=x;\n}\n P0                  | P1          ;\n LDR W4,[X0]         | LDR W4,[X2] ;\n EOR W5,W4,W4        | CBNZ W4,L1  ;\n MOV W6,#1           | L1:         ;\n STR W6,[X1,W5,SXTW] | MOV W6,#1   ;\n                     | STR W6,[X3] ;\nexists (0:X4=1 /\\ 1:X4=1)\n";
    assert_eq!(cycles(&v8, "aarch64"), 0, "{}", c_of(&v8));
}

#[test]
fn classic_verdicts() {
    let sb = "X86 SB\n{ }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
    assert!(reachable(sb, "tso"));
    assert!(!reachable(sb, "sc"));
    let sbf = sb.replace(" MOV EAX,[y] | MOV EAX,[x] ;", " MFENCE      | MFENCE      ;\n MOV EAX,[y] | MOV EAX,[x] ;");
    assert!(!reachable(&sbf, "tso"));
    assert!(!reachable(MP_LWSYNC_ADDR, "power"));
    assert!(reachable(MP_LWSYNC_ADDR, "power-esop"));
    assert!(reachable(&mp_po(), "power"));
    // ~exists: the proposition is still what is reported.
    assert!(reachable(&sb.replace("exists", "~exists"), "tso"));
    // XCHG is a full barrier.
    let sbx = "X86 SB+xchgs\n{ }\n P0           | P1           ;\n MOV EAX,$1   | MOV EAX,$1   ;\n XCHG [x],EAX | XCHG [y],EAX ;\n MOV EBX,[y]  | MOV EBX,[x]  ;\nexists (0:EBX=0 /\\ 1:EBX=0)\n";
    assert!(!reachable(sbx, "tso"));
    assert!(reachable(&sbx.replace("XCHG [x],EAX", "MOV [x],EAX "), "tso"));
}

#[test]
fn aarch64_acquire_release_at_thread_ends() {
    let mp = "AArch64 MP+rel+acq\n{\n0:X1=x; 0:X3=y;\n1:X1=y; 1:X3=x;\n}\n P0           | P1          ;\n MOV W0,#1    | LDAR W0,[X1] ;\n STR W0,[X1]  | LDR W2,[X3] ;\n MOV W2,#1    |             ;\n STLR W2,[X3] |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
    let c = c_of(mp);
    assert!(c.contains("asm(\"dmb sy\");\n  y = __unbuffered_p0_X2;"), "{c}");
    assert!(c.contains("__unbuffered_p1_X0 = y;\n  asm(\"dmb ld\");"), "{c}");
    assert!(!reachable(mp, "aarch64"));
    // A plain MP is reachable; SB is reachable on aarch64, but not with dmb sy.
    assert!(reachable(&mp.replace("STLR", "STR ").replace("LDAR", "LDR "), "aarch64"));
}

/// herd's `[L]; po; [A]`: an `LDAR` right after an `STLR` is ordered after it (SB+polas is
/// forbidden), not an `LDAPR`, and not once another access comes between them.
#[test]
fn aarch64_release_then_acquire_is_ordered() {
    let sb = |p0: [&str; 3]| {
        let rows: Vec<String> = p0.iter().zip(["MOV W0,#1", "STLR W0,[X1]", "LDAR W3,[X2]"]).map(|(a, b)| format!("{a:<13}| {b}")).collect();
        a64("SB+rel-acq", "0:X1=x; 0:X2=y; 0:X4=z; 1:X1=y; 1:X2=x;", &rows.iter().map(String::as_str).collect::<Vec<_>>(), "0:X3=0 /\\ 1:X3=0")
    };
    let polas = sb(["MOV W0,#1", "STLR W0,[X1]", "LDAR W3,[X2]"]);
    assert!(c_of(&polas).contains("asm(\"dmb sy\");\n  __unbuffered_p0_X3 = y;"), "{}", c_of(&polas));
    assert!(!reachable(&polas, "aarch64"));
    assert!(reachable(&polas.replacen("LDAR W3,[X2]", "LDAPR W3,[X2]", 1), "aarch64"), "[L]; po; [Q] is not ordered");
    // A plain read between the two: W x; R z; R y — the fence would order the read of z
    // before the read of y, which herd does not; no strengthening.
    let between = a64(
        "SB+rel-po-acq",
        "0:X1=x; 0:X2=y; 0:X4=z; 1:X1=y; 1:X2=x;",
        &["MOV W0,#1    | MOV W0,#1", "STLR W0,[X1] | STLR W0,[X1]", "LDR W5,[X4]  | LDAR W3,[X2]", "LDAR W3,[X2] |"],
        "0:X3=0 /\\ 1:X3=0",
    );
    assert!(!c_of(&between).contains("asm(\"dmb sy\");\n  __unbuffered_p0_X3 = y;"), "{}", c_of(&between));
}

#[test]
fn families() {
    use runner::family;
    assert_eq!(family("MP+lwsync+addr"), "MP");
    assert_eq!(family("2+2W+syncs"), "2+2W");
    assert_eq!(family("iriw+addrs"), "IRIW");
    assert_eq!(family("ISA2+lwsync+addr+po"), "ISA2");
    assert_eq!(family("safe012"), "safe*");
    assert_eq!(family("podwr001"), "podwr*");
    assert_eq!(family("X001"), "X*");
    assert_eq!(family("CoRR2"), "CoRR*");
    assert_eq!(family("W+RWC+lwsync+addr+sync"), "W+RWC");
}

#[test]
fn expectations_formats() {
    use runner::Expectations;
    use std::path::Path;
    let tsv = "arch\ttest\trelpath\tmodel\therd7_verdict\tpositive\tnegative\therd7_time_s\twall_s\tcond_kind\tobservation\tcond_reachable\tref_model\tref_hw\tref_source\n\
X86\tSB\tX86/catalogue/SB.litmus\tx86tso.cat\tOk\t1\t3\t0\t0\texists\tSometimes\tyes\t-\t-\t-\n\
X86\tSB\tX86/catalogue/SB.litmus\tsc.cat\tNo\t0\t4\t0\t0\texists\tNever\tno\t-\t-\t-\n\
X86\tSB\tX86/catalogue/SB.litmus\tcorpus/cats/pso.cat\tOk\t1\t3\t0\t0\texists\tSometimes\tyes\t-\t-\t-\n";
    let e = Expectations::parse(tsv).unwrap();
    let p = Path::new("/data/herd/X86/catalogue/SB.litmus");
    assert_eq!(e.lookup(p, "X86", "SB", "tso"), Some(true));
    assert_eq!(e.lookup(p, "X86", "SB", "sc"), Some(false));
    assert_eq!(e.lookup(p, "X86", "SB", "pso"), Some(true));
    assert_eq!(e.lookup(p, "X86", "SB", "power-esop"), None);
    let csv = "src,test,mm,strategy,level,expected\nppc,mp,POWER,ALL,CORE,FAILED\nppc,mp,TSO,ALL,CORE,SUCCESSFUL\nppc,odd,TSO,ALL,CORE,SUCCESSFUL\nppc,odd,TSO,OPT,CORE,FAILED\n";
    let e = Expectations::parse(csv).unwrap();
    let p = Path::new("esop/ppc/mp.c");
    assert_eq!(e.lookup(p, "PPC", "mp", "power-esop"), Some(true));
    assert_eq!(e.lookup(p, "PPC", "mp", "power"), Some(true), "the POWER rows are compared with both Power tables");
    assert_eq!(e.lookup(p, "PPC", "mp", "tso"), Some(false));
    assert_eq!(e.lookup(Path::new("esop/ppc/odd.c"), "PPC", "odd", "tso"), None, "strategies disagree: no expectation");
    assert!(Expectations::parse("what\n").is_err());
}

#[test]
fn shards_and_reports() {
    assert_eq!(runner::parse_shard("1/4").unwrap(), (1, 4));
    assert!(runner::parse_shard("4/4").is_err());
    assert!(runner::parse_shard("x").is_err());
    let mk = |test: &str, reachable, expected, outcome| runner::TestResult {
        file: format!("{test}.litmus"),
        test: test.into(),
        arch: "X86".into(),
        mm: "tso".into(),
        reachable,
        expected,
        outcome,
        seconds: 0.5,
        error: None,
        engine: runner::Engine::Instrument,
        reachable_axiomatic: None,
        engines_disagree: false,
        note: None,
        family: runner::family(test),
        timeout: false,
    };
    let rs = vec![
        mk("SB", Some(true), Some(true), runner::Outcome::Agree),
        mk("MP<&>", Some(false), Some(true), runner::Outcome::Unsound),
    ];
    let rep = runner::report(&rs);
    assert!(rep.contains("unsound: expected reachable"), "{rep}");
    assert_eq!(runner::exit_code(&rs), runner::EXIT_DISAGREE);
    assert_eq!(runner::exit_code(&rs[..1]), runner::EXIT_OK);
    let j = runner::junit(&rs);
    assert!(j.contains("MP&lt;&amp;&gt;") && j.contains("<failure"), "{j}");
    let js = runner::json(&rs);
    assert_eq!(js["tests"][1]["outcome"], "unsound");
    assert_eq!(js["tests"][0]["reachable"], true);
    assert!(js["tests"][0]["error"].is_null());
}

// ---------------------------------------------------------------- AArch64 atomics, CSEL

/// An AArch64 test: `init`, rows of cells, condition.
fn a64(name: &str, init: &str, rows: &[&str], cond: &str) -> String {
    let n = rows[0].split('|').count();
    let head: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
    format!("AArch64 {name}\n{{ {init} }}\n {} ;\n{}\nexists ({cond})\n", head.join(" | "), rows.iter().map(|r| format!(" {r} ;")).collect::<Vec<_>>().join("\n"))
}

const MP_INIT: &str = "0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y;";

/// herd's MP+rel+SWP-dmb.ld with `mid` in P1 between the atomic and the read of x.
fn mp_rmw(rmw: &str, mid: &str, cond: &str) -> String {
    a64("MP+rel+rmw", MP_INIT, &["MOV W0,#1    | MOV W4,#2", "STR W0,[X1]  | {rmw}", "MOV W2,#1    | {mid}", "STLR W2,[X3] | LDR W0,[X1]"].map(|r| r.replace("{rmw}", rmw).replace("{mid}", mid)).iter().map(String::as_str).collect::<Vec<_>>(), cond)
}

#[test]
fn aarch64_swp_and_ldadd_are_a_plain_read_and_write() {
    let c = c_of(&mp_rmw("SWP W4,W2,[X3]", "DMB LD", "y=2 /\\ 1:X0=0"));
    assert!(c.contains("__unbuffered_p1_rmw1 = y;\n  y = __unbuffered_p1_X4;\n  __unbuffered_p1_X2 = __unbuffered_p1_rmw1;"), "{c}");
    let c = c_of(&mp_rmw("LDADDAL W4,W2,[X3]", "NOP", "y=2 /\\ 1:X0=0"));
    // LDADDAL is the first access (acquire: dmb ld after the read) but not the last one.
    assert!(c.contains("__unbuffered_p1_rmw1 = y;\n  asm(\"dmb ld\");\n  y = __unbuffered_p1_rmw1 + __unbuffered_p1_X4;\n  __unbuffered_p1_X2 = __unbuffered_p1_rmw1;"), "{c}");
    // LB with a data dependency into the write of an SWP: forbidden; without it, allowed.
    let lb = |dep: &str| a64("LB+dmb.sy+data-amo.swp", "0:X0=x; 0:X3=y; 1:X0=x; 1:X3=y;", &["LDR W1,[X0]       | LDR W1,[X3]", &format!("{dep} | DMB SY"), "ADD W4,W2,#1      | MOV W2,#1", "SWP W4,W5,[X3]    | STR W2,[X0]"], "0:X1=1 /\\ 1:X1=1");
    assert!(!reachable(&lb("EOR W2,W1,W1     "), "aarch64"));
    assert!(reachable(&lb("MOV W2,#0        "), "aarch64"));
}

#[test]
fn aarch64_atomics_without_result_are_not_ordered_by_dmb_ld() {
    // LDADD W4,W5 returns the old value: its read is ordered by the DMB LD, and y=2 needs
    // it to read P0's y=1.
    let ret = mp_rmw("LDADD W4,W5,[X3]", "DMB LD", "y=3 /\\ 1:X0=0");
    assert!(c_of(&ret).contains("asm(\"dmb ld\");"));
    assert!(!reachable(&ret, "aarch64"));
    // With WZR (STADD) herd does not order the read by DMB LD: the fence is left out.
    let noret = mp_rmw("LDADD W4,WZR,[X3]", "DMB LD", "y=3 /\\ 1:X0=0");
    let c = c_of(&noret);
    assert!(!c.contains("asm(\"dmb ld\");") && c.contains("left out"), "{c}");
    assert!(reachable(&noret, "aarch64"));
    assert_eq!(c_of(&mp_rmw("STADD W4,[X3]", "DMB LD", "y=3 /\\ 1:X0=0")), c, "STADD is LDADD with WZR");
    // A DMB SY still orders it.
    assert!(!reachable(&mp_rmw("LDADD W4,WZR,[X3]", "DMB SY", "y=3 /\\ 1:X0=0"), "aarch64"));
}

#[test]
fn aarch64_cas_is_a_pick_and_a_guessed_result() {
    let mp = a64("MP+rel+CAS-ok-MRs-addr", "0:X0=x; 0:X1=y; 1:X0=x; 1:X1=y;", &["MOV W2, #1    | MOV W2, #1", "STR W2, [X1]  | CAS W2, WZR, [X0]", "STLR W2, [X0] | EOR W3, W2, W2", "              | LDR W4, [X1,W3,SXTW]"], "1:X2=1 /\\ 1:X4=0");
    let c = c_of(&mp);
    assert!(c.contains("__unbuffered_pick_p1_1 = __unbuffered_p1_rmw1 == __unbuffered_p1_X2;\n  if (__unbuffered_pick_p1_1) { x = 0; }"), "{c}");
    assert!(c.contains("__unbuffered_p1_guess1 = __VERIFIER_nondet_int();\n  __unbuffered_p1_X2_v1 = __unbuffered_p1_guess1;"), "{c}");
    assert!(c.contains("asm(\"dmb sy\");\n  __CPROVER_assume(__unbuffered_p1_guess1 == __unbuffered_p1_rmw1);\n  __unbuffered_cnt++;"), "{c}");
    // herd allows it: the result of a successful CAS orders no later read.
    assert!(reachable(&mp, "aarch64"));
    // The pick is no control dependency: the CAS's read may be satisfied after a later,
    // unrelated store (LB); herd allows it.
    let lb = |w: &str| a64("LB+rel+CAS-po", MP_INIT, &["LDR W0,[X3]  | MOV W4,#1", &format!("MOV W9,#1    | {w}"), "STLR W9,[X1] | MOV W6,#1", "             | STR W6,[X3]"], "0:X0=1 /\\ 1:X4=1");
    assert!(reachable(&lb("CAS W4,W5,[X1]"), "aarch64"));
    assert!(reachable(&lb("CAS WZR,W5,[X1]").replace("1:X4=1", "x=1"), "aarch64"));
    // Also when paths meet between them (the result register's version reaches the label).
    let lbl = lb("CAS W4,W5,[X1]").replace("             | STR W6,[X3]", "             | CBZ W7,L ;\n              | L: ;\n              | STR W6,[X3]");
    assert!(c_of(&lbl).contains("L: ;"), "{}", c_of(&lbl));
    assert!(reachable(&lbl, "aarch64"), "{}", c_of(&lbl));
    // CASA as the first access of its thread is an acquire read (herd: MP+rel+CASacq-ok).
    let casa = a64("MP+rel+CASacq-ok", "y=2; 0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y;", &["MOV W0,#1    | MOV W4,#1", "STR W0,[X1]  | MOV W2,#0", "MOV W2,#0    | CASA W2,W4,[X3]", "STLR W2,[X3] | LDR W0,[X1]"], "y=1 /\\ 1:X0=0");
    assert!(!reachable(&casa, "aarch64"));
    // With WZR the read is NoRet and not acquire (herd: MP+rel+CASacq-noret-ok).
    assert!(reachable(&casa.replace("CASA W2,W4", "CASA WZR,W4"), "aarch64"));
}

#[test]
fn aarch64_csel_result_depends_on_neither_the_flags_nor_the_other_register() {
    let lb = a64("LB+rel+CSEL", "0:X5=x; 0:X4=y; 1:X4=y; 1:X5=x;", &["LDR W0,[X5]  | LDR W3,[X4]", "MOV W2,#1    | CMP W0,#0", "STLR W2,[X4] | MOV W1, #7", "             | CSEL W1, W1, W3, EQ", "             | STR W1,[X5]"], "0:X0=7 /\\ 1:X3=1");
    let c = c_of(&lb);
    assert!(c.contains("__unbuffered_p1_cond3 = __unbuffered_p1_X0 == 0;"), "{c}");
    assert!(c.contains("__CPROVER_assume(__unbuffered_p1_guess3 == (__unbuffered_p1_cond3 ? __unbuffered_p1_then3 : __unbuffered_p1_else3));"), "{c}");
    assert!(reachable(&lb, "aarch64"));
    // MP: the flags come from the read of y, the selected value feeds an address.
    let mp = a64("MP+rel+CSEL", MP_INIT, &["MOV W0,#1    | LDR W0,[X3]", "STR W0,[X1]  | MOV W4,#4", "MOV W2,#1    | CMP W4,W0", "STLR W2,[X3] | MOV W5,#0", "             | CSEL W2, WZR, W5, NE", "             | LDR W6,[X1,W2,SXTW]"], "1:X0=1 /\\ 1:X6=0");
    assert!(reachable(&mp, "aarch64"));
    // The selected value is the real one: `W2 = 4 != 1 ? 0 : 5` feeds the condition.
    assert!(!reachable(&mp.replace("1:X6=0", "1:X2=5"), "aarch64"));
    // A DMB LD instead of the dependency forbids it.
    let fenced = mp.replace("             | CSEL W2, WZR, W5, NE", "             | DMB LD").replace("LDR W6,[X1,W2,SXTW]", "LDR W6,[X1]        ");
    assert!(!reachable(&fenced, "aarch64"));
    // The compared register must still hold the compared value.
    let (e, r) = err_of(&mp.replace("MOV W5,#0", "MOV W0,#0"));
    assert!(matches!(e, Error::Unsupported { loc, .. } if loc.line == 8), "{r}");
    assert!(r.contains("`X0` was overwritten"), "{r}");
}

#[test]
fn aarch64_post_indexing_moves_the_base_register() {
    let lb = a64("LB+rel+data-post", "0:X0=x; 0:X3=y; 1:X0=y; 1:X3=x;", &["LDR W1,[X0]  | LDR W1,[X0]", "MOV W2,#1    | ORR W2,W1,#1", "STLR W2,[X3] | STR W2,[X3],#4"], "0:X1=1 /\\ 1:X1=1");
    assert!(c_of(&lb).contains("x = __unbuffered_p1_X2;"));
    assert!(!reachable(&lb, "aarch64"));
    // The register no longer holds a location's address.
    let (e, r) = err_of(&lb.replace(" ;\nexists", " ;\n              | LDR W5,[X3]   ;\nexists"));
    assert!(matches!(e, Error::Unsupported { loc, .. } if loc.line == 7), "{r}");
    assert!(r.contains("post-indexing moved 4 bytes past `x`"), "{r}");
}

#[test]
fn aarch64_acquire_after_an_atomic_of_its_location() {
    // herd's rmw; lrs; [A]: the SWP's read is ordered before the LDAR, which orders
    // everything after it: a dmb ld after the LDAR adds nothing.
    let mp = mp_rmw("SWP W4,W2,[X3]", "LDAR W6,[X3]", "1:X2=1 /\\ 1:X0=0");
    let c = c_of(&mp);
    assert!(c.contains("__unbuffered_p1_X6 = y;\n  asm(\"dmb ld\");"), "{c}");
    assert!(!reachable(&mp, "aarch64"));
    // A write of y in between: no lrs, no fence (and herd allows the outcome).
    let w = a64("MP+rel+swp-w-acq", MP_INIT, &["MOV W0,#1    | MOV W4,#2", "STR W0,[X1]  | SWP W4,W2,[X3]", "MOV W2,#1    | STR W4,[X3]", "STLR W2,[X3] | LDAR W6,[X3]", "             | LDR W0,[X1]"], "1:X2=1 /\\ 1:X0=0");
    assert!(!c_of(&w).contains("dmb ld"), "{}", c_of(&w));
    assert!(reachable(&w, "aarch64"));
}

#[test]
fn registers_get_a_fresh_version_when_redefined() {
    let t = a64("T", "0:X1=x; 0:X3=y;", &["LDR W0,[X1]", "LDR W0,[X3]", "CBNZ W0,L", "MOV W0,#2", "L:"], "0:X0=1");
    let c = c_of(&t);
    // Paths meet at L with different versions of X0: each edge assigns the join version.
    // The final condition reads the last version: no copy back into the register's variable
    // (which would redefine what a delayed read writes).
    assert!(c.contains("  __unbuffered_p0_X0 = x;\n  __unbuffered_p0_X0_v1 = y;\n  if (__unbuffered_p0_X0_v1 != 0) { __unbuffered_p0_X0_v3 = __unbuffered_p0_X0_v1; goto L; }\n  __unbuffered_p0_X0_v2 = 2;\n  __unbuffered_p0_X0_v3 = __unbuffered_p0_X0_v2;\n  L: ;\n  asm(\"dmb sy\");"), "{c}");
    assert!(c.contains("__unbuffered_p0_X0_v3 == 1"), "{c}");
    // The same version on every edge: nothing to copy.
    let c = c_of(&a64("T", "0:X1=x; 0:X3=y;", &["LDR W0,[X1]", "LDR W0,[X3]", "CBNZ W0,L", "L:", "STR W0,[X1]"], "0:X0=1"));
    assert!(c.contains("  if (__unbuffered_p0_X0_v1 != 0) goto L;\n  L: ;\n  x = __unbuffered_p0_X0_v1;"), "{c}");
    // A CAS result is a guess checked at the end of the thread: not in a loop.
    let (e, r) = err_of(&a64("T", "0:X1=x;", &["L:", "CAS W0,W2,[X1]", "CBZ W0,L"], "0:X0=1"));
    assert!(matches!(e, Error::Unsupported { loc, .. } if loc.line == 5), "{r}");
    assert!(r.contains("branches backwards"), "{r}");
    // A thread with a loop keeps one variable per register.
    let c = c_of(&a64("T", "0:X1=x;", &["L:", "LDR W0,[X1]", "LDR W0,[X1]", "CBZ W0,L"], "0:X0=1"));
    assert!(!c.contains("_v1"), "{c}");
}
