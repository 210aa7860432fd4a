//! The audit trail the gateway writes: `--audit` or `lazytool.audit`, opened before any server
//! starts ([`open_audit`]).

use std::path::Path;

use lazytool_mcp::AuditLog;

use crate::config::AuditSettings;

/// The audit log `--audit PATH|-` (`flag`) or the file's `lazytool.audit` asks for, if any:
/// a relative path in the file is taken from `config_dir`, the flag's from the working
/// directory. Stdout (`-`) is refused when MCP itself is served on stdio.
///
/// ```
/// use std::path::Path;
/// use lazytool_gateway::{AuditSettings, open_audit};
///
/// assert!(open_audit(None, None, Path::new("."), false).unwrap().is_none());
/// let error = open_audit(Some(Path::new("-")), None, Path::new("."), false).unwrap_err();
/// assert_eq!(error, "--audit - writes to stdout, where MCP is served on stdio: give a file, or serve with --http");
/// let settings = AuditSettings { arguments: true, ..AuditSettings::default() };
/// let log = open_audit(Some(Path::new("-")), Some(&settings), Path::new("."), true).unwrap().unwrap();
/// assert!(log.keeps_arguments());
/// ```
pub fn open_audit(
    flag: Option<&Path>,
    settings: Option<&AuditSettings>,
    config_dir: &Path,
    http: bool,
) -> Result<Option<AuditLog>, String> {
    let defaults = AuditSettings::default();
    let settings = settings.unwrap_or(&defaults);
    let path = match (flag, &settings.path) {
        (Some(flag), _) => flag.to_path_buf(),
        (None, Some(path)) if path != Path::new("-") => config_dir.join(path),
        (None, Some(path)) => path.clone(),
        (None, None) => return Ok(None),
    };
    let log = if path == Path::new("-") {
        if !http {
            return Err("--audit - writes to stdout, where MCP is served on stdio: give a file, or serve with --http".to_owned());
        }
        AuditLog::stdout()
    } else {
        AuditLog::file(&path, settings.rotation).map_err(|error| error.to_string())?
    };
    Ok(Some(log.with_arguments(settings.arguments)))
}
