//! Wrapper prefixes and process tags.
//!
//! Wrappers are what container runtimes and log collectors put in front of
//! a program's own output: `docker logs -t` / `kubectl logs --timestamps`
//! RFC 3339 stamps with `Z`, a collector's `[…Z] `, a writer's own
//! `2025-06-26T20:41:22.706770 - ` in front of each write (ComfyUI's log), Docker Desktop's
//! `YYYY-MM-DD HH:MM:SS `, s6-overlay's `YYYY-MM-DD HH:MM:SS.nnnnnnnnn  `, docker compose's `service  | `, and a terminal's
//! echoed `^C`. They may stack, in any order.
//!
//! Process tags name the process inside a multi-process program: vLLM and
//! Ray's `(Name pid=N[, ip=…]) `, torch's `[rankN]:`, and NCCL's
//! `host:pid:tid [dev] `, also behind pdsh's `host: ` (DeepSpeed's
//! multi-node launcher).

use super::scan::{Fraction, Scan};
use super::{Format, Record};

/// Strips stacked wrappers at `pos`; returns the position after them.
pub(super) fn parse_wrappers<'a>(line: &'a str, mut pos: usize, record: &mut Record<'a>) -> usize {
    for _ in 0..4 {
        let next = container_stamp(line, pos, record)
            .or_else(|| s6_stamp(line, pos, record))
            .or_else(|| collector_stamp(line, pos, record))
            .or_else(|| write_stamp(line, pos, record))
            .or_else(|| compose(line, pos, record))
            .or_else(|| kubectl_prefix(line, pos, record))
            .or_else(|| pasted_colour(line, pos))
            .or_else(|| {
                let interrupt = line[pos..].starts_with("^C");
                if interrupt {
                    record.formats.insert(Format::TerminalInterrupt);
                }
                interrupt.then_some(pos + 2)
            });
        match next {
            Some(p) if p > pos => pos = p,
            _ => break,
        }
    }
    pos
}

/// `2025-05-25T20:27:22.123456789Z ` (docker -t, kubectl, CI runners) or
/// `2025-03-06 23:36:39 ` (Docker Desktop's log view).
fn container_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !s.date() {
        return None;
    }
    if s.byte(b'T') {
        if !s.clock(Fraction::Optional) || !s.byte(b'Z') {
            return None;
        }
    } else if !(s.byte(b' ') && s.clock(Fraction::Never)) {
        return None;
    }
    let stamp_end = s.pos;
    if !s.byte(b' ') {
        return None;
    }
    record.time.get_or_insert(&line[pos..stamp_end]);
    record.formats.insert(Format::ContainerTimestamp);
    Some(s.pos)
}

/// `2023-10-17 10:59:55.751797243  ` (s6-overlay's logger, `%Y-%m-%d
/// %H:%M:%S.%N` and two spaces, in front of every line a Frigate container
/// writes): the program's own line follows whole, its indentation kept.
fn s6_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.date() && s.byte(b' ') && s.clock(Fraction::Never) && s.byte(b'.')) {
        return None;
    }
    s.digits(9, 9)?;
    let stamp_end = s.pos;
    if !s.lit("  ") {
        return None;
    }
    record.time.get_or_insert(&line[pos..stamp_end]);
    record.formats.insert(Format::ContainerTimestamp);
    Some(s.pos)
}

/// `[2025-11-06T02:10:00.702Z] ` from a log collector.
fn collector_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.date() && s.byte(b'T') && s.clock(Fraction::Optional)) {
        return None;
    }
    s.byte(b'Z');
    if !s.byte(b']') {
        return None;
    }
    let stamp_end = s.pos;
    if !s.byte(b' ') && !s.at_end() {
        return None;
    }
    record.time.get_or_insert(&line[pos + 1..stamp_end - 1]);
    record.formats.insert(Format::CollectorTimestamp);
    Some(s.pos)
}

/// `2025-06-26T20:41:22.706770 - ` (Python's `datetime.now().isoformat()`
/// and ` - `, which ComfyUI's log puts in front of each write: a
/// traceback's lines after its first come bare).
fn write_stamp<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.date() && s.byte(b'T') && s.clock(Fraction::Optional)) {
        return None;
    }
    let stamp_end = s.pos;
    if !(s.lit(" - ") || (s.lit(" -") && s.at_end())) {
        return None;
    }
    record.time.get_or_insert(&line[pos..stamp_end]);
    record.formats.insert(Format::WriteStamp);
    Some(s.pos)
}

