//! What systemd's and the kernel's messages say about units and
//! processes: a start or end job, the process a kill names, the unit a
//! cgroup names, a writer whose name matches a unit's.

use crate::engine::subject;
use crate::events::Event;

/// Is this systemd's start job for a unit (`Starting …`, `Started …`)?
pub(super) fn is_start_job(event: &Event) -> bool {
    let message = subject::first_message(event);
    message.starts_with("Started ") || message.starts_with("Starting ")
}

/// Does systemd say a unit's process ended (`X.service: Deactivated
/// successfully.`, `Main process exited, …`, `Failed with result …`,
/// `Finished X.service`, `Stopped X.service`)?
pub(super) fn is_end_job(event: &Event) -> bool {
    let message = subject::first_message(event);
    if ["Finished ", "Stopped ", "Failed to start "].iter().any(|verb| message.starts_with(verb)) {
        return true;
    }
    let Some((_, said)) = message.split_once(": ") else {
        return false;
    };
    ["Deactivated successfully", "Succeeded.", "Main process exited", "Failed with result"]
        .iter()
        .any(|end| said.starts_with(end))
}

/// Does systemd say a unit is over, none of its processes left
/// (`Deactivated successfully`, `Failed with result …`, `Finished`,
/// `Stopped`), rather than only that its main process exited?
pub(super) fn is_last_word(event: &Event) -> bool {
    !subject::first_message(event)
        .split_once(": ")
        .is_some_and(|(_, said)| said.starts_with("Main process exited"))
}

/// Does unit `name` look like the unit of program `identifier`
/// (`cron.service` and `CRON`, `ssh.service` and `sshd`,
/// `sglang-k26.service` and `sglang`)?
pub(super) fn names_match(name: &str, identifier: &str) -> bool {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let stem = stem.split('@').next().unwrap_or(stem);
    let (short, long) = if stem.len() <= identifier.len() { (stem, identifier) } else { (identifier, stem) };
    short.len() >= 3 && long.as_bytes().windows(short.len()).any(|w| w.eq_ignore_ascii_case(short.as_bytes()))
}

/// The process a kernel or systemd-oomd message names: `Killed process
/// 1104 (python3)`, `Kill process 1104`, `reaped process 1104`,
/// `…,pid=1104,…`, `python3[1104]: segfault at …`, `Xid (…): 31,
/// pid=1104, …`.
pub(super) fn named_pid(message: &str) -> Option<u32> {
    // systemd-coredump: `Process 1104 (python3) of user 0 dumped core.`
    if let Some(rest) = message.strip_prefix("Process ") {
        return leading_number(rest)
            .filter(|_| message.contains(" dumped core") || message.contains(" terminated abnormally"));
    }
    for marker in ["Killed process ", "Kill process ", "reaped process "] {
        if let Some(at) = message.find(marker) {
            return leading_number(&message[at + marker.len()..]);
        }
    }
    if let Some(at) = message.find("pid=") {
        let before = message[..at].chars().next_back();
        if before.is_none_or(|c| c == ',' || c == ' ') {
            return leading_number(&message[at + 4..]);
        }
    }
    if let Some(at) = message.find("]: segfault at ") {
        let open = message[..at].rfind('[')?;
        return message[open + 1..at].parse().ok();
    }
    None
}

/// The process systemd says it is killing: `Killing process 1104
/// (python3) with signal SIGKILL.`
pub(super) fn killing_pid(message: &str) -> Option<u32> {
    let at = message.find(": Killing process ")?;
    leading_number(&message[at + ": Killing process ".len()..])
}

fn leading_number(text: &str) -> Option<u32> {
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    text[..end].parse().ok()
}

/// The service or scope a kernel OOM report or systemd-oomd names by its
/// cgroup (`task_memcg=/system.slice/sglang.service`, `Killed
/// /system.slice/x.service due to memory pressure`), the innermost unit on
/// the path that is not a slice.
pub(super) fn cgroup_unit(message: &str) -> Option<&str> {
    let path = if let Some(at) = message.find("task_memcg=") {
        let rest = &message[at + "task_memcg=".len()..];
        &rest[..rest.find(',').unwrap_or(rest.len())]
    } else {
        let rest = message.strip_prefix("Killed ")?;
        rest.split_whitespace().next().filter(|p| p.starts_with('/'))?
    };
    path.rsplit('/')
        .find(|part| subject::is_unit_name(part) && (part.ends_with(".service") || part.ends_with(".scope")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_messages_name_the_process() {
        let cases = [
            ("Out of memory: Killed process 1104 (python3) total-vm:1kB, anon-rss:2kB", Some(1104)),
            ("Memory cgroup out of memory: Kill process 24984 (palo_be) score 968 or sacrifice child", Some(24984)),
            ("oom_reaper: reaped process 1104 (python3), now anon-rss:0kB", Some(1104)),
            ("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/system.slice/sglang.service,task=python3,pid=1104,uid=0", Some(1104)),
            ("python3[2536443]: segfault at 7f79 ip 00007f7c sp 00007f7c error 4 in libnccl.so.2[7f7c+d3]", Some(2536443)),
            ("NVRM: Xid (PCI:0000:3b:00): 31, pid=1104, name=python3, Ch 00000010, intr 10000000", Some(1104)),
            ("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", None),
            ("NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception", None),
            ("usb 1-1: new high-speed USB device number 2 using xhci_hcd", None),
            ("Process 1104 (python3) of user 0 dumped core.", Some(1104)),
            ("Process 1104 (python3) of user 0 terminated abnormally with signal 6/ABRT, processing...", Some(1104)),
        ];
        for (message, pid) in cases {
            assert_eq!(named_pid(message), pid, "{message}");
        }
        assert_eq!(
            killing_pid("sglang.service: Killing process 1104 (python3) with signal SIGKILL."),
            Some(1104)
        );
    }

    #[test]
    fn cgroups_name_the_unit() {
        assert_eq!(
            cgroup_unit("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/system.slice/sglang.service,task_memcg=/system.slice/sglang.service,task=python3,pid=1104,uid=0"),
            Some("sglang.service")
        );
        assert_eq!(
            cgroup_unit("Killed /testsuite.slice/testsuite-55.slice/testsuite-55-workload.slice/testsuite-55-testbloat.service due to memory pressure for /testsuite.slice"),
            Some("testsuite-55-testbloat.service")
        );
        assert_eq!(
            cgroup_unit("oom-kill:constraint=CONSTRAINT_NONE,task_memcg=/user.slice,task=x,pid=1"),
            None
        );
        assert_eq!(cgroup_unit("Killed process 1104 (python3)"), None);
    }

    #[test]
    fn writers_match_their_units_by_name() {
        assert!(names_match("cron.service", "CRON"));
        assert!(names_match("ssh.service", "sshd"));
        assert!(names_match("sglang-k26.service", "sglang"));
        assert!(names_match("getty@tty1.service", "agetty") || !names_match("getty@tty1.service", "python3"));
        assert!(!names_match("sglang.service", "python3"));
        assert!(!names_match("a.service", "ab"));
    }
}
