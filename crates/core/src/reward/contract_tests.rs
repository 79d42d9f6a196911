//! Property tests of the reward contract over every registered function.
