//! Where every peer server listens: 127.0.0.1, at the port its first argument names, a free
//! one without.

use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;

/// The server's listener, bound.
pub async fn bind() -> Result<TcpListener, Box<dyn std::error::Error>> {
    let port = match std::env::args().nth(1) {
        Some(port) => port
            .parse()
            .map_err(|_| format!("`{port}` is not a port number"))?,
        None => 0,
    };
    Ok(TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?)
}
