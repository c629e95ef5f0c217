//! `trace-check --litmus TEST`: the final states a run of a litmus test produced — herd7's
//! `States` list or litmus7's `Histogram` (`27    *>0:EAX=0; 1:EAX=0;`) — each checked
//! against a model. A state is a trace seen through its registers: the test's program fixes
//! the events, the state the values its reads returned. Whether some execution of the model
//! (SC by default) ends in that state is the axiomatic engine's question for the test with
//! `exists (the state)` as its condition.

use crate::arch::Arch;
use crate::litmus::axiomatic::{self, Limits};
use crate::litmus::parse::{self, Litmus};
use crate::source::{Error, Loc, SourceMap};
use std::time::Duration;

/// One observed final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// `0:EAX=0; 1:EAX=0;` as the log wrote it (normalised spacing).
    pub text: String,
    /// `(place, value)` pairs, as herd writes them (`0:EAX`, `x`, `[x]`).
    pub items: Vec<(String, String)>,
    /// How often it was observed (litmus7), when the log says.
    pub count: Option<u64>,
    pub line: u32,
}

/// The states of a herd7 or litmus7 log; lines that are not a state (headers, `Ok`,
/// `Condition …`, `Observation …`) are skipped.
pub fn states(log: &str) -> Vec<State> {
    let mut out = vec![];
    for (i, raw) in log.lines().enumerate() {
        let line = raw.trim();
        // litmus7: a count, then `*>` (the condition holds) or `:>`.
        let (count, rest) = match line.find(":>").or_else(|| line.find("*>")) {
            Some(k) if line[..k].trim().chars().all(|c| c.is_ascii_digit()) && !line[..k].trim().is_empty() => (line[..k].trim().parse::<u64>().ok(), &line[k + 2..]),
            _ => (None, line),
        };
        let parts: Vec<&str> = rest.split(';').map(str::trim).filter(|p| !p.is_empty()).collect();
        if parts.is_empty() || !rest.trim_end().ends_with(';') {
            continue;
        }
        let mut items = vec![];
        for p in &parts {
            let Some((place, val)) = p.split_once('=') else { break };
            let (place, val) = (place.trim(), val.trim());
            let place_ok = !place.is_empty() && place.chars().all(|c| c.is_ascii_alphanumeric() || "_:[]%.".contains(c));
            let val_ok = !val.is_empty() && val.chars().all(|c| c.is_ascii_alphanumeric() || "_-+".contains(c));
            if !place_ok || !val_ok {
                break;
            }
            items.push((place.to_string(), val.to_string()));
        }
        if items.len() != parts.len() {
            continue;
        }
        let text = items.iter().map(|(p, v)| format!("{p}={v};")).collect::<Vec<_>>().join(" ");
        out.push(State { text, items, count, line: i as u32 + 1 });
    }
    out
}

/// The test with `exists (state)` as its condition, through the litmus parser (so places
/// are read as in any condition: `0:EAX`, `x`, `[x]`).
fn with_state(test: &Litmus, s: &State, map: &mut SourceMap) -> Result<Litmus, Error> {
    let herd = test.to_herd();
    let cut = herd.lines().take_while(|l| !l.starts_with("exists") && !l.starts_with("~exists") && !l.starts_with("forall")).collect::<Vec<_>>().join("\n");
    let prop = s.items.iter().map(|(p, v)| format!("{p}={v}")).collect::<Vec<_>>().join(" /\\ ");
    let text = format!("{cut}\nexists ({prop})\n");
    parse::parse_str(&format!("<{} with the state of line {}>", test.name, s.line), &text, map)
}

/// What the model says of one state: `Some(true)` some execution ends in it, `Some(false)`
/// none does, `None` undecided (with the reason).
pub fn decide(test: &Litmus, s: &State, arch: &Arch, timeout: Duration) -> Result<(Option<bool>, Option<String>), Error> {
    let mut map = SourceMap::default();
    let t = with_state(test, s, &mut map).map_err(|e| Error::syntax(Loc::default(), format!("state on line {} does not fit test {}: {e}", s.line, test.name)))?;
    let r = axiomatic::check(&t, arch, &Limits { timeout, ..Limits::default() })?;
    Ok((r.reachable, r.reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_herd_and_litmus7_states() {
        let herd = "Test SB Allowed\nStates 4\n0:EAX=0; 1:EAX=0;\n0:EAX=1; 1:EAX=1;\nOk\nWitnesses\nPositive: 1 Negative: 3\nCondition exists (0:EAX=0 /\\ 1:EAX=0)\nObservation SB Sometimes 1 3\n";
        let s = states(herd);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].items, vec![("0:EAX".to_string(), "0".to_string()), ("1:EAX".to_string(), "0".to_string())]);
        assert_eq!((s[0].line, s[0].count), (3, None));
        let l7 = "Histogram (2 states)\n27    *>0:r2=0; 1:r2=0; [x]=1;\n499973:>0:r2=1; 1:r2=0; [x]=1;\nOk\n";
        let s = states(l7);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].count, Some(27));
        assert_eq!(s[1].count, Some(499973));
        assert_eq!(s[1].text, "0:r2=1; 1:r2=0; [x]=1;");
    }
}
