//! The closed list of categories (../shared/TAXONOMY.md).

/// Crash-cause categories a `cause`, `confirm` or `symptom` rule may name.
pub const CRASH_CATEGORIES: &[&str] = &[
    "flashinfer-unsupported-arch",
    "jit-compile-failure",
    "no-kernel-image",
    "cuda-oom",
    "host-oom-kill",
    "sigkill-unattributed",
    "kv-cache-insufficient",
    "nccl-error",
    "cuda-illegal-access",
    "gpu-xid",
    "cuda-driver-mismatch",
    "segfault",
    "abort",
    "illegal-instruction",
    "port-in-use",
    "model-load-error",
    "import-error",
    "triton-error",
    "cuda-graph-capture-failure",
    "watchdog-timeout",
    "exec-failure",
    "permission-denied",
    "service-timeout",
    "start-limit-hit",
    "peer-failure",
    "unknown",
];

/// Outcomes that are not crashes; `benign` rules may name one.
pub const NON_CRASH_CATEGORIES: &[&str] = &["healthy", "operator-stop", "benign-sigquit"];

/// The category of a crash whose cause no rule identifies.
pub const UNKNOWN: &str = "unknown";

/// True if `name` is a crash category.
pub fn is_crash_category(name: &str) -> bool {
    CRASH_CATEGORIES.contains(&name)
}

/// True if `name` is any category of the taxonomy.
pub fn is_category(name: &str) -> bool {
    is_crash_category(name) || NON_CRASH_CATEGORIES.contains(&name)
}
