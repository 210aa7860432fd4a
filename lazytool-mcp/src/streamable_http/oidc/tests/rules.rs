//! Access rules on the principal's claims.

use super::*;

#[tokio::test]
async fn rules_decide_on_the_principals_claims() -> Result<(), OidcError> {
    let oidc = oidc(&Arc::default())
        .rule(ClaimRule::new().when("groups", "admins"))
        .rule(ClaimRule::new().when("scope", "mcp").allow(["*__get*"])?);
    let rules = oidc.rules();
    let reader = oidc.verify(&sign(Algorithm::RS256, &claims())).await;
    let reader = reader.expect("valid");
    let claims = reader.claims().expect("claims");
    assert!(allows(&rules, claims, "shop__getItems"));
    assert!(!allows(&rules, claims, "shop__purge"));
    Ok(())
}
