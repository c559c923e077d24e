//! The reference executor: a [`Backend`](crate::backend::Backend) that
//! interprets traces directly on real memory. The oracle of every
//! optimizer and native-backend test.
