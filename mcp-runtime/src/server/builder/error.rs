//! [`BuildError`]: every problem `build()` found, as sentences.

/// Why a server could not be built. Every problem found is reported, not
/// only the first.
///
/// It displays (and, so that `fn main() -> Result<(), Box<dyn Error>>`
/// prints the same, debug-formats) as one line per problem, each a
/// sentence naming the handler or setting and the fix.
#[derive(Clone, PartialEq, Eq)]
pub struct BuildError {
    problems: Vec<String>,
}

impl BuildError {
    /// The error of these problems (at least one).
    pub(super) fn new(problems: Vec<String>) -> Self {
        Self { problems }
    }

    /// Each problem, one sentence each.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.problems.len();
        if count == 1 {
            f.write_str("the server cannot be built:")?;
        } else {
            write!(f, "the server cannot be built ({count} problems):")?;
        }
        for problem in &self.problems {
            write!(f, "\n  - {}", sentence(problem))?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// `problem` as a sentence: a capital first letter and a closing full stop.
fn sentence(problem: &str) -> String {
    let mut chars = problem.chars();
    let mut out: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

impl std::error::Error for BuildError {}
