//! The closed list of categories: what a root cause is, in the words that
//! scripts and the corpus score compare (`root_cause.category`). Rule ids
//! are finer; a new category is a design change, made here.
//! `logdiag rules categories` prints this list.

crate::named_enum! {
    /// A category of crash cause, or an outcome that is not a crash.
    // What each means is `Category::meaning`, as `logdiag rules
    // categories` prints it: written once, there.
    #[allow(missing_docs)]
    pub enum Category {
        FlashinferUnsupportedArch = "flashinfer-unsupported-arch",
        JitCompileFailure = "jit-compile-failure",
        NoKernelImage = "no-kernel-image",
        CudaOom = "cuda-oom",
        HostOomKill = "host-oom-kill",
        SigkillUnattributed = "sigkill-unattributed",
        KvCacheInsufficient = "kv-cache-insufficient",
        NcclError = "nccl-error",
        CudaIllegalAccess = "cuda-illegal-access",
        GpuXid = "gpu-xid",
        CudaDriverMismatch = "cuda-driver-mismatch",
        Segfault = "segfault",
        Abort = "abort",
        IllegalInstruction = "illegal-instruction",
        PortInUse = "port-in-use",
        ModelLoadError = "model-load-error",
        ImportError = "import-error",
        TritonError = "triton-error",
        CudaGraphCaptureFailure = "cuda-graph-capture-failure",
        WatchdogTimeout = "watchdog-timeout",
        ExecFailure = "exec-failure",
        PermissionDenied = "permission-denied",
        ServiceTimeout = "service-timeout",
        StartLimitHit = "start-limit-hit",
        PeerFailure = "peer-failure",
        LivenessProbeKill = "liveness-probe-kill",
        Unknown = "unknown",
        Healthy = "healthy",
        OperatorStop = "operator-stop",
        BenignSigquit = "benign-sigquit",
    }
}

impl Category {
    /// What the category means, in one line.
    pub fn meaning(self) -> &'static str {
        match self {
            Category::FlashinferUnsupportedArch => "FlashInfer refuses this GPU's architecture",
            Category::JitCompileFailure => {
                "a just-in-time build (nvcc, ninja, a C compiler, torch.compile) failed"
            }
            Category::NoKernelImage => "a prebuilt binary has no code for this GPU",
            Category::CudaOom => "an accelerator's memory ran out (a GPU, or an NPU or XPU in its own words)",
            Category::HostOomKill => {
                "the kernel, a cgroup or systemd-oomd killed the process for host memory"
            }
            Category::SigkillUnattributed => "killed by SIGKILL, and the log does not show who sent it",
            Category::KvCacheInsufficient => "the server cannot fit its KV cache at start-up",
            Category::NcclError => "collective communication (NCCL) failed",
            Category::CudaIllegalAccess => {
                "a GPU kernel faulted (illegal access, device assert, misaligned address)"
            }
            Category::GpuXid => "the driver reports a GPU fault (NVIDIA's Xid, fallen off the bus, ECC; amdgpu's page faults)",
            Category::CudaDriverMismatch => {
                "the driver, the runtime (CUDA, ROCm, CANN, Level Zero) or the device cannot be used together"
            }
            Category::Segfault => "SIGSEGV",
            Category::Abort => "SIGABRT: an abort, a C++ terminate, a failed assertion",
            Category::IllegalInstruction => "SIGILL: a binary built for another CPU or GPU",
            Category::PortInUse => "the listen address is taken, or is not this host's",
            Category::ModelLoadError => {
                "the weights or the model's configuration cannot be loaded or fetched"
            }
            Category::ImportError => "a Python import or a native library load failed",
            Category::TritonError => "a Triton kernel failed to compile or to fit the GPU's resources",
            Category::CudaGraphCaptureFailure => "capturing CUDA graphs at start-up failed",
            Category::WatchdogTimeout => "the server's own watchdog (or systemd's) gave up on a hung process",
            Category::ExecFailure => "the service's program cannot be executed",
            Category::PermissionDenied => "the process lacks a permission it needs",
            Category::ServiceTimeout => {
                "systemd, a launcher or the server gave up waiting for a start or a stop (a load that timed out)"
            }
            Category::StartLimitHit => {
                "a restart loop hit systemd's start limit, nothing earlier explains it"
            }
            Category::PeerFailure => "another rank or process failed, and its own error is not in the log",
            Category::LivenessProbeKill => {
                "the orchestrator killed the container because its liveness or startup probe kept failing"
            }
            Category::Unknown => "a crash whose cause no rule names (exit code 3)",
            Category::Healthy => "the run started, or is starting, and nothing failed",
            Category::OperatorStop => "an orderly stop (systemctl stop, SIGTERM, Ctrl-C)",
            Category::BenignSigquit => "a failure the server outlived, making progress after it",
        }
    }

    /// True for a crash cause, false for an outcome that is not a crash.
    pub fn is_crash(self) -> bool {
        !matches!(self, Category::Healthy | Category::OperatorStop | Category::BenignSigquit)
    }
}

