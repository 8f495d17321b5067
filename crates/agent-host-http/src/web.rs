//! The web timeline's static files, embedded in the binary so `serve` needs nothing on disk.
//! They hold no data (the page asks the API for everything, with the token), so they are
//! served without the bearer token.

use axum::Router;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;

const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const APP_CSS: &str = include_str!("../web/app.css");

/// `/`, `/app.js` and `/app.css`.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|| file("text/html; charset=utf-8", INDEX_HTML)))
        .route(
            "/app.js",
            get(|| file("text/javascript; charset=utf-8", APP_JS)),
        )
        .route("/app.css", get(|| file("text/css; charset=utf-8", APP_CSS)))
}

async fn file(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [(CONTENT_TYPE, content_type), (CACHE_CONTROL, "no-cache")],
        body,
    )
}
