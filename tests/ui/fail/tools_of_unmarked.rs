use std::sync::Arc;

use lazytool_runtime::Registry;

struct Plain;

fn main() {
    let _ = Registry::builder().tools_of(Arc::new(Plain)).build();
}
