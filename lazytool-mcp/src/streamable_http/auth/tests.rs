use std::sync::Arc;

use http::Request;

use super::{Authentication, Principal};

/// The principal `auth` finds in `parts`, or `None` when it refuses them.
fn authenticated(auth: &Authentication, parts: &http::request::Parts) -> Option<Principal> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(auth.authenticate(parts)).ok()
}

fn parts(authorization: Option<&str>) -> http::request::Parts {
    let mut request = Request::builder().uri("/mcp");
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request.body(()).expect("a valid request").into_parts().0
}

#[test]
fn tokens_name_their_principals() {
    let mut auth = Authentication::default();
    assert_eq!(
        authenticated(&auth, &parts(None)),
        Some(Principal::anonymous())
    );
    auth.add_token("alpha", Principal::new("alice"));
    auth.add_token("bravo", Principal::new("bob"));
    assert_eq!(
        authenticated(&auth, &parts(Some("Bearer bravo"))),
        Some(Principal::new("bob"))
    );
    assert_eq!(
        authenticated(&auth, &parts(Some("bearer  alpha "))),
        Some(Principal::new("alice"))
    );
    for refused in [
        None,
        Some("Bearer alph"),
        Some("Basic alpha"),
        Some("Bearer "),
        Some("alpha"),
    ] {
        assert_eq!(authenticated(&auth, &parts(refused)), None, "{refused:?}");
    }
    auth.set_custom(Arc::new(|parts| {
        (parts.headers.get("authorization")?.to_str().ok()? == "Key k")
            .then(|| Principal::new("key"))
    }));
    assert_eq!(
        authenticated(&auth, &parts(Some("Key k"))),
        Some(Principal::new("key"))
    );
    assert_eq!(
        authenticated(&auth, &parts(Some("Bearer alpha"))),
        Some(Principal::new("alice"))
    );
}
