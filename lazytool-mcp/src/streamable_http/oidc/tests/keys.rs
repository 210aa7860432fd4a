//! Key fetching: a flood of unknown keys, a stale key set, keys not for signatures.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_flood_of_unknown_keys_fetches_at_most_once_per_ten_seconds() {
    let fetches = Arc::new(AtomicU64::new(0));
    let oidc = oidc(&fetches);
    oidc.discover().await.expect("the fixed keys");
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    let unknown = |n: usize| {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(format!("rotated-{n}"));
        jsonwebtoken::encode(&header, &claims(), &signing_key(Algorithm::RS256)).expect("a token")
    };
    // The first unknown kid within 10 s of the last fetch fetches nothing.
    for n in 0..200 {
        let reason = refusal(&oidc, &unknown(n)).await;
        assert!(reason.contains("not in the issuer's key set"), "{reason}");
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    tokio::time::advance(MIN_REFETCH).await;
    let flood: Vec<_> = (200..400)
        .map(|n| {
            let (oidc, token) = (oidc.clone(), unknown(n));
            tokio::spawn(async move { oidc.verify(&token).await })
        })
        .collect();
    for refused in flood {
        assert!(refused.await.expect("no panic").is_err());
    }
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        2,
        "one fetch for the whole flood"
    );
    // Known keys are still served from the set held.
    assert!(
        oidc.verify(&sign(Algorithm::EdDSA, &claims()))
            .await
            .is_ok()
    );
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
    assert_eq!(oidc.keys.fetch_count().await, 2);
}

#[tokio::test(start_paused = true)]
async fn a_stale_key_set_is_refreshed_without_holding_up_known_keys() {
    let fetches = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&fetches);
    let source = Source::Fixed(Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(key_set())
    }));
    let oidc = Oidc::issuer(ISSUER)
        .audience(AUDIENCE)
        .with_keys(Keys::new(source, Duration::from_secs(60)));
    oidc.discover().await.expect("the fixed keys");
    tokio::time::advance(Duration::from_secs(61)).await;
    for _ in 0..20 {
        assert!(
            oidc.verify(&sign(Algorithm::ES256, &claims()))
                .await
                .is_ok()
        );
    }
    // One background refresh, whatever the number of tokens that found the set stale.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_for_another_use_than_signatures_never_verifies() {
    let mut keys = key_set();
    for jwk in &mut keys.keys {
        match jwk
            .common
            .key_algorithm
            .map(|alg| format!("{alg:?}"))
            .as_deref()
        {
            Some("RS256") => jwk.common.public_key_use = Some(PublicKeyUse::Encryption),
            Some("ES256") => jwk.common.key_operations = Some(vec![KeyOperations::Sign]),
            _ => {
                jwk.common.public_key_use = Some(PublicKeyUse::Signature);
                jwk.common.key_operations = Some(vec![KeyOperations::Verify]);
            }
        }
    }
    let oidc = oidc_with(ISSUER, keys.clone());
    let reason = refusal(&oidc, &sign(Algorithm::RS256, &claims())).await;
    assert!(
        reason.contains("the token's key is for encryption (`use`: enc)"),
        "{reason}"
    );
    let reason = refusal(&oidc, &sign(Algorithm::ES256, &claims())).await;
    assert!(
        reason.contains("may not verify signatures: its `key_ops` in the issuer's key set are [sign], without verify"),
        "{reason}"
    );
    assert!(
        oidc.verify(&sign(Algorithm::EdDSA, &claims()))
            .await
            .is_ok()
    );

    for jwk in &mut keys.keys {
        jwk.common.public_key_use = Some(PublicKeyUse::Other("wrap".into()));
        jwk.common.key_operations = Some(vec![KeyOperations::Verify, KeyOperations::Sign]);
    }
    let oidc = oidc_with(ISSUER, keys.clone());
    let reason = refusal(&oidc, &sign(Algorithm::ES256, &claims())).await;
    assert!(reason.contains("(`use`: wrap, not sig)"), "{reason}");
    for jwk in &mut keys.keys {
        jwk.common.public_key_use = None;
    }
    let oidc = oidc_with(ISSUER, keys);
    assert!(
        oidc.verify(&sign(Algorithm::ES256, &claims()))
            .await
            .is_ok()
    );
}
