//! The engine's reason codes: those of a leg it did not run or that failed in its hands, and
//! those of an entry left unscored (docs/REWARDS.md). The lanes' codes are theirs
//! (`aorlta_answer::AnswerReason`, `aorlta_kernel::KernelReason`).

aorlta_check::reason_codes! {
    /// Why the engine or a reward function gave a leg or an entry no verdict of its own.
    pub enum EngineReason {
        /// An adapter panicked; the leg is unsettled.
        InternalError => "internal-error",
        /// An adapter answered broke or unsettled without a reason.
        NoReason => "no-reason",
        /// A leg's `needs` were not all clean; it was skipped.
        NeedsNotClean => "needs-not-clean",
        /// A pool line names a task the run does not have.
        UnknownTask => "unknown-task",
        /// The completion is longer than the limit (`max-completion-bytes`, 256 KiB by
        /// default); the entry is unscored.
        CompletionTooLong => "completion-too-long",
        /// A reward function broke the contract; the entry is unscored.
        RewardContractViolated => "reward-contract-violated",
        /// A reward function left the entry unscored without a reason.
        Unscored => "unscored",
        /// The timing leg is clean but carries no measurement.
        NoMeasurement => "no-measurement",
        /// The timing leg was skipped.
        TimingSkipped => "timing-skipped",
        /// `rewardfn.speedup` on a profile without a timing leg.
        NoTimingLeg => "no-timing-leg",
    }
}

#[cfg(test)]
mod tests {
    use super::EngineReason;
    use aorlta_answer::AnswerReason;
    use aorlta_kernel::KernelReason;

    #[test]
    fn every_declared_reason_code_is_documented() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/REWARDS.md")).unwrap();
        let codes = EngineReason::ALL
            .iter()
            .map(|c| c.as_str())
            .chain(AnswerReason::ALL.iter().map(|c| c.as_str()))
            .chain(KernelReason::ALL.iter().map(|c| c.as_str()))
            .chain(aorlta_check::ParseReason::ALL.iter().map(|c| c.as_str()));
        let missing: Vec<&str> = codes.filter(|c| !doc.contains(&format!("`{c}`"))).collect();
        assert!(missing.is_empty(), "docs/REWARDS.md lists no {missing:?}");
    }
}
