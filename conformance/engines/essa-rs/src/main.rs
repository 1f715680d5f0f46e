//! essa-rs: an ESSA engine speaking the conformance protocol's JSON-lines ESSA mode
//! (conformance/PROTOCOL.md, "The ESSA machine"). It runs the three Impls: Paper2007,
//! KVMClassic and KVMGmap (with the pre-2026 gmap bugs a profile may ask for). Under KVM it
//! also speaks the ESSAMigrationVMM mode ("CMMA migration as a VMM drives it", vmm.rs).
//!
//! Usage: essa-rs [--impl Paper2007|KVMClassic|KVMGmap] [--bugs none|StickyZero,...]
//! `--impl` and `--bugs` decide what a hello that leaves `Impl` or `Bugs` open runs.
//! `ESSA_RS_BUG=<name>` switches on one planted bug (BUGS.md).

#[cfg(test)]
mod bug_demos;
mod bugs;
mod json;
mod machine;
mod vmm;

use json::Json;
use machine::{Impl, Machine, Op, Profile, GMAP_BUGS};
use std::io::{BufRead, BufWriter, Write};
use vmm::{Memslot, Vmm, VmmOp};

const ENGINE: &str = "essa-rs 1.0";

struct Defaults {
    imp: Impl,
    bugs: Vec<String>,
}

enum Fail {
    BadRequest(String),
    Unsupported(String),
}

fn bad<T>(msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::BadRequest(msg.into()))
}

fn unsupported<T>(msg: impl Into<String>) -> Result<T, Fail> {
    Err(Fail::Unsupported(msg.into()))
}

fn error_line(id: &Json, code: &str, message: &str) -> String {
    let mut out = String::from("{\"id\": ");
    json::write_value(&mut out, id);
    out.push_str(", \"error\": ");
    json::write_str(&mut out, code);
    out.push_str(", \"message\": ");
    json::write_str(&mut out, message);
    out.push('}');
    out
}

fn fail_line(id: &Json, f: Fail) -> String {
    match f {
        Fail::BadRequest(m) => error_line(id, "BadRequest", &m),
        Fail::Unsupported(m) => error_line(id, "Unsupported", &m),
    }
}

/// A field that must be a boolean when present.
fn opt_bool(obj: &Json, key: &str) -> Result<Option<bool>, Fail> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| Fail::BadRequest(format!("{key} must be true or false"))),
    }
}

/// A field that must be an integer when present.
fn opt_int(obj: &Json, key: &str) -> Result<Option<i64>, Fail> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| Fail::BadRequest(format!("{key} must be an integer"))),
    }
}

/// The ESSAMigrationVMM mode's profile fields: the memslots and SlotDeleteFix.
type VmmFields = Option<(Vec<Memslot>, bool)>;