/// What judging does with a category beyond naming it: each trait is
/// declared once here, and the engine asks the category. Giving a
/// category a trait is adding it to that trait's list.
impl Category {
    /// A record that a process was killed for memory. Judging takes its
    /// cause or confirm finding for what sent a SIGKILL the log does not
    /// attribute ([`Category::is_unattributed_kill`]): in the same run it
    /// confirms the kill, whatever rule read the kill; in another source
    /// or unit it explains the kill when it names the same process or
    /// unit (or came just before, of a process nobody owns). Such records
    /// are not counted among the failures of runs no unit claims.
    pub fn confirms_a_kill(self) -> bool {
        matches!(self, Category::HostOomKill)
    }

    /// A SIGKILL whose sender the log does not show. Standing in for a
    /// cause, judging looks for a record of this kill elsewhere
    /// ([`Category::confirms_a_kill`]) to name the cause instead.
    pub fn is_unattributed_kill(self) -> bool {
        matches!(self, Category::SigkillUnattributed)
    }

    /// A GPU fault after which the process's CUDA context is unusable (an
    /// illegal access, a device-side assert, a misaligned address). Judging
    /// never takes it as outlived: progress after it is another process's,
    /// or a tuning pass that reports the fault again.
    pub fn poisons_cuda_context(self) -> bool {
        matches!(self, Category::CudaIllegalAccess)
    }

    /// A cause only when nothing else explains the failure. Causal
    /// selection prefers any other cause to it, even the exit status of a
    /// `systemctl status` block (hitting the start limit says only that
    /// the restarts failed).
    pub fn is_last_resort(self) -> bool {
        matches!(self, Category::StartLimitHit)
    }

    /// Its line reports another process's death (a peer that failed).
    /// Judging never takes such a line for a warning, whatever its level:
    /// a death is not something the run goes on from by itself.
    pub fn reports_a_death(self) -> bool {
        matches!(self, Category::PeerFailure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_serialise_the_same() {
        for &category in Category::ALL {
            assert_eq!(category.name().parse(), Ok(category));
            assert_eq!(serde_json::to_string(&category).unwrap(), format!("\"{category}\""));
        }
        assert!("gremlins".parse::<Category>().is_err());
        assert!(Category::Unknown.is_crash() && !Category::OperatorStop.is_crash());
    }

    #[test]
    fn judging_traits_are_crash_causes_and_a_kill_record_is_not_the_kill() {
        let traits: [fn(Category) -> bool; 5] = [
            Category::confirms_a_kill,
            Category::is_unattributed_kill,
            Category::poisons_cuda_context,
            Category::is_last_resort,
            Category::reports_a_death,
        ];
        for &category in Category::ALL {
            let any = traits.iter().any(|has| has(category));
            assert!(!any || category.is_crash(), "{category}");
            assert!(!(category.confirms_a_kill() && category.is_unattributed_kill()), "{category}");
        }
    }
}
