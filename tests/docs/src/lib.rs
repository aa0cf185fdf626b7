//! The Rust code blocks of the repository's `README.md`,
//! `docs/authorization.md` and `docs/tasks.md`, compiled (and run, unless
//! marked `no_run`) as doc tests, so that they cannot rot:
//! `cargo test -p mcp-doc-tests --doc`.
//!
//! They are tested here rather than in `mcp-runtime` because a published
//! package holds only its own files, and these are the repository's. The
//! guide that is the rustdoc of `mcp_runtime::state`
//! (`mcp-runtime/docs/asking-for-input.md`) ships in that crate and is
//! tested with it.

/// The README's examples.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The authorization guide's examples.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/authorization.md")]
pub struct AuthorizationDoctests;

/// The tasks guide's examples (one needs the `redis` feature, which this
/// crate turns on).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/tasks.md")]
pub struct TasksDoctests;
