//! Where each request goes: the endpoint's path takes `POST`, `GET` and
//! `DELETE`, and with protection the resource metadata is served beside it.
//! A connection the transport serves sends a `POST` to the endpoint's path
//! straight to [`post`](super::post::post); everything else goes through
//! the axum router, the one an application embeds.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::Method;
use axum::response::Response as HttpResponse;
use futures_util::FutureExt as _;
use hyper::body::Incoming;
use tower_service::Service as _;

use super::admit::metadata;
use super::{Endpoint, delete, get, post};
use crate::auth::METADATA_PATH;

/// The routes of one endpoint: the axum router, and the endpoint's path
/// and state for the `POST`s that skip it. Cheap to clone (one per
/// connection).
#[derive(Clone)]
pub(super) struct Routes {
    router: Router,
    path: Arc<str>,
    endpoint: Arc<Endpoint>,
}

impl Routes {
    /// The routes of `endpoint` at `path`.
    pub(super) fn new(path: &str, endpoint: Arc<Endpoint>) -> Self {
        let mut router = Router::new().route(
            path,
            axum::routing::post(post::post)
                .get(get::get)
                .delete(delete::delete),
        );
        if let Some(protection) = &endpoint.protection {
            let own = protection.resource.metadata_path();
            router = router.route(&own, axum::routing::get(metadata));
            if own != METADATA_PATH {
                router = router.route(METADATA_PATH, axum::routing::get(metadata));
            }
        }
        Self {
            router: router.with_state(Arc::clone(&endpoint)),
            path: Arc::from(path),
            endpoint,
        }
    }

    /// The axum router, for an application to embed.
    pub(super) fn into_router(self) -> Router {
        self.router
    }
}

/// A response on its way, as hyper takes it.
type Answering = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

impl hyper::service::Service<hyper::Request<Incoming>> for Routes {
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Answering;

    fn call(&self, request: hyper::Request<Incoming>) -> Answering {
        let request = request.map(Body::new);
        // The router answers this too, the same way; it would also give the
        // request an (empty) map of path parameters and box its route's
        // service and future, a few allocations for every message.
        if request.method() == Method::POST && request.uri().path() == &*self.path {
            // `map`, not an `async` block: a block would hold the `post`
            // future twice over (captured, then awaited) in its box.
            let answering = post::post(State(Arc::clone(&self.endpoint)), request);
            return Box::pin(answering.map(Ok));
        }
        // A router is always ready: `call` needs no `poll_ready` first.
        Box::pin(self.router.clone().call(request))
    }
}
