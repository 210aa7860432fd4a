use lazytool_runtime::tool;

/// Reads raw memory.
#[tool]
async unsafe fn peek(address: u64) -> u64 {
    address
}

/// Doubles a number.
#[tool]
const fn double(n: u64) -> u64 {
    n * 2
}

/// Halves a number.
#[tool]
extern "C" fn halve(n: u64) -> u64 {
    n / 2
}

fn main() {}
