//! Limits on tool calls: a server's `limits` ([`CallQuota`]) and the `lazytool.limits`
//! section ([`PrincipalLimits`]).

use std::num::{NonZeroU32, NonZeroUsize};

use lazytool_mcp::{CallQuota, PrincipalLimits, Rate};
use serde_json::{Map, Value};

use super::reader::{Reader, child};

const QUOTA_KEYS: &[&str] = &["perSecond", "burst", "maxInFlight"];
const LIMITS_KEYS: &[&str] = &["perPrincipal", "principals", "maxTrackedPrincipals"];

impl Reader<'_> {
    /// `{"perSecond": 5, "burst": 10, "maxInFlight": 4}`, each optional; `burst` defaults to
    /// `perSecond` rounded up.
    pub(super) fn quota(&mut self, value: &Value, path: &str) -> CallQuota {
        let Some(section) = self.object(value, path) else {
            return CallQuota::default();
        };
        self.unknown_keys(section, path, QUOTA_KEYS);
        let mut quota = CallQuota::default();
        let per_second = match section.get("perSecond") {
            None => None,
            Some(Value::Number(n)) => n.as_f64(),
            Some(other) => {
                self.problem(
                    &child(path, "perSecond"),
                    format!("expected a number of calls a second, found {other}"),
                );
                None
            }
        };
        let burst_path = child(path, "burst");
        match (per_second, section.get("burst")) {
            (None, Some(_)) if !section.contains_key("perSecond") => {
                self.problem(&burst_path, "a burst needs `perSecond`");
            }
            (None, _) => {}
            (Some(per_second), burst) => {
                let rounded = per_second.ceil().clamp(1.0, f64::from(u32::MAX)) as u64;
                let burst = self.positive(burst, &burst_path, rounded, "calls");
                let burst = u32::try_from(burst).unwrap_or(u32::MAX);
                match Rate::new(per_second, burst) {
                    Ok(rate) => quota = quota.rate(rate),
                    Err(error) => self.problem(&child(path, "perSecond"), error),
                }
            }
        }
        if let Some(calls) = section.get("maxInFlight") {
            let calls = self.positive(Some(calls), &child(path, "maxInFlight"), 1, "calls");
            let calls = u32::try_from(calls).unwrap_or(u32::MAX);
            if let Some(calls) = NonZeroU32::new(calls) {
                quota = quota.max_in_flight(calls);
            }
        }
        quota
    }

    /// `lazytool.limits`: `perPrincipal` (every principal's quota), `principals` (some
    /// principals' own), `maxTrackedPrincipals`.
    pub(super) fn principal_limits(
        &mut self,
        section: &Map<String, Value>,
        path: &str,
    ) -> Option<PrincipalLimits> {
        self.unknown_keys(section, path, LIMITS_KEYS);
        let default = match section.get("perPrincipal") {
            Some(quota) => self.quota(quota, &child(path, "perPrincipal")),
            None => CallQuota::default(),
        };
        let mut limits = PrincipalLimits::new(default);
        let named_path = child(path, "principals");
        if let Some(named) = section.get("principals")
            && let Some(named) = self.object(named, &named_path)
        {
            for (name, quota) in named {
                let quota = self.quota(quota, &child(&named_path, name));
                limits = limits.principal(name.as_str(), quota);
            }
        }
        let tracked = self.positive(
            section.get("maxTrackedPrincipals"),
            &child(path, "maxTrackedPrincipals"),
            lazytool_mcp::DEFAULT_MAX_TRACKED_PRINCIPALS as u64,
            "principals",
        );
        let tracked = usize::try_from(tracked).ok().and_then(NonZeroUsize::new);
        if let Some(tracked) = tracked {
            limits = limits.max_tracked(tracked);
        }
        Some(limits)
    }
}