/// docker compose: `service-1  | ` (name padded with spaces, then `|`).
fn compose<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    let name_len = s.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if name_len == 0 || s.spaces() == 0 || !s.byte(b'|') {
        return None;
    }
    if !(s.byte(b' ') || s.at_end()) {
        return None;
    }
    let name = &line[pos..pos + name_len];
    record.identifier.get_or_insert(name);
    record.unit.get_or_insert(name);
    record.formats.insert(Format::Compose);
    Some(s.pos)
}

/// `kubectl logs --prefix`: `[pod/NAME/CONTAINER] ` (kubectl's logs.go
/// writes it in front of every line; the pod's own `--timestamps` stamp
/// comes after it). The pod and container name the unit.
fn kubectl_prefix<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = line.get(pos..)?;
    if !rest.starts_with("[pod/") {
        return None;
    }
    let close = rest.find("] ")?;
    let name = &rest[1..close];
    let valid = |part: &str| {
        !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    };
    let mut parts = name.split('/').skip(1);
    let (pod, container) = (parts.next()?, parts.next().unwrap_or(""));
    if !valid(pod) || !(container.is_empty() || valid(container)) || parts.next().is_some() {
        return None;
    }
    record.identifier.get_or_insert(name);
    record.unit.get_or_insert(name);
    record.formats.insert(Format::KubectlPrefix);
    Some(pos + close + 2)
}

/// Strips process tags at `pos`; returns the position after them.
pub(super) fn parse_process_tags<'a>(line: &'a str, mut pos: usize, record: &mut Record<'a>) -> usize {
    if let Some(after) = srun_label(line, pos, record) {
        pos = after;
    }
    for _ in 0..3 {
        let next = paren_tag(line, pos, record)
            .or_else(|| rank_tag(line, pos, record))
            .or_else(|| mpi_tag(line, pos, record))
            .or_else(|| nccl_tag(line, pos, record))
            .or_else(|| pdsh_nccl_tag(line, pos, record))
            .or_else(|| pasted_colour(line, pos));
        match next {
            Some(p) => pos = p,
            None => break,
        }
    }
    pos
}

/// A colour code of a paste, after a wrapper's prefix or a process tag:
/// its escape byte shown as `^[` (`^[[1;36m`) or lost (`[0;36m`, not
/// `[5m]`). The line's start was cleaned before framing
/// ([`crate::pipeline::without_escapes`]); here the code is stepped over.
fn pasted_colour(line: &str, pos: usize) -> Option<usize> {
    let bytes = line.as_bytes().get(pos..)?;
    let code = bytes.strip_prefix(b"^[").unwrap_or(bytes);
    let rest = code.strip_prefix(b"[")?;
    let params = rest.iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
    let caret = code.len() < bytes.len();
    let ok = params <= 16
        && match rest.get(params) {
            Some(b'm') => (caret || params > 0) && rest.get(params + 1) != Some(&b']'),
            Some(letter) => caret && letter.is_ascii_alphabetic(),
            None => false,
        };
    let end = pos + (bytes.len() - code.len()) + params + 2;
    // The space that followed the tag before it was coloured.
    ok.then(|| end + usize::from(line.as_bytes().get(end) == Some(&b' ')))
}

/// Slurm's `srun --label` in front of each task's line: `201: ` (the
/// task's rank, then a colon; an empty line is `201:`). Only at the start
/// of what a wrapper left.
fn srun_label<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    s.digits(1, 5)?;
    let tag = &line[pos..s.pos];
    if !s.byte(b':') || !(s.byte(b' ') || s.at_end()) {
        return None;
    }
    record.process.get_or_insert(tag);
    record.formats.insert(Format::RankTag);
    Some(s.pos)
}

