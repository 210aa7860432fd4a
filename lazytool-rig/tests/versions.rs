//! The rig version the README, the guide and `RIG_VERSION` state is the one `Cargo.lock`
//! resolves.

/// The version of `package` in the workspace's `Cargo.lock`.
fn locked(package: &str) -> String {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock"))
        .expect("the workspace has a Cargo.lock");
    let entry = format!("name = \"{package}\"\nversion = \"");
    let start = lock.find(&entry).map(|at| at + entry.len());
    let version = start.and_then(|start| lock[start..].split('"').next());
    version.expect("the package is locked").to_owned()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect("readable")
}

#[test]
fn the_stated_rig_version_is_the_locked_one() {
    for package in ["rig-core", "rig-agent"] {
        let version = locked(package);
        assert!(
            version.starts_with(&format!("{}.", lazytool_rig::RIG_VERSION)),
            "{package} {version} is locked, RIG_VERSION says {}",
            lazytool_rig::RIG_VERSION
        );
    }
    let stated = format!("rig-core and rig-agent {}", lazytool_rig::RIG_VERSION);
    assert!(read("../README.md").contains(&stated), "README: {stated}");
    assert!(read("src/guide/rig.md").contains(&format!("rig-agent {}", lazytool_rig::RIG_VERSION)));
    assert!(read("README.md").contains(&format!("rig-agent **{}**", lazytool_rig::RIG_VERSION)));
    let manifest = read("Cargo.toml");
    let pin = format!("\"~{}.0\"", lazytool_rig::RIG_VERSION);
    assert_eq!(
        manifest.matches(&pin).count(),
        3,
        "rig-core, rig-agent and the dev rig-core pinned to {pin}"
    );
}
