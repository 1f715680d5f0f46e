//! Planted engine bugs, each switched on by `ESSA_RS_BUG=<name>` (BUGS.md).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {}

pub const ALL: [(&str, Bug); 0] = [];

/// The bug `ESSA_RS_BUG` names: `None` when unset or empty; an error for an unknown name.
pub fn from_env() -> Result<Option<Bug>, String> {
    let name = match std::env::var("ESSA_RS_BUG") {
        Ok(n) if !n.trim().is_empty() => n.trim().to_string(),
        _ => return Ok(None),
    };
    ALL.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| Some(*b))
        .ok_or_else(|| format!("ESSA_RS_BUG={name}: unknown bug (known: {})", ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")))
}
