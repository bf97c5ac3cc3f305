//! What a systemd message is about, and whose processes a run holds.
//!
//! A journal can hold several units. systemd's own messages say which unit
//! they concern (`sglang.service: Main process exited…`, `Started
//! sglang.service - SGLang.`, or, in the `description` format, `Started
//! SGLang server.`). The engine uses that to keep another unit's start,
//! stop or failure out of this run's judgement.

use crate::events::Event;

/// Identifiers of processes that log *about* other processes: their pid is
/// not one of the run's own.
const MANAGERS: [&str; 6] =
    ["systemd", "kernel", "systemd-oomd", "systemd-journald", "dockerd", "containerd"];

/// The unit or job a systemd message concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Subject {
    /// A unit name (`sglang.service`).
    Unit(String),
    /// A job description only (`Ollama Service`), when systemd prints
    /// descriptions instead of names.
    Description(String),
}

/// True if `identifier` is a service manager or the kernel, whose pid is
/// not the pid of the process a message is about.
pub(super) fn is_manager(identifier: Option<&str>) -> bool {
    identifier.is_some_and(|i| MANAGERS.contains(&i))
}

/// The subject of a message from systemd (PID 1 or a user manager).
pub(super) fn subject_of(event: &Event) -> Option<Subject> {
    if event.identifier() != Some("systemd") {
        return None;
    }
    let message = first_message(event);
    if let Some((head, _)) = message.split_once(": ") {
        if is_unit_name(head) {
            return Some(Subject::Unit(head.to_string()));
        }
    }
    let job = ["Started ", "Starting ", "Stopping ", "Stopped ", "Failed to start "]
        .iter()
        .find_map(|verb| message.strip_prefix(verb))?;
    let job = job.trim_end_matches("...").trim_end_matches('.');
    let name = job.split(" - ").next().unwrap_or(job);
    Some(if is_unit_name(name) {
        Subject::Unit(name.to_string())
    } else {
        Subject::Description(job.to_string())
    })
}

/// The message of an event's first line, or of its second when a
/// terminal hard-wrapped the first after its prefix (`… systemd[1]:`).
pub(super) fn first_message(event: &Event) -> &str {
    event.lines.iter().take(2).map(|l| l.message()).find(|m| !m.is_empty()).unwrap_or("")
}

/// `sglang.service`, `session-3.scope`…
pub(super) fn is_unit_name(name: &str) -> bool {
    const SUFFIXES: [&str; 7] = [".service", ".scope", ".socket", ".mount", ".timer", ".slice", ".target"];
    SUFFIXES.iter().any(|s| name.ends_with(s) && name.len() > s.len()) && !name.contains(' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::events_of;

    fn subject(line: &str) -> Option<Subject> {
        subject_of(&events_of(line)[0])
    }

    #[test]
    fn subjects_of_unit_and_job_messages() {
        let unit = |u: &str| Some(Subject::Unit(u.to_string()));
        assert_eq!(
            subject("May 25 20:27:23 h systemd[1]: sglang-k26.service: Failed with result 'signal'."),
            unit("sglang-k26.service")
        );
        assert_eq!(
            subject("May 25 20:17:52 h systemd[1]: Started sglang-k26.service - SGLang K2.6 server."),
            unit("sglang-k26.service")
        );
        assert_eq!(
            subject("Oct 24 06:17:09 h systemd[1]: Stopping traccar..."),
            Some(Subject::Description("traccar".into()))
        );
        assert_eq!(
            subject("Nov 15 21:48:43 h systemd[1]: Started Ollama Service."),
            Some(Subject::Description("Ollama Service".into()))
        );
        assert_eq!(subject("May 25 20:27:23 h python[7]: Started x.service"), None);
    }
}