fn hello(req: &Json, defaults: &Defaults) -> Result<(Profile, VmmFields), Fail> {
    match req.get("version").and_then(Json::as_i64) {
        Some(1) => {}
        _ => return unsupported("version 1 is not spoken here"),
    }
    let vmm = match req.get("machine") {
        Some(Json::Str(m)) if m == "ESSA" => false,
        Some(Json::Str(m)) if m == "ESSAMigrationVMM" => true,
        _ => return unsupported(
            "this engine speaks the ESSA and ESSAMigrationVMM modes (\"machine\": \"ESSA\" or \"ESSAMigrationVMM\")",
        ),
    };
    let empty = Json::Obj(Vec::new());
    let prof = match req.get("profile") {
        None | Some(Json::Null) => &empty,
        Some(p @ Json::Obj(_)) => p,
        Some(_) => return bad("profile must be an object"),
    };
    let imp = match prof.get("Impl") {
        None | Some(Json::Null) => defaults.imp,
        Some(Json::Str(s)) => match Impl::parse(s) {
            Some(i) => i,
            None => return unsupported(format!("unknown Impl {s:?}")),
        },
        Some(_) => return bad("Impl must be a string"),
    };
    let bug_names: Vec<String> = match prof.get("Bugs") {
        None | Some(Json::Null) => {
            if imp == Impl::KVMGmap {
                defaults.bugs.clone()
            } else {
                Vec::new()
            }
        }
        Some(Json::Arr(items)) => {
            let mut v = Vec::new();
            for it in items {
                match it.as_str() {
                    Some(s) => v.push(s.to_string()),
                    None => return bad("Bugs must be an array of strings"),
                }
            }
            v
        }
        Some(_) => return bad("Bugs must be an array"),
    };
    for b in &bug_names {
        if !GMAP_BUGS.contains(&b.as_str()) {
            return unsupported(format!("unknown bug {b:?}"));
        }
    }
    if !bug_names.is_empty() && imp != Impl::KVMGmap {
        return unsupported("Bugs are the gmap's: non-empty only with KVMGmap");
    }
    let has = |n: &str| bug_names.iter().any(|b| b == n);
    let fields = if vmm { Some(vmm_fields(prof)?) } else { None };
    let from_slots = fields
        .as_ref()
        .map(|(m, _)| m.iter().map(|s| s.pages as i64).sum::<i64>());
    let pages = opt_int(prof, "Pages")?.or(from_slots).unwrap_or(1);
    if from_slots.is_some_and(|n| n != pages) {
        return bad(format!(
            "Memslots hold {} pages, not Pages {pages}",
            from_slots.unwrap_or(0)
        ));
    }
    if !(1..=1 << 20).contains(&pages) {
        return unsupported(format!("Pages {pages} is not run here (1 .. 2^20)"));
    }
    let cbrl_size = opt_int(prof, "CBRLSize")?.unwrap_or(1);
    if !(1..=1 << 20).contains(&cbrl_size) {
        return unsupported(format!("CBRLSize {cbrl_size} is not run here (1 .. 2^20)"));
    }
    let mie = opt_bool(prof, "MachineInterpretsESSA")?.unwrap_or(false);
    if mie {
        return unsupported("MachineInterpretsESSA is nondeterministic: not run here");
    }
    if vmm && (imp == Impl::Paper2007 || !opt_bool(prof, "CMMAEnabled")?.unwrap_or(true)) {
        return unsupported("CMMA migration is KVM's, with CMMA enabled");
    }
    let profile = Profile {
        imp,
        storage_keys: opt_bool(prof, "StorageKeys")?.unwrap_or(false),
        facility147: opt_bool(prof, "Facility147")?.unwrap_or(false),
        cbrl_size: cbrl_size as usize,
        sticky_zero: has("StickyZero"),
        cbrl_guest_address: has("CBRLGuestAddress"),
        stale_unused_bit: has("StaleUnusedBit"),
        prebuilt_page_tables: opt_bool(prof, "PrebuiltPageTables")?.unwrap_or(false),
        machine_interprets_essa: mie,
        modern_guest: opt_bool(prof, "ModernGuest")?.unwrap_or(false),
        cmma_enabled: opt_bool(prof, "CMMAEnabled")?.unwrap_or(true),
        pages: pages as usize,
    };
    Ok((profile, fields))
}

/// The hello's Memslots (default: one memslot of every page at gfn 0, filled in by the caller
/// through Pages) and SlotDeleteFix.
fn vmm_fields(prof: &Json) -> Result<(Vec<Memslot>, bool), Fail> {
    let fix = opt_bool(prof, "SlotDeleteFix")?.unwrap_or(true);
    let pages = opt_int(prof, "Pages")?.unwrap_or(1);
    let items = match prof.get("Memslots") {
        None | Some(Json::Null) => {
            return Ok((
                vec![Memslot {
                    base: 0,
                    pages: pages.max(1) as usize,
                    present: true,
                }],
                fix,
            ))
        }
        Some(Json::Arr(items)) if !items.is_empty() => items,
        Some(_) => return bad("Memslots must be a non-empty array"),
    };
    let mut out = Vec::new();
    let mut end: i64 = 0;
    for it in items {
        let base = opt_int(it, "base")?.ok_or_else(|| Fail::BadRequest("a memslot has a base".into()))?;
        let n = opt_int(it, "pages")?.ok_or_else(|| Fail::BadRequest("a memslot has pages".into()))?;
        let present = opt_bool(it, "present")?.unwrap_or(true);
        if n < 1 || base < end || n > 1 << 20 {
            return unsupported(format!("a memslot at gfn {base} of {n} pages is not run here"));
        }
        end = base + n;
        out.push(Memslot {
            base: base as u64,
            pages: n as usize,
            present,
        });
    }
    if !out.iter().any(|s| s.present) {
        return bad("at least one memslot is present at boot");
    }
    Ok((out, fix))
}

