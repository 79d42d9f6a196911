//! Behaviour of aorlta-app through its public interface, one module per command.

mod kernel_episode;
