use std::sync::Mutex as StdMutex;

use super::*;
use crate::shared::SessionInits;
use crate::shared::redis_server::RedisServer;
use rmcp::transport::streamable_http_server::session::SessionStore;

/// A session served by a test "replica": what it holds, and what it was told.
#[derive(Default)]
struct Held {
    state: StdMutex<SharedSessionState>,
    told: StdMutex<Vec<SharedSessionState>>,
}

impl SessionFollower for Held {
    fn changed_elsewhere(&self, state: SharedSessionState) {
        self.told.lock().expect("not poisoned").push(state);
    }

    fn state_here(&self) -> Option<SharedSessionState> {
        Some(self.state.lock().expect("not poisoned").clone())
    }
}

fn replica(redis: &RedisServer) -> Arc<SharedSessions> {
    let store = SharedStore::new(redis.url())
        .expect("a redis URL")
        .key_prefix("test:");
    SharedSessions::new(store, Duration::from_secs(600))
}

async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn loaded(sessions: &Arc<SharedSessions>, id: &str) -> Option<SharedSessionState> {
    match SessionShare::load(sessions, id).await {
        Loaded::Found(state) => Some(state),
        _ => None,
    }
}

#[tokio::test]
async fn two_replicas_discovering_for_one_session_merge_and_hear_of_each_other() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (one, two) = (replica(&redis), replica(&redis));
    let alice = Principal::from_issuer("https://id.example", "alice", Default::default());
    one.opened("s1", &alice).await;
    let (held_one, held_two) = (Arc::new(Held::default()), Arc::new(Held::default()));
    let follower_one: Arc<dyn SessionFollower> = held_one.clone();
    let follower_two: Arc<dyn SessionFollower> = held_two.clone();
    one.follow("s1", Arc::downgrade(&follower_one));
    two.follow("s1", Arc::downgrade(&follower_two));
    // Both listen before either announces.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (a, b) = (["a".to_owned()], ["b".to_owned()]);
    tokio::join!(one.discovered("s1", &a), two.discovered("s1", &b));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = loaded(&one, "s1").await.expect("stored");
        if state.discovered.len() == 2 {
            let mut discovered = state.discovered.clone();
            discovered.sort();
            assert_eq!(discovered, ["a", "b"]);
            assert_eq!(state.principal, "oidc:alice");
            assert_eq!(state.issuer.as_deref(), Some("https://id.example"));
            assert!(state.belongs_to(&alice));
            assert!(!state.belongs_to(&Principal::new("oidc:alice")));
            break;
        }
        assert!(Instant::now() < deadline, "{state:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Each heard of the other's discovery, not of its own.
    eventually("replica one heard of b", || {
        (held_one.told.lock().expect("not poisoned").iter())
            .any(|state| state.discovered.contains(&"b".to_owned()))
    })
    .await;
    eventually("replica two heard of a", || {
        (held_two.told.lock().expect("not poisoned").iter())
            .any(|state| state.discovered.contains(&"a".to_owned()))
    })
    .await;
    // No token, no argument: the session's keys hold names only.
    let [hash, ..] = one.keys("s1");
    let fields: HashMap<String, String> = (one.store)
        .run(|mut connection| async move {
            redis::cmd("HGETALL")
                .arg(hash)
                .query_async(&mut connection)
                .await
        })
        .await
        .expect("the store answers");
    let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["issuer", "principal"]);
    drop((follower_one, follower_two));
}

#[tokio::test]
async fn what_could_not_be_written_while_redis_was_down_is_written_once_it_is_back() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let (one, two) = (replica(&redis), replica(&redis));
    redis.kill();
    let held = Arc::new(Held::default());
    *held.state.lock().expect("not poisoned") = SharedSessionState {
        principal: "ci".to_owned(),
        issuer: None,
        discovered: vec!["report".to_owned()],
        log_level: Some(LogLevel::Warning),
        subscriptions: vec!["file:///tmp/x".to_owned()],
    };
    let follower: Arc<dyn SessionFollower> = held.clone();
    one.follow("s2", Arc::downgrade(&follower));
    one.opened("s2", &Principal::new("ci")).await;
    one.discovered("s2", &["report".to_owned()]).await;
    assert!(matches!(
        SessionShare::load(&two, "s2").await,
        Loaded::Unreachable
    ));
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    let state = loop {
        if let Some(state) = loaded(&two, "s2").await
            && !state.discovered.is_empty()
        {
            break state;
        }
        assert!(Instant::now() < deadline, "never written after the outage");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(state, held.state_here().expect("held"));
    drop(follower);
}

#[tokio::test]
async fn an_unknown_session_is_unknown_and_a_deleted_one_is_gone() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let sessions = replica(&redis);
    assert!(matches!(
        SessionShare::load(&sessions, "nobody").await,
        Loaded::Unknown
    ));
    let inits = SessionInits(Arc::clone(&sessions));
    assert!(
        SessionStore::load(&inits, "nobody")
            .await
            .expect("answers")
            .is_none()
    );
    sessions.opened("s3", &Principal::new("ci")).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while loaded(&sessions, "s3").await.is_none() {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    SessionStore::delete(&inits, "s3").await.expect("deleted");
    assert!(loaded(&sessions, "s3").await.is_none());
}

#[tokio::test]
async fn a_principals_sessions_are_bounded_across_replicas_the_least_recently_active_ended() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (one, two) = (replica(&redis), replica(&redis));
    let closed = Arc::new(StdMutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&closed);
    one.on_ended_elsewhere(Box::new(move |id| {
        seen.lock().expect("not poisoned").push(id)
    }));
    let ci = Principal::new("ci");
    let held = Arc::new(Held::default());
    let follower: Arc<dyn SessionFollower> = held.clone();
    one.follow("first", Arc::downgrade(&follower));
    // Listening before the other replica announces.
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Two sessions, one on each replica; the third makes room by ending the oldest.
    for (replica, id) in [(&one, "first"), (&two, "second")] {
        assert!(replica.make_room(&ci, 2).await.is_empty());
        replica.opened(id, &ci).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while loaded(&one, "second").await.is_none() {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Another principal's sessions do not count.
    assert!(two.make_room(&Principal::new("other"), 1).await.is_empty());
    assert_eq!(two.make_room(&ci, 2).await, ["first"]);
    assert!(loaded(&two, "first").await.is_none(), "its state is gone");
    eventually("the replica holding it closed it", || {
        closed.lock().expect("not poisoned").as_slice() == ["first"]
    })
    .await;
    drop(follower);
}
