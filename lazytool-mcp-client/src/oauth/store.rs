//! Where OAuth tokens live between runs: [`TokenStore`], and one server's view of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

/// The file name of the default store, in lazytool's folder of the user's configuration.
const FILE_NAME: &str = "oauth-tokens.json";

/// Where the tokens of OAuth servers are kept: a JSON file readable and writable only by
/// the user (mode 0600, in a folder of mode 0700, written whole to a temporary file and
/// renamed), or memory alone. One entry per server name, bound to the server's URL: tokens
/// stored for one URL are never sent to another.
///
/// Its `Debug` form shows the path, never a token.
///
/// ```
/// use lazytool_mcp_client::TokenStore;
///
/// let store = TokenStore::file("/tmp/lazytool-doc/tokens.json");
/// assert_eq!(store.path().map(|path| path.display().to_string()).as_deref(), Some("/tmp/lazytool-doc/tokens.json"));
/// assert!(TokenStore::memory().path().is_none());
/// ```
#[derive(Clone)]
pub struct TokenStore {
    place: Place,
    /// One read-modify-write at a time in this process.
    lock: Arc<Mutex<Entries>>,
}

#[derive(Clone, PartialEq, Eq)]
enum Place {
    File(PathBuf),
    Memory,
}

/// The file's content: every server's entry by name.
#[derive(Default, Serialize, Deserialize)]
struct Entries {
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    /// The server's URL when the tokens were obtained.
    resource: String,
    credentials: StoredCredentials,
}

impl TokenStore {
    /// A store in the file at `path` (created on the first login).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        TokenStore {
            place: Place::File(path.into()),
            lock: Arc::default(),
        }
    }

    /// A store in memory: tokens last as long as the process (and its clones share them).
    pub fn memory() -> Self {
        TokenStore {
            place: Place::Memory,
            lock: Arc::default(),
        }
    }

    /// The default store: `oauth-tokens.json` in `$XDG_CONFIG_HOME/lazytool`, else in
    /// `$HOME/.config/lazytool`; in memory when neither variable is set.
    ///
    /// ```
    /// let store = lazytool_mcp_client::TokenStore::default_location();
    /// if let Some(path) = store.path() {
    ///     assert!(path.ends_with("lazytool/oauth-tokens.json"));
    /// }
    /// ```
    pub fn default_location() -> Self {
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|dir| !dir.is_empty())
                    .map(|home| PathBuf::from(home).join(".config"))
            });
        match config {
            Some(config) => TokenStore::file(config.join("lazytool").join(FILE_NAME)),
            None => TokenStore::memory(),
        }
    }

    /// The file, when the store is one.
    pub fn path(&self) -> Option<&Path> {
        match &self.place {
            Place::File(path) => Some(path),
            Place::Memory => None,
        }
    }

    /// The store of `server` at `resource`, as rmcp's credential store.
    pub(crate) fn for_server(&self, server: &str, resource: &str) -> ServerCredentials {
        ServerCredentials {
            store: self.clone(),
            server: server.to_owned(),
            resource: resource.to_owned(),
        }
    }

    /// Whether tokens are stored for `server` at `resource`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let store = lazytool_mcp_client::TokenStore::memory();
    /// assert!(!store.has_tokens("linear", "https://mcp.linear.app/mcp").await.unwrap());
    /// # }
    /// ```
    pub async fn has_tokens(&self, server: &str, resource: &str) -> Result<bool, String> {
        let stored = self.load(server, resource).await?;
        Ok(stored.is_some_and(|credentials| credentials.token_response.is_some()))
    }

    /// Forgets the tokens of `server`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// lazytool_mcp_client::TokenStore::memory().forget("linear").await.unwrap();
    /// # }
    /// ```
    pub async fn forget(&self, server: &str) -> Result<(), String> {
        self.update(|entries| {
            entries.servers.remove(server);
        })
        .await
    }

    async fn load(
        &self,
        server: &str,
        resource: &str,
    ) -> Result<Option<StoredCredentials>, String> {
        let memory = self.lock.lock().await;
        let from_file;
        let entries = match &self.place {
            Place::File(path) => {
                from_file = read(path)?;
                &from_file
            }
            Place::Memory => &*memory,
        };
        Ok((entries.servers.get(server))
            .filter(|entry| entry.resource == resource)
            .map(|entry| entry.credentials.clone()))
    }

    async fn update(&self, change: impl FnOnce(&mut Entries)) -> Result<(), String> {
        let mut memory = self.lock.lock().await;
        match &self.place {
            Place::File(path) => {
                let mut entries = read(path)?;
                change(&mut entries);
                write(path, &entries)
            }
            Place::Memory => {
                change(&mut memory);
                Ok(())
            }
        }
    }
}

impl std::fmt::Debug for TokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Place::File(path) => f.debug_tuple("TokenStore").field(path).finish(),
            Place::Memory => f.write_str("TokenStore(memory)"),
        }
    }
}

/// Two stores are equal when they keep tokens at the same place (memory stores: the same
/// memory).
impl PartialEq for TokenStore {
    fn eq(&self, other: &Self) -> bool {
        match (&self.place, &other.place) {
            (Place::Memory, Place::Memory) => Arc::ptr_eq(&self.lock, &other.lock),
            (left, right) => left == right,
        }
    }
}

impl Eq for TokenStore {}

fn read(path: &Path) -> Result<Entries, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| {
            format!(
                "the token store {} is not readable: {error}",
                path.display()
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Entries::default()),
        Err(error) => Err(format!("the token store {}: {error}", path.display())),
    }
}

/// Writes the whole file to a temporary file of mode 0600 beside it, then renames it over.
fn write(path: &Path, entries: &Entries) -> Result<(), String> {
    let failed = |error: std::io::Error| format!("the token store {}: {error}", path.display());
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(failed)?;
    }
    let bytes = serde_json::to_vec_pretty(entries).map_err(|error| error.to_string())?;
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temporary).and_then(|mut file| {
        std::io::Write::write_all(&mut file, &bytes)?;
        file.sync_all()
    });
    if let Err(error) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(failed(error));
    }
    Ok(())
}

/// One server's tokens in a [`TokenStore`]: what rmcp's authorization manager reads and
/// writes.
#[derive(Clone)]
pub(crate) struct ServerCredentials {
    store: TokenStore,
    server: String,
    resource: String,
}

#[async_trait::async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        (self.store.load(&self.server, &self.resource).await)
            .map_err(AuthError::CredentialStoreError)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let entry = Entry {
            resource: self.resource.clone(),
            credentials,
        };
        (self.store)
            .update(|entries| {
                entries.servers.insert(self.server.clone(), entry);
            })
            .await
            .map_err(AuthError::CredentialStoreError)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        (self.store.forget(&self.server).await).map_err(AuthError::CredentialStoreError)
    }
}
