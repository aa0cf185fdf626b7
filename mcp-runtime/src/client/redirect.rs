//! The redirects the client follows: only within the origin a request
//! started at, and a few, so that a server cannot send the client (its
//! request body, its token) to another host.

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 5;

/// Follows a redirect only to the origin the request started at.
pub(crate) fn same_origin() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if attempt.previous().len() > MAX_REDIRECTS || !same {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}