fn hello_line(id: &Json, p: &Profile, vmm: &VmmFields) -> String {
    let mut out = String::from("{\"id\": ");
    json::write_value(&mut out, id);
    let machine = if vmm.is_some() { "ESSAMigrationVMM" } else { "ESSA" };
    out.push_str(&format!(", \"version\": 1, \"machine\": \"{machine}\", \"engine\": "));
    json::write_str(&mut out, ENGINE);
    let bugs: Vec<String> = p.bug_names().iter().map(|b| format!("\"{b}\"")).collect();
    out.push_str(&format!(
        ", \"profile\": {{\"Impl\": \"{}\", \"StorageKeys\": {}, \"Facility147\": {}, \"CBRLSize\": {}, \"Bugs\": [{}], \
         \"PrebuiltPageTables\": {}, \"MachineInterpretsESSA\": {}, \"ModernGuest\": {}, \"CMMAEnabled\": {}, \"Pages\": {}}}}}",
        p.imp.name(),
        p.storage_keys,
        p.facility147,
        p.cbrl_size,
        bugs.join(", "),
        p.prebuilt_page_tables,
        p.machine_interprets_essa,
        p.modern_guest,
        p.cmma_enabled,
        p.pages
    ));
    if let Some((slots, fix)) = vmm {
        out.pop();
        out.pop();
        let ms: Vec<String> = slots
            .iter()
            .map(|s| {
                let late = if s.present { "" } else { ", \"present\": false" };
                format!("{{\"base\": {}, \"pages\": {}{late}}}", s.base, s.pages)
            })
            .collect();
        out.push_str(&format!(
            ", \"Memslots\": [{}], \"SlotDeleteFix\": {fix}, \"MaskedMigrate\": true}}}}",
            ms.join(", ")
        ));
    }
    out
}

/// Reads a step request of the ESSAMigrationVMM mode: the VMM's own, else the ESSA mode's.
fn parse_vmm_step(req: &Json, pages: usize, slots: usize) -> Result<VmmOp, Fail> {
    let op = match req.get("op") {
        Some(Json::Str(s)) => s.as_str(),
        _ => return bad("op must be a string"),
    };
    let nonneg = |key: &str, least: i64| -> Result<u64, Fail> {
        match opt_int(req, key)? {
            Some(v) if v >= least => Ok(v as u64),
            _ => bad(format!("{op} needs {key}, an integer of at least {least}")),
        }
    };
    let slot = || -> Result<usize, Fail> {
        let s = nonneg("slot", 0)?;
        if s as usize >= slots {
            return bad(format!("slot {s} is outside 0 .. {}", slots - 1));
        }
        Ok(s as usize)
    };
    let logging = || -> Result<bool, Fail> {
        opt_bool(req, "logging")?.ok_or_else(|| Fail::BadRequest(format!("{op} needs logging")))
    };
    Ok(match op {
        "MigrationStart" => VmmOp::Start,
        "MigrationStop" => VmmOp::Stop,
        "Get" => VmmOp::Get(nonneg("start", 0)?, nonneg("count", 1)?),
        "Peek" => VmmOp::Peek(nonneg("start", 0)?, nonneg("count", 1)?),
        "SlotCreate" => VmmOp::SlotCreate(slot()?, logging()?),
        "SlotLogging" => VmmOp::SlotLogging(slot()?, logging()?),
        "SlotDelete" => VmmOp::SlotDelete(slot()?),
        "Migrate" => match opt_int(req, "mask")? {
            None => VmmOp::Migrate(0x43),
            Some(m) if [0x43, 0x03, 0x40, 0x00].contains(&m) => VmmOp::Migrate(m as u8),
            Some(m) => return bad(format!("Migrate: mask {m} is not one of 0x43, 0x03, 0x40, 0x00")),
        },
        _ => VmmOp::Essa(parse_step(req, pages)?),
    })
}

