//! The answer lane's reason codes (docs/REWARDS.md, "Q&A legs" and the `parse` leg).

aorlta_check::reason_codes! {
    /// Why a Q&A leg (its `parse` included) broke or is unsettled.
    pub enum AnswerReason {
        /// No answer in any of the forms the profile accepts.
        NoAnswer => "no-answer",
        /// The answer is longer than the profile allows.
        AnswerTooLong => "answer-too-long",
        /// The answer does not match the reference.
        WrongAnswer => "wrong-answer",
        /// The answer could not be read as mathematics.
        AnswerUnreadable => "answer-unreadable",
        /// The task's reference could not be read (the task's fault, never the candidate's).
        ReferenceUnreadable => "reference-unreadable",
        /// No answer from a clean `parse` leg.
        NoParsedAnswer => "no-parsed-answer",
        /// The task is not of the kind the leg reads.
        WrongTaskKind => "wrong-task-kind",
        /// The leg's parameters are not valid.
        BadParams => "bad-params",
    }
}