/// `(EngineCore_DP0 pid=3031437) `, `(VllmWorker rank=1 pid=115) `,
/// `(RayWorkerWrapper pid=394715, ip=10.65.144.3) `, `(pid=42) `.
fn paren_tag<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = line.get(pos..)?;
    if !rest.starts_with('(') {
        return None;
    }
    // The tag is short: look for its `)` in the first 160 bytes (a byte
    // search, so a multi-byte character there cannot split a slice).
    let close = rest.as_bytes().iter().take(160).position(|&b| b == b')')?;
    let inner = &rest[1..close];
    let pid_at = inner.find("pid=")?;
    if pid_at > 0 && !inner[..pid_at].ends_with(' ') {
        return None;
    }
    let digits = inner[pid_at + 4..].split([',', ' ']).next()?;
    let pid = digits.parse::<u32>().ok()?;
    let name = inner[..pid_at].trim_end();
    let mut end = pos + close + 1;
    if line.as_bytes().get(end) == Some(&b' ') {
        end += 1;
    }
    record.pid = Some(pid);
    record.process = Some(if name.is_empty() { "pid" } else { name });
    record.formats.insert(Format::ProcessTag);
    Some(end)
}

/// torch's excepthook prefix `[rank3]:` (optionally followed by a space).
fn rank_tag<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.lit("[rank") && s.digits(1, 5).is_some() && s.lit("]:")) {
        return None;
    }
    let tag = &line[pos + 1..s.pos - 2];
    s.byte(b' ');
    record.process.get_or_insert(tag);
    record.formats.insert(Format::RankTag);
    Some(s.pos)
}

/// Open MPI's `--tag-output` prefix: `[1,0]<stderr>:` (job, rank, stream).
fn mpi_tag<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let mut s = Scan::at(line, pos);
    if !(s.byte(b'[') && s.digits(1, 6).is_some() && s.byte(b',') && s.digits(1, 6).is_some() && s.byte(b']'))
    {
        return None;
    }
    let tag = &line[pos + 1..s.pos - 1];
    if !(s.lit("<stdout>:") || s.lit("<stderr>:") || s.lit("<stddiag>:")) {
        return None;
    }
    record.process.get_or_insert(tag);
    record.formats.insert(Format::RankTag);
    Some(s.pos)
}

/// pdsh's `host: ` (DeepSpeed's multi-node launcher writes it in front of
/// every line of a remote rank) before NCCL's own tag for the same host:
/// `worker-1: worker-1:2918:4483 [4] NCCL WARN …`. Only there: a word and a
/// colon alone (`main: `, `Error: `) is a message.
fn pdsh_nccl_tag<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = line.get(pos..)?;
    let name_len =
        rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')).count();
    let name = &rest[..name_len];
    let tagged = rest[name_len..].strip_prefix(": ")?;
    if name.is_empty() || !tagged.strip_prefix(name)?.starts_with(':') {
        return None;
    }
    nccl_tag(line, pos + name_len + 2, record)
}

/// NCCL's `host:pid:tid [cudaDev] ` in front of `NCCL INFO`/`NCCL WARN`.
fn nccl_tag<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> Option<usize> {
    let rest = line.get(pos..)?;
    // A host name opens with a letter or digit (most lines are rejected here).
    if !rest.as_bytes().first()?.is_ascii_alphanumeric() {
        return None;
    }
    let space = memchr::memchr(b' ', rest.as_bytes())?;
    // `host:pid:tid`: two colons in the first word.
    memchr::memchr(b':', &rest.as_bytes()[..space])?;
    let mut parts = rest[..space].rsplitn(3, ':');
    let tid = parts.next()?;
    let pid = parts.next()?;
    let host = parts.next()?;
    if host.is_empty() || tid.is_empty() || !tid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let pid = pid.parse::<u32>().ok()?;
    let mut s = Scan::at(line, pos + space + 1);
    if !(s.byte(b'[') && s.digits(1, 3).is_some() && s.byte(b']') && s.byte(b' ')) {
        return None;
    }
    if !line[s.pos..].contains("NCCL ") {
        return None;
    }
    record.host.get_or_insert(host);
    record.pid = Some(pid);
    // NCCL's threads (a proxy's, a rank's in a one-process-many-GPUs job)
    // write apart: the thread id tells their lines apart.
    record.process.get_or_insert(tid);
    record.formats.insert(Format::Nccl);
    Some(s.pos)
}
