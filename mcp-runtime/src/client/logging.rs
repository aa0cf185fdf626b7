//! [`Client::set_log_level`]: which log messages the server sends
//! (`notifications/message`, delivered as [`ServerNotification::Log`]).
//!
//! [`ServerNotification::Log`]: super::ServerNotification::Log

use serde_json::Value;

use super::era::Era;
use super::{Client, ClientError};
use crate::schema::{JsonObject, LoggingLevel};

impl Client {
    /// Asks the server for its log messages at `level` and above, which
    /// then reach [`ClientBuilder::on_notification`] as
    /// [`ServerNotification::Log`].
    ///
    /// In a 2025-era session this sends `logging/setLevel` (the server's
    /// error, if it has no logging, is returned). In the 2026-07-28 era
    /// there is no such request: the level is kept and sent with every
    /// later request as `_meta` `io.modelcontextprotocol/logLevel`. The
    /// level is kept in both eras: a 2025-era session opened anew (after
    /// the server forgot the old one) asks for it again.
    ///
    /// [`ClientBuilder::on_notification`]: super::ClientBuilder::on_notification
    /// [`ServerNotification::Log`]: super::ServerNotification::Log
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if self.era() == Era::Legacy {
            let mut params = JsonObject::new();
            let level_json = serde_json::to_value(level)
                .map_err(|e| ClientError::Encode(format!("the log level: {e}")))?;
            params.insert("level".into(), level_json);
            let _: Value = self.request("logging/setLevel", params).await?;
        }
        if let Ok(mut kept) = self.log_level.write() {
            *kept = Some(level);
        }
        Ok(())
    }

    /// The level [`Client::set_log_level`] last set, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.log_level.read().ok().and_then(|level| *level)
    }
}
