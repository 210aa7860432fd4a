//! MCP over streamable HTTP: [`McpHttp`], on rmcp's streamable HTTP server behind lazytool's
//! guard ([`McpHttpService`]), with health and metrics routes, resource bounds
//! ([`HttpLimits`]) and a graceful drain.

mod access;
mod access_reload;
mod answer;
mod auth;
mod body;
mod call_limits;
mod challenge;
#[cfg(feature = "cli")]
mod cli;
mod coalesce;
mod connections;
mod drain;
mod edge_settings;
mod event_stream;
mod failed_auth;
mod forwarded;
mod gate;
mod guard;
mod handler_call;
mod header_param_tools;
mod health;
mod host;
mod idle;
mod in_place;
mod lane_checks;
mod lane_parse;
mod limits;
mod mcp_http;
#[cfg(feature = "oidc")]
mod metadata_route;
mod method_scan;
mod metrics;
#[cfg(feature = "oidc")]
mod oidc;
mod open_files;
mod origin;
mod page;
mod principal_limits;
#[cfg(feature = "cli")]
mod principals;
#[cfg(feature = "oidc")]
mod protected_resource;
#[cfg(test)]
mod sent_body;
mod serve_http;
mod serving_parts;
mod session_calls;
mod sessions;
mod slots;
mod stateless;
#[cfg(feature = "redis")]
mod store_metrics;
mod trail_metrics;

pub use access_reload::AccessReload;
#[cfg(feature = "cli")]
pub use cli::{HttpArgs, HttpArgsError, PreparedHttp, TOKEN_ENV, parse_listen_addr};
pub use forwarded::PublicUrlError;
pub use guard::McpHttpService;
pub use health::{HEALTHZ_PATH, READYZ_PATH, Readiness};
pub use limits::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_SESSION, DEFAULT_SESSION_IDLE_TIMEOUT, HttpLimits,
};
pub use mcp_http::{MCP_PATH, METRICS_PATH, McpHttp};
#[cfg(feature = "oidc")]
pub use oidc::{ClaimRule, DEFAULT_KEY_REFRESH, DEFAULT_LEEWAY, MAX_TOKEN_BYTES, Oidc, OidcError};
pub use open_files::{OpenFilesLimit, raise_open_files_limit};
pub use origin::{OriginPattern, OriginPatternError};
pub use principal_limits::{DEFAULT_MAX_TRACKED_PRINCIPALS, PrincipalLimits};
#[cfg(feature = "cli")]
pub use principals::{Principals, PrincipalsError};
#[cfg(feature = "oidc")]
pub use protected_resource::METADATA_PATH;
