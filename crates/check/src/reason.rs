//! Reason codes: the kebab-case words a `broke` or `unsettled` leg gives for itself, stable
//! across versions (trainers filter on them; docs/REWARDS.md lists each). Each lane declares its
//! own in one enum with [`reason_codes!`](crate::reason_codes), so the set a lane can answer is
//! written down once and a misspelt code does not compile. Codes that come from another process
//! (the harness's findings) keep their text and enter through [`crate::LegOutput::with_code`].

/// A lane's reason code.
pub trait ReasonCode: Copy {
    /// The kebab-case code a reason carries.
    fn as_str(self) -> &'static str;
}

/// Declares a lane's reason codes as an enum: each variant with its kebab-case code, `ALL` (every
/// code, in order), `as_str`, [`ReasonCode`], `Display`, and equality with a `&str` (for tests
/// and for codes read back from records).
#[macro_export]
macro_rules! reason_codes {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $code:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        // `pub` reaches as far as the enum does (a test's private enum too).
        #[allow(unreachable_pub)]
        impl $name {
            /// Every code, in the order declared.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The kebab-case code a reason carries.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $code),+
                }
            }
        }

        impl $crate::ReasonCode for $name {
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::cmp::PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }
    };
}

/// The macro by its module's path, for the lanes of this crate (an exported macro is otherwise
/// named from the crate root alone).
pub(crate) use reason_codes;

#[cfg(test)]
mod tests {
    use super::ReasonCode;

    reason_codes! {
        /// Two codes.
        enum Two {
            /// The first.
            First => "first-code",
            /// The second.
            Second => "second",
        }
    }

    #[test]
    fn a_declared_code_reads_as_its_word() {
        assert_eq!(Two::First.as_str(), "first-code");
        assert_eq!(ReasonCode::as_str(Two::Second), "second");
        assert_eq!(Two::ALL, [Two::First, Two::Second]);
        assert_eq!(Two::First, "first-code");
        assert_eq!(Two::Second.to_string(), "second");
    }
}
