use std::sync::Arc;

use http::Request;

use super::{Authentication, Principal};

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
        auth.authenticate(&parts(None)),
        Some(Principal::anonymous())
    );
    auth.add_token("alpha", Principal::new("alice"));
    auth.add_token("bravo", Principal::new("bob"));
    assert_eq!(
        auth.authenticate(&parts(Some("Bearer bravo"))),
        Some(Principal::new("bob"))
    );
    assert_eq!(
        auth.authenticate(&parts(Some("bearer  alpha "))),
        Some(Principal::new("alice"))
    );
    for refused in [
        None,
        Some("Bearer alph"),
        Some("Basic alpha"),
        Some("Bearer "),
        Some("alpha"),
    ] {
        assert_eq!(auth.authenticate(&parts(refused)), None, "{refused:?}");
    }
    auth.set_custom(Arc::new(|parts| {
        (parts.headers.get("authorization")?.to_str().ok()? == "Key k")
            .then(|| Principal::new("key"))
    }));
    assert_eq!(
        auth.authenticate(&parts(Some("Key k"))),
        Some(Principal::new("key"))
    );
    assert_eq!(
        auth.authenticate(&parts(Some("Bearer alpha"))),
        Some(Principal::new("alice"))
    );
}