/// Reads a step request's operation, checking PROTOCOL.md's ranges ("Requests").
fn parse_step(req: &Json, pages: usize) -> Result<Op, Fail> {
    let op = match req.get("op") {
        Some(Json::Str(s)) => s.as_str(),
        _ => return bad("op must be a string"),
    };
    let page = opt_int(req, "page")?;
    let orc = opt_int(req, "orc")?;
    let arg = opt_int(req, "arg")?;
    let flag = |key: &str| -> Result<bool, Fail> {
        match req.get(key) {
            None | Some(Json::Null) => Ok(false),
            Some(Json::Bool(true)) => Ok(true),
            Some(_) => bad(format!("{key} is true or absent")),
        }
    };
    let problem_state = flag("problemState")?;
    let beyond_memory = flag("beyondMemory")?;
    let is_essa = op == "ESSA";
    if !is_essa && (orc.is_some() || problem_state || beyond_memory) {
        return bad(format!("orc, problemState and beyondMemory belong to ESSA, not {op}"));
    }
    if op != "Write" && arg.is_some() {
        return bad(format!("arg belongs to Write, not {op}"));
    }
    let names_page = match op {
        "HostProcessCBRL" | "Migrate" | "HostResetCMMA" => false,
        "ESSA" => !beyond_memory,
        "HostReclaim" | "Read" | "Write" | "Writeback" | "HostUnmapGmap" | "HostAge" => true,
        _ => return bad(format!("unknown operation {op:?}")),
    };
    let page = match (names_page, page) {
        (true, None) => return bad(format!("{op} names a page")),
        (false, Some(_)) => return bad(format!("{op} names no page")),
        (true, Some(p)) if p < 0 || p as u64 >= pages as u64 => {
            return bad(format!("page {p} is outside 0 .. {}", pages - 1))
        }
        (true, Some(p)) => Some(p as usize),
        (false, None) => None,
    };
    let pg = || page.expect("checked above");
    Ok(match op {
        "ESSA" => {
            if problem_state && beyond_memory {
                return bad("problemState and beyondMemory are never both set");
            }
            let orc = match orc {
                Some(o) if (0..=15).contains(&o) => o,
                Some(o) => return bad(format!("orc {o} is outside 0 .. 15")),
                None => return bad("ESSA needs orc"),
            };
            if beyond_memory && orc > 1 {
                return bad("an ESSA beyond memory has orc 0 or 1");
            }
            Op::Essa {
                page,
                orc: orc as u8,
                problem_state,
                beyond_memory,
            }
        }
        "HostReclaim" => Op::HostReclaim(pg()),
        "HostProcessCBRL" => Op::HostProcessCBRL,
        "Migrate" => Op::Migrate,
        "Read" => Op::Read(pg()),
        "Write" => {
            let v = arg.unwrap_or(1);
            if !(0..=2147483647).contains(&v) {
                return bad(format!("arg {v} is outside 0 .. 2147483647"));
            }
            Op::Write(pg(), v as u64)
        }
        "Writeback" => Op::Writeback(pg()),
        "HostUnmapGmap" => Op::HostUnmapGmap(pg()),
        "HostAge" => Op::HostAge(pg()),
        "HostResetCMMA" => Op::HostResetCMMA,
        _ => unreachable!(),
    })
}

fn step_line(id: &Json, m: &Machine, o: &machine::Outcome) -> String {
    step_line_with(id, m, o, None, None)
}

fn step_line_with(
    id: &Json,
    m: &Machine,
    o: &machine::Outcome,
    cmma_dirty: Option<&[bool]>,
    answer: Option<&vmm::Answer>,
) -> String {
    let mut out = String::from("{\"id\": ");
    json::write_value(&mut out, id);
    out.push_str(", \"outcome\": ");
    json::write_str(&mut out, o.outcome);
    if let Some(r) = o.result {
        out.push_str(&format!(", \"result\": {r}"));
    }
    if let Some(v) = o.value {
        out.push_str(&format!(", \"value\": {v}"));
    }
    if let Some(a) = answer {
        let vs: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
        out.push_str(&format!(
            ", \"start\": {}, \"values\": [{}], \"remaining\": {}",
            a.start,
            vs.join(", "),
            a.remaining
        ));
    }
    out.push_str(", \"pages\": ");
    m.write_pages_with(&mut out, cmma_dirty);
    if let Some(r) = o.reason {
        out.push_str(", \"reason\": ");
        json::write_str(&mut out, r);
    }
    out.push('}');
    out
}

fn usage_exit(msg: &str) -> ! {
    eprintln!("essa-rs: {msg}");
    eprintln!(
        "usage: essa-rs [--impl Paper2007|KVMClassic|KVMGmap] [--bugs none|StickyZero,CBRLGuestAddress,StaleUnusedBit]"
    );
    std::process::exit(2);
}

