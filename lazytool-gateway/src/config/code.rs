//! `"mode": "code"` and `lazytool.code`: the upstreams' tools called from scripts through
//! one tool, `__lazy__code__` (in a gateway built with the feature `code-mode`).

#[cfg(feature = "code-mode")]
use lazytool_runtime::DiscoveryMode;
use serde_json::{Map, Value};

use super::reader::Reader;
#[cfg(feature = "code-mode")]
use super::reader::child;

#[cfg(feature = "code-mode")]
const CODE_KEYS: &[&str] = &[
    "discovery",
    "directCalls",
    "maxToolCalls",
    "maxConcurrentCalls",
    "maxMemoryBytes",
    "wallTimeMs",
    "runner",
    "maxScripts",
    "maxQueuedScripts",
    "queueWaitMs",
    "idleWorkers",
    "recycleAfterScripts",
    "recycleAboveBytes",
];

impl Reader<'_> {
    /// How the lazy tools are discovered in code mode, and its options, from `lazytool.code`,
    /// when `code` (`"mode": "code"`).
    #[cfg(feature = "code-mode")]
    pub(super) fn code(
        &mut self,
        lazytool: &Map<String, Value>,
        code: bool,
    ) -> Option<(DiscoveryMode, lazytool_runtime::CodeMode)> {
        let path = "$.lazytool.code";
        let section = lazytool.get("code");
        if !code {
            if section.is_some() {
                self.problem(path, "applies only with `\"mode\": \"code\"`");
            }
            return None;
        }
        let mut mode = lazytool_runtime::CodeMode::new();
        let Some(section) = section.and_then(|section| self.object(section, path)) else {
            return Some((DiscoveryMode::Names, mode));
        };
        self.unknown_keys(section, path, CODE_KEYS);
        let discovery = self.one_of(
            section.get("discovery"),
            &child(path, "discovery"),
            DiscoveryMode::Names,
            &[
                ("names", DiscoveryMode::Names),
                ("search", DiscoveryMode::Search),
                ("auto", DiscoveryMode::Auto(Default::default())),
            ],
        );
        if let Some(direct) = section.get("directCalls") {
            match direct {
                Value::Bool(direct) => mode = mode.direct_calls(*direct),
                other => self.problem(
                    &child(path, "directCalls"),
                    format!("expected true or false, found {other}"),
                ),
            }
        }
        let calls = self.count(section, path, "maxToolCalls", mode.max_tool_calls, "calls");
        let concurrent = self.count(
            section,
            path,
            "maxConcurrentCalls",
            mode.max_concurrent_calls,
            "calls",
        );
        let memory = self.count(
            section,
            path,
            "maxMemoryBytes",
            mode.max_memory_bytes,
            "bytes",
        );
        mode = mode
            .max_tool_calls(calls)
            .max_concurrent_calls(concurrent)
            .max_memory_bytes(memory);
        if section.contains_key("wallTimeMs") {
            let wall = self.millis(
                section.get("wallTimeMs"),
                &child(path, "wallTimeMs"),
                Default::default(),
            );
            mode = mode.wall_time(wall);
        }
        Some((discovery, self.workers(section, path, mode)))
    }

    /// A positive whole number of `unit` at `key` of `section` (at `path`), `default` without.
    #[cfg(feature = "code-mode")]
    fn count(
        &mut self,
        section: &Map<String, Value>,
        path: &str,
        key: &str,
        default: usize,
        unit: &str,
    ) -> usize {
        let value = self.positive(section.get(key), &child(path, key), default as u64, unit);
        usize::try_from(value).unwrap_or(usize::MAX)
    }

    /// Where scripts run, and the workers' pool and budget, from `lazytool.code`.
    #[cfg(feature = "code-mode")]
    fn workers(
        &mut self,
        section: &Map<String, Value>,
        path: &str,
        mode: lazytool_runtime::CodeMode,
    ) -> lazytool_runtime::CodeMode {
        use lazytool_runtime::ScriptRunner;
        let runner = self.one_of(
            section.get("runner"),
            &child(path, "runner"),
            mode.runner,
            &[
                ("worker", ScriptRunner::Worker),
                ("inProcess", ScriptRunner::InProcess),
            ],
        );
        let scripts = self.count(section, path, "maxScripts", mode.max_scripts, "scripts");
        let queued = self.count(
            section,
            path,
            "maxQueuedScripts",
            mode.max_queued_scripts,
            "scripts",
        );
        let wait = self.millis(
            section.get("queueWaitMs"),
            &child(path, "queueWaitMs"),
            mode.max_queue_wait,
        );
        let idle = self.count(
            section,
            path,
            "idleWorkers",
            mode.max_idle_workers,
            "workers",
        );
        let recycle_scripts = self.count(
            section,
            path,
            "recycleAfterScripts",
            mode.recycle_after_scripts,
            "scripts",
        );
        let recycle_bytes = self.count(
            section,
            path,
            "recycleAboveBytes",
            mode.recycle_above_bytes,
            "bytes",
        );
        mode.runner(runner)
            .max_scripts(scripts)
            .queue(queued, wait)
            .max_idle_workers(idle)
            .recycle(recycle_scripts, recycle_bytes)
    }

    #[cfg(not(feature = "code-mode"))]
    pub(super) fn code(&mut self, lazytool: &Map<String, Value>, code: bool) {
        if code || lazytool.contains_key("code") {
            self.problem(
                "$.lazytool.mode",
                "this gateway runs no scripts: install it with `--features code-mode`",
            );
        }
    }
}
