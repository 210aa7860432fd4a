use super::*;

fn table(max: usize, per_principal: Option<usize>) -> Arc<SessionTable> {
    SessionTable::new(max, per_principal, Gauge::default())
}

/// A reservation turned into session `id`, as `create_session` does.
fn open(table: &Arc<SessionTable>, principal: &str, id: &str) -> Vec<SessionId> {
    let reservation = table
        .reserve(&Principal::new(principal))
        .expect("room for a session");
    let evicted = reservation.evicted.clone();
    for id in &evicted {
        table.remove(id);
    }
    table.insert(SessionId::from(id), Some(reservation));
    evicted
}

#[test]
fn the_least_recently_used_idle_session_makes_room() {
    let table = table(2, None);
    assert!(open(&table, "alice", "a").is_empty());
    assert!(open(&table, "bob", "b").is_empty());
    // `a` was used after `b`: `b` goes.
    std::thread::sleep(std::time::Duration::from_millis(2));
    drop(table.busy("a"));
    assert_eq!(open(&table, "carol", "c"), [SessionId::from("b")]);
    assert_eq!(table.len(), 2);
    // Every session busy: refused, and nothing changes.
    let (_a, _c) = (table.busy("a"), table.busy("c"));
    assert_eq!(
        table.reserve(&Principal::new("dave")).err(),
        Some(Full::Overall)
    );
    assert_eq!(table.len(), 2);
}

#[test]
fn a_principal_over_its_bound_loses_its_own_oldest_session() {
    let table = table(10, Some(2));
    open(&table, "alice", "a1");
    open(&table, "bob", "b1");
    open(&table, "alice", "a2");
    assert_eq!(open(&table, "alice", "a3"), [SessionId::from("a1")]);
    let (_a2, _a3) = (table.busy("a2"), table.busy("a3"));
    assert_eq!(
        table.reserve(&Principal::new("alice")).err(),
        Some(Full::Principal)
    );
    assert!(
        open(&table, "bob", "b2").is_empty(),
        "others are not affected"
    );
}

#[test]
fn unused_reservations_are_given_back_and_count_meanwhile() {
    let table = table(1, Some(1));
    let held = table.reserve(&Principal::new("alice")).expect("room");
    assert_eq!(
        table.reserve(&Principal::new("bob")).err(),
        Some(Full::Overall),
        "a handshake under way holds its place"
    );
    drop(held);
    assert!(table.reserve(&Principal::new("bob")).is_ok());
}