fn parse_args() -> Defaults {
    let mut d = Defaults {
        imp: Impl::Paper2007,
        bugs: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let (key, val) = match a.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        match key.as_str() {
            "-h" | "--help" => {
                println!("essa-rs: an ESSA engine (conformance/PROTOCOL.md, JSON-lines ESSA mode)");
                println!("usage: essa-rs [--impl Paper2007|KVMClassic|KVMGmap] [--bugs none|StickyZero,...]");
                println!("  --impl  the Impl a hello leaves open (default Paper2007)");
                println!("  --bugs  the gmap bugs a KVMGmap hello that leaves Bugs open runs (default none)");
                println!("  ESSA_RS_BUG=<name> switches on a planted bug (BUGS.md)");
                std::process::exit(0);
            }
            "--impl" | "-impl" => {
                let v = val
                    .or_else(|| args.next())
                    .unwrap_or_else(|| usage_exit("--impl needs a value"));
                d.imp = Impl::parse(&v).unwrap_or_else(|| usage_exit(&format!("unknown Impl {v:?}")));
            }
            "--bugs" | "-bugs" => {
                let v = val
                    .or_else(|| args.next())
                    .unwrap_or_else(|| usage_exit("--bugs needs a value"));
                d.bugs.clear();
                if v != "none" && !v.is_empty() {
                    for b in v.split(',') {
                        if !GMAP_BUGS.contains(&b) {
                            usage_exit(&format!("unknown gmap bug {b:?}"));
                        }
                        d.bugs.push(b.to_string());
                    }
                }
            }
            _ => usage_exit(&format!("unknown argument {a:?}")),
        }
    }
    d
}

fn main() {
    let defaults = parse_args();
    let planted = match bugs::from_env() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("essa-rs: {e}");
            std::process::exit(2);
        }
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut machine: Option<Machine> = None;
    let mut vmm: Option<Vmm> = None;
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("essa-rs: reading stdin: {e}");
                break;
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let reply = match json::parse(&line) {
            Err(e) => error_line(&Json::Null, "BadRequest", &format!("not JSON: {e}")),
            Ok(req @ Json::Obj(_)) => {
                let id = match req.get("id") {
                    Some(v @ Json::Num(_)) if v.as_i64().is_some() => v.clone(),
                    _ => Json::Null,
                };
                match req.get("type").and_then(Json::as_str) {
                    Some("hello") => {
                        if machine.is_some() || vmm.is_some() {
                            error_line(
                                &id,
                                "BadRequest",
                                "a second hello: the driver restarts the engine first",
                            )
                        } else {
                            match hello(&req, &defaults) {
                                Ok((p, fields)) => {
                                    let l = hello_line(&id, &p, &fields);
                                    match fields {
                                        Some((slots, fix)) => {
                                            vmm = Some(Vmm::new(Machine::new(p, planted), slots, fix))
                                        }
                                        None => machine = Some(Machine::new(p, planted)),
                                    }
                                    l
                                }
                                Err(f) => fail_line(&id, f),
                            }
                        }
                    }
                    Some("reset") if vmm.is_some() => {
                        vmm.as_mut().expect("checked").reset();
                        let mut l = String::from("{\"id\": ");
                        json::write_value(&mut l, &id);
                        l.push('}');
                        l
                    }
                    Some("step") if vmm.is_some() => {
                        let v = vmm.as_mut().expect("checked");
                        match parse_vmm_step(&req, v.m.prof.pages, v.memslots.len()) {
                            Ok(op) => {
                                let (o, a) = v.step(op);
                                step_line_with(&id, &v.m, &o, Some(&v.cmma_dirty), a.as_ref())
                            }
                            Err(f) => fail_line(&id, f),
                        }
                    }
                    Some("reset") => match machine.as_mut() {
                        Some(m) => {
                            m.reset();
                            let mut l = String::from("{\"id\": ");
                            json::write_value(&mut l, &id);
                            l.push('}');
                            l
                        }
                        None => error_line(&id, "BadRequest", "reset before hello"),
                    },
                    Some("step") => match machine.as_mut() {
                        Some(m) => match parse_step(&req, m.prof.pages) {
                            Ok(op) => {
                                let o = m.step(op);
                                step_line(&id, m, &o)
                            }
                            Err(f) => fail_line(&id, f),
                        },
                        None => error_line(&id, "BadRequest", "step before hello"),
                    },
                    _ => error_line(&id, "BadRequest", "type must be hello, reset or step"),
                }
            }
            Ok(_) => error_line(&Json::Null, "BadRequest", "a request is a JSON object"),
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
