//! The ESBMC adapter: command line; ESBMC's report is the text format of [`super::text`].

use super::ExternalOptions;

/// ESBMC's command line. Its default checks (bounds, pointers, division by zero) go beyond
/// the built-in engine's documented semantics and are turned off so that every back end
/// decides the same properties: assertions, and unwinding assertions unless disabled.
pub fn args(file: &str, o: &ExternalOptions) -> Vec<String> {
    let mut a = vec![
        file.to_string(),
        "--unwind".into(),
        o.unwind.to_string(),
        "--no-bounds-check".into(),
        "--no-pointer-check".into(),
        "--no-div-by-zero-check".into(),
        "-D__WEAKC_NO_ASM".into(),
        // Sliced, its counterexample keeps only what the property depends on: the buffer
        // internals, not the user's steps (about 0.6 s more on `examples/sb.c`).
        "--no-slice".into(),
    ];
    // Fewer interleavings: ESBMC enumerates them one by one (sb on tso: 146,165 without a
    // bound, 866 s). The verdict states the bound.
    if let Some(n) = o.context_bound {
        a.push("--context-bound".into());
        a.push(n.to_string());
    }
    if !o.unwinding_assertions {
        a.push("--no-unwinding-assertions".into());
    }
    // ESBMC stops itself too; weakc kills it slightly later should it not.
    if let Some(t) = o.timeout {
        a.push("--timeout".into());
        a.push(format!("{}s", t.as_secs().max(1)));
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn command_line() {
        let o = ExternalOptions { unwind: 4, unwinding_assertions: false, timeout: Some(Duration::from_millis(2500)), context_bound: Some(3) };
        let a = args("p.c", &o);
        assert_eq!(&a[..3], &["p.c", "--unwind", "4"]);
        assert!(a.contains(&"--no-unwinding-assertions".to_string()));
        assert!(a.windows(2).any(|w| w[0] == "--timeout" && w[1] == "2s"));
        assert!(a.windows(2).any(|w| w[0] == "--context-bound" && w[1] == "3"));
        assert!(a.contains(&"--no-slice".to_string()));
        let on = args("p.c", &ExternalOptions { unwinding_assertions: true, timeout: None, context_bound: None, ..o });
        assert!(!on.iter().any(|x| x.contains("unwinding") || x == "--timeout" || x == "--context-bound"));
    }
}
