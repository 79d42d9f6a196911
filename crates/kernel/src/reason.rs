//! The kernel lane's reason codes (docs/REWARDS.md, "Kernel legs"). The harness's own findings
//! (`device-faulted`, `output-mismatch` …) come back in its record as text and keep it.

aorlta_check::reason_codes! {
    /// Why a kernel leg broke or is unsettled, when the lane itself says so.
    pub enum KernelReason {
        /// A kernel task's completion holds no fenced code block in its language (`parse`).
        NoCodeBlock => "no-code-block",
        /// The source is larger than `max-source-bytes`.
        SourceTooLarge => "source-too-large",
        /// The source includes, or its preprocessor read, a file that is not a toolkit header.
        IncludeForbidden => "include-forbidden",
        /// The compiler refused the source (its diagnostics, the candidate's lines only).
        CompileError => "compile-error",
        /// The compiler ran past its time limit.
        CompileTimeout => "compile-timeout",
        /// The compiler ran out of its memory limit.
        CompileMemory => "compile-memory",
        /// A compiler was killed from outside its compile (the host's out-of-memory killer, an
        /// operator), by neither its time nor its memory limit: never the candidate's doing.
        CompileKilled => "compile-killed",
        /// The compiler's output passed its size limit.
        CompileOutputTooLarge => "compile-output-too-large",
        /// The kernel calls device `printf`.
        DevicePrintf => "device-printf",
        /// The code object defines no kernel of the task's signature; or (`parse`) no code block
        /// of the completion defines the kernel the task names.
        KernelNotFound => "kernel-not-found",
        /// A completion's plan (docs/PLANS.md) does not hold: the detail names the step and the
        /// field (an unknown kernel, arguments against its declaration, a name that is no buffer,
        /// an expression that does not evaluate, the task's limits) (`parse`).
        PlanInvalid => "plan-invalid",
        /// A kernel's arguments are not those the signature declares (an AMD kernel's metadata, a
        /// Triton function's parameters).
        SignatureMismatch => "signature-mismatch",
        /// A harness job ran past its deadline and was killed.
        Hung => "hung",
        /// No compiler for the platform was found or could run.
        NoCompiler => "no-compiler",
        /// No AMD architecture to compile for.
        NoHipArch => "no-hip-arch",
        /// The reference did not compile (the task's fault, never the candidate's).
        ReferenceCompileFailed => "reference-compile-failed",
        /// The reference broke on the device.
        ReferenceBroken => "reference-broken",
        /// The compile jail cannot be made here (bubblewrap missing, or no namespaces for it).
        CompileSandboxUnavailable => "compile-sandbox-unavailable",
        /// The compiler wrote no dependency list, so what it read cannot be checked.
        CompileDependenciesMissing => "compile-dependencies-missing",
        /// The work folder could not be written.
        WorkDirError => "work-dir-error",
        /// A CUDA task on the AMD platform.
        UnsupportedLanguage => "unsupported-language",
        /// The task is not a kernel task.
        WrongTaskKind => "wrong-task-kind",
        /// The run has no `kernel:` section.
        NoKernelEnv => "no-kernel-env",
        /// No kernel source from a clean `parse` leg.
        NoParsedKernel => "no-parsed-kernel",
        /// No GPU to lease.
        NoGpu => "no-gpu",
        /// The task's reference is a PyTorch module and no Python with torch is here.
        NoTorch => "no-torch",
        /// No GPU lease came within `lease-wait-s`.
        NoGpuLease => "no-gpu-lease",
        /// The harness could not start.
        HarnessFailed => "harness-failed",
        /// The harness is of another build.
        HarnessMismatch => "harness-mismatch",
        /// The harness process died.
        HarnessCrashed => "harness-crashed",
        /// The harness's record lacks what the leg needs.
        HarnessIncomplete => "harness-incomplete",
        /// The leg's parameters do not fit the task.
        BadParams => "bad-params",
        /// `kernel-profile`: Nsight Compute profiled the candidate's launch.
        Profiled => "profiled",
        /// `kernel-profile`: no Nsight Compute (`ncu`) is here.
        NoProfiler => "no-profiler",
        /// `kernel-profile`: Nsight Compute ran and gave no figures.
        ProfilerFailed => "profiler-failed",
    }
}
