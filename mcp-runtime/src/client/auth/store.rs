//! [`TokenStore`]: where the client keeps its registrations and tokens, so
//! they outlive the process. [`MemoryStore`] and [`FileStore`] ship.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{AuthError, Secret};

/// What the client keeps about one server's authorization: its
/// registrations (one per authorization server) and its tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredAuth {
    /// The client's registrations, one per authorization server `issuer`.
    #[serde(default)]
    pub registrations: Vec<Registration>,
    /// The current tokens, if signed in.
    #[serde(default)]
    pub tokens: Option<Tokens>,
}

impl StoredAuth {
    /// The registration at the authorization server `issuer`.
    pub fn registration(&self, issuer: &str) -> Option<&Registration> {
        self.registrations.iter().find(|r| r.issuer == issuer)
    }

    /// Keeps `registration`, replacing the one at the same server.
    pub fn set_registration(&mut self, registration: Registration) {
        self.registrations
            .retain(|r| r.issuer != registration.issuer);
        self.registrations.push(registration);
    }

    /// Forgets the registration at `issuer`.
    pub fn forget_registration(&mut self, issuer: &str) {
        self.registrations.retain(|r| r.issuer != issuer);
    }
}

/// A client registration at one authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Registration {
    /// The authorization server's issuer identifier.
    pub issuer: String,
    /// The client id it gave (or the pre-registered one, or the client
    /// metadata document URL).
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default)]
    pub client_secret: Option<Secret>,
    /// When the secret expires (seconds since the epoch); `None` or 0:
    /// never.
    #[serde(default)]
    pub client_secret_expires_at: Option<u64>,
    /// The token endpoint authentication method the server gave.
    #[serde(default)]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URI registered.
    #[serde(default)]
    pub redirect_uri: Option<String>,
}

impl Registration {
    /// A registration of `client_id` at `issuer`, without a secret.
    pub fn new(issuer: impl Into<String>, client_id: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret: None,
            client_secret_expires_at: None,
            token_endpoint_auth_method: None,
            redirect_uri: None,
        }
    }

    /// Whether the secret has expired at `now` (seconds since the epoch).
    pub fn expired(&self, now: u64) -> bool {
        self.client_secret_expires_at
            .is_some_and(|at| at != 0 && at <= now)
    }
}

/// Tokens for one resource, from one authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token.
    pub access_token: Secret,
    /// The refresh token, if the server gave one.
    #[serde(default)]
    pub refresh_token: Option<Secret>,
    /// When the access token expires (seconds since the epoch).
    #[serde(default)]
    pub expires_at: Option<u64>,
    /// The scopes asked for (or granted, when the server said).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The resource (RFC 8707) the tokens are for.
    pub resource: String,
    /// The authorization server that issued them.
    pub issuer: String,
}

/// Keeps a client's [`StoredAuth`]. One store serves one server; the
/// client loads it once and saves it after each change.
pub trait TokenStore: Send + Sync + 'static {
    /// What was kept (empty when nothing was).
    fn load(&self) -> BoxFuture<'_, Result<StoredAuth, AuthError>>;
    /// Keeps `state`, replacing what was kept.
    fn save<'a>(&'a self, state: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>>;
}

/// A store in memory: the state lasts as long as the process.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<StoredAuth>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store holding `state` already.
    pub fn with_state(state: StoredAuth) -> Self {
        Self {
            state: Mutex::new(state),
        }
    }
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryStore").finish_non_exhaustive()
    }
}

impl TokenStore for MemoryStore {
    fn load(&self) -> BoxFuture<'_, Result<StoredAuth, AuthError>> {
        let state = self.state.lock().map(|s| s.clone()).unwrap_or_default();
        Box::pin(async move { Ok(state) })
    }

    fn save<'a>(&'a self, state: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>> {
        if let Ok(mut kept) = self.state.lock() {
            *kept = state.clone();
        }
        Box::pin(async { Ok(()) })
    }
}

/// A store in a JSON file, written atomically (a temporary file beside it,
/// then a rename) and readable only by the user (mode 0600 on Unix).
#[derive(Debug, Clone)]
pub struct FileStore {
    path: PathBuf,
}

impl FileStore {
    /// A store at `path` (created on the first save, with its directory).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Where the store is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl TokenStore for FileStore {
    fn load(&self) -> BoxFuture<'_, Result<StoredAuth, AuthError>> {
        let path = self.path.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || read_file(&path))
                .await
                .map_err(|e| AuthError::Store(format!("the store's reader failed: {e}")))?
        })
    }

    fn save<'a>(&'a self, state: &'a StoredAuth) -> BoxFuture<'a, Result<(), AuthError>> {
        let path = self.path.clone();
        let encoded = serde_json::to_vec_pretty(state);
        Box::pin(async move {
            let encoded =
                encoded.map_err(|e| AuthError::Store(format!("cannot encode the state: {e}")))?;
            tokio::task::spawn_blocking(move || write_file(&path, &encoded))
                .await
                .map_err(|e| AuthError::Store(format!("the store's writer failed: {e}")))?
        })
    }
}

fn read_file(path: &Path) -> Result<StoredAuth, AuthError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| AuthError::Store(format!("{} is not a token store: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StoredAuth::default()),
        Err(e) => Err(AuthError::Store(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), AuthError> {
    use std::io::Write as _;
    let failed = |what: &str, e: std::io::Error| {
        AuthError::Store(format!("cannot {what} {}: {e}", path.display()))
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| failed("create the directory of", e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tokens".into());
    let suffix = super::pkce::random_token()?;
    let temp = dir.join(format!(".{name}.{}.tmp", &suffix[..8]));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let written = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(failed("write", e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StoredAuth {
        let mut state = StoredAuth::default();
        let mut registration = Registration::new("http://as", "id-1");
        registration.client_secret = Some(Secret::new("client-secret-xyz"));
        state.set_registration(registration);
        state.tokens = Some(Tokens {
            access_token: Secret::new("access-xyz"),
            refresh_token: Some(Secret::new("refresh-xyz")),
            expires_at: Some(10),
            scopes: vec!["a".into()],
            resource: "http://rs/mcp".into(),
            issuer: "http://as".into(),
        });
        state
    }

    #[test]
    fn debug_shows_no_secret() {
        let text = format!("{:?}", sample());
        assert!(!text.contains("xyz"), "{text}");
    }

    #[tokio::test]
    async fn file_store_round_trips_privately() -> Result<(), AuthError> {
        let dir =
            std::env::temp_dir().join(format!("mcp-store-{}", super::super::pkce::random_token()?));
        let store = FileStore::new(dir.join("sub").join("tokens.json"));
        assert_eq!(store.load().await?, StoredAuth::default());
        store.save(&sample()).await?;
        store.save(&sample()).await?;
        assert_eq!(store.load().await?, sample());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(store.path())
                .map_err(|e| AuthError::Store(e.to_string()))?
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let leftovers = std::fs::read_dir(dir.join("sub"))
            .map_err(|e| AuthError::Store(e.to_string()))?
            .count();
        assert_eq!(leftovers, 1);
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
