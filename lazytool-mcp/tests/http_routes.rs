//! The routes beside MCP: `/healthz` and `/readyz` answer balancers without a token or a
//! known host; `/metrics` is Prometheus text behind the same checks as MCP, with the
//! application's own metrics.

mod http_support;

use http_support::*;
use lazytool_mcp::Readiness;
use lazytool_mcp::prometheus_client::metrics::counter::Counter;

#[tokio::test]
async fn health_needs_nothing_readiness_follows_the_application() {
    let readiness = Readiness::new(false);
    let served = serve(|http| http.bearer_token("secret").readiness(readiness.clone())).await;
    let addr = served.addr;
    let balancer = [("Host", "upstream-pool")];
    let alive = exchange(addr, &get(addr, "/healthz", &balancer)).await;
    assert_eq!(
        (alive.status, alive.body.as_str()),
        (200, r#"{"status":"alive"}"#)
    );
    let not_ready = exchange(addr, &get(addr, "/readyz", &balancer)).await;
    assert_eq!(not_ready.status, 503, "{not_ready:?}");
    readiness.set(true);
    let ready = exchange(addr, &get(addr, "/readyz", &balancer)).await;
    assert_eq!(
        (ready.status, ready.body.as_str()),
        (200, r#"{"status":"ready"}"#)
    );
}

#[tokio::test]
async fn metrics_are_guarded_and_count_requests_sessions_and_the_applications_own() {
    let checks = Counter::<u64>::default();
    let registered = checks.clone();
    let served = serve(|http| {
        http.bearer_token("secret")
            .register_metrics(move |registry| {
                registry.register(
                    "app_checks",
                    "Checks the application made",
                    registered.clone(),
                );
            })
    })
    .await;
    let addr = served.addr;
    checks.inc();
    let session = open_session(addr, Some("secret")).await;
    let listed = exchange(
        addr,
        &in_session(addr, &session, Some("secret"), &call(1, "getProducts")),
    )
    .await;
    assert_eq!(listed.status, 200, "{listed:?}");

    let anonymous = exchange(addr, &get(addr, "/metrics", &[])).await;
    assert_eq!(anonymous.status, 401);
    let foreign = exchange(
        addr,
        &get(
            addr,
            "/metrics",
            &[("Authorization", "Bearer secret"), ("Host", "evil.example")],
        ),
    )
    .await;
    assert_eq!(foreign.status, 403);
    let metrics = exchange(
        addr,
        &get(addr, "/metrics", &[("Authorization", "Bearer secret")]),
    )
    .await;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert!(
        metrics
            .header("content-type")
            .is_some_and(|kind| kind.starts_with("application/openmetrics-text"))
    );
    for line in [
        r#"lazytool_http_requests_total{method="POST",status="200"}"#,
        r#"lazytool_http_refused_total{reason="unauthorized"} 1"#,
        r#"lazytool_http_refused_total{reason="host"} 1"#,
        "lazytool_http_sessions 1",
        "lazytool_http_request_duration_seconds_count",
        "app_checks_total 1",
    ] {
        assert!(metrics.body.contains(line), "{line} in {}", metrics.body);
    }
}
