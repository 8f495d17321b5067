//! The layering rules as data (`docs/ARCHITECTURE.md`) and the pure dependency check over them.
//!
//! To add a crate: add a [`CrateRule`] to [`RULES`]. Dev-dependencies are always exempt;
//! normal and build dependencies are checked.

use std::fmt;
use std::path::PathBuf;

use super::metadata::{DepKind, Workspace};

/// What adapter crates (`agent-infra-fs`, `agent-gateway`, `agent-mcp`, `agent-text`) may not
/// depend on: each other and the host. Add a new adapter here and give it a rule below.
const ADAPTER_FORBIDDEN: &[&str] = &[
    "agent-infra-fs",
    "agent-gateway",
    "agent-mcp",
    "agent-text",
    "agent-host-cli",
    "agent-host-http",
];

/// What the adapters other than `agent-mcp` may not depend on: [`ADAPTER_FORBIDDEN`] plus
/// the MCP SDK, whose types must not leave `agent-mcp`.
const NON_MCP_ADAPTER_FORBIDDEN: &[&str] = &[
    "agent-infra-fs",
    "agent-gateway",
    "agent-mcp",
    "agent-text",
    "agent-host-cli",
    "agent-host-http",
    "rmcp",
];

/// Paths that mean I/O, processes or the clock; forbidden in the sources of crates whose rule
/// sets `scan_sources`.
pub const FORBIDDEN_SOURCE_PATTERNS: &[&str] = &[
    "std::fs",
    "tokio::fs",
    "std::process",
    "SystemTime::now",
    "Instant::now",
];

/// The rule for one workspace crate.
#[derive(Debug, Clone, Copy)]
pub struct CrateRule {
    pub krate: &'static str,
    /// If set, the only packages this crate may depend on (normal and build dependencies).
    pub allowed_only: Option<&'static [&'static str]>,
    /// Packages this crate must not depend on.
    pub forbidden: &'static [&'static str],
    /// Whether `src/` is scanned for [`FORBIDDEN_SOURCE_PATTERNS`].
    pub scan_sources: bool,
    /// Why, in one line: printed with every violation of this rule.
    pub why: &'static str,
}

pub const RULES: &[CrateRule] = &[
    CrateRule {
        krate: "agent-domain",
        allowed_only: Some(&["serde", "serde_json", "thiserror", "memchr", "rustc-hash"]),
        forbidden: &[],
        scan_sources: true,
        why: "agent-domain is pure types and rules: it may depend only on serde, serde_json, \
              thiserror, memchr (substring search) and rustc-hash (seedless hashing); no I/O, \
              async, clock or randomness",
    },
    CrateRule {
        krate: "agent-application",
        allowed_only: None,
        forbidden: &[
            "agent-infra-fs",
            "agent-gateway",
            "agent-mcp",
            "agent-text",
            "agent-host-cli",
            "agent-host-http",
            "reqwest",
            "rmcp",
            "tempfile",
            "sha2",
        ],
        scan_sources: true,
        why: "agent-application reaches the world only through ports: no adapter, host, HTTP \
              client, MCP SDK, temp files or hashing crates",
    },
    CrateRule {
        krate: "agent-infra-fs",
        allowed_only: None,
        forbidden: NON_MCP_ADAPTER_FORBIDDEN,
        scan_sources: false,
        why: "adapters never depend on each other or on the host, and only agent-mcp speaks \
              the MCP SDK",
    },
    CrateRule {
        krate: "agent-gateway",
        allowed_only: None,
        forbidden: NON_MCP_ADAPTER_FORBIDDEN,
        scan_sources: false,
        why: "adapters never depend on each other or on the host, and only agent-mcp speaks \
              the MCP SDK",
    },
    CrateRule {
        krate: "agent-mcp",
        allowed_only: None,
        forbidden: ADAPTER_FORBIDDEN,
        scan_sources: false,
        why: "adapters never depend on each other or on the host",
    },
    CrateRule {
        krate: "agent-text",
        allowed_only: None,
        forbidden: NON_MCP_ADAPTER_FORBIDDEN,
        scan_sources: false,
        why: "adapters never depend on each other or on the host, and only agent-mcp speaks \
              the MCP SDK",
    },
    CrateRule {
        krate: "agent-host-http",
        allowed_only: None,
        forbidden: &[
            "agent-infra-fs",
            "agent-gateway",
            "agent-mcp",
            "agent-text",
            "agent-host-cli",
            "reqwest",
            "rmcp",
        ],
        scan_sources: false,
        why: "the HTTP host reaches adapters only through the services and the HostWiring \
              the binary hands it; it is a server, never an HTTP client",
    },
    CrateRule {
        krate: "agent-host-cli",
        allowed_only: None,
        forbidden: &["rmcp"],
        scan_sources: false,
        why: "the host wires agent-mcp through the application's MCP port; rmcp types stay \
              inside agent-mcp",
    },
];

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Violation {
    /// `krate` has a normal or build dependency its rule does not allow.
    Dependency {
        krate: String,
        dependency: String,
        kind: DepKind,
        why: &'static str,
    },
    /// A forbidden path in the sources of `krate`; `file` is relative to the workspace root.
    Source {
        file: PathBuf,
        line: usize,
        pattern: &'static str,
        krate: String,
        text: String,
    },
    /// A rule names a crate that is not a workspace member: the table is out of date.
    UnknownCrate { krate: &'static str },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Dependency {
                krate,
                dependency,
                kind,
                why,
            } => write!(
                f,
                "{krate}: {} dependency on `{dependency}` is not allowed ({why})",
                kind.label()
            ),
            Violation::Source {
                file,
                line,
                pattern,
                krate,
                text,
            } => write!(
                f,
                "{}:{line}: `{pattern}` is not allowed in {krate} sources (I/O, processes and \
                 the clock go through ports): {text}",
                file.display()
            ),
            Violation::UnknownCrate { krate } => write!(
                f,
                "layering rule names `{krate}`, which is not a workspace member \
                 (update xtask/src/layering/rules.rs)"
            ),
        }
    }
}

/// Checks every rule's crate's normal and build dependencies. Rules for crates absent from
/// the workspace are skipped here (see [`unknown_crates`]).
pub fn check_dependencies(ws: &Workspace, rules: &[CrateRule]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for rule in rules {
        let Some(package) = ws.package(rule.krate) else {
            continue;
        };
        for dep in package
            .dependencies
            .iter()
            .filter(|d| d.kind != DepKind::Dev)
        {
            let not_allowed = rule
                .allowed_only
                .is_some_and(|allowed| !allowed.contains(&dep.name.as_str()));
            if not_allowed || rule.forbidden.contains(&dep.name.as_str()) {
                violations.push(Violation::Dependency {
                    krate: rule.krate.to_owned(),
                    dependency: dep.name.clone(),
                    kind: dep.kind,
                    why: rule.why,
                });
            }
        }
    }
    violations.sort();
    violations.dedup();
    violations
}

/// Rules whose crate is not a workspace member.
pub fn unknown_crates(ws: &Workspace, rules: &[CrateRule]) -> Vec<Violation> {
    rules
        .iter()
        .filter(|r| ws.package(r.krate).is_none())
        .map(|r| Violation::UnknownCrate { krate: r.krate })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layering::metadata::parse_metadata;

    /// Hand-written `cargo metadata` JSON for the real crate names, with `extra` dependencies
    /// added: `(crate, dependency, kind)` where kind is `null`, `"dev"` or `"build"`.
    fn metadata(extra: &[(&str, &str, &str)]) -> Workspace {
        let crates: &[(&str, &[&str])] = &[
            ("agent-domain", &["serde", "serde_json", "thiserror"]),
            (
                "agent-application",
                &["agent-domain", "tokio", "async-trait"],
            ),
            (
                "agent-infra-fs",
                &["agent-domain", "agent-application", "tempfile", "sha2"],
            ),
            (
                "agent-gateway",
                &["agent-domain", "agent-application", "reqwest"],
            ),
            ("agent-mcp", &["agent-domain", "agent-application", "rmcp"]),
            ("agent-text", &["agent-domain", "regress", "tiktoken-rs"]),
            (
                "agent-host-cli",
                &[
                    "agent-domain",
                    "agent-application",
                    "agent-infra-fs",
                    "agent-gateway",
                    "agent-mcp",
                    "agent-text",
                    "agent-host-http",
                ],
            ),
            (
                "agent-host-http",
                &["agent-domain", "agent-application", "axum", "subtle"],
            ),
        ];
        let packages: Vec<String> = crates
            .iter()
            .map(|(name, deps)| {
                let mut deps: Vec<String> =
                    deps.iter().map(|d| format!(r#"{{"name": "{d}", "kind": null}}"#)).collect();
                deps.extend(
                    extra
                        .iter()
                        .filter(|(k, _, _)| k == name)
                        .map(|(_, d, kind)| format!(r#"{{"name": "{d}", "kind": {kind}}}"#)),
                );
                format!(
                    r#"{{"name": "{name}", "id": "{name}-id", "manifest_path": "/ws/crates/{name}/Cargo.toml",
                        "dependencies": [{}], "targets": []}}"#,
                    deps.join(", ")
                )
            })
            .collect();
        let members: Vec<String> = crates.iter().map(|(n, _)| format!(r#""{n}-id""#)).collect();
        let json = format!(
            r#"{{"workspace_root": "/ws", "workspace_members": [{}], "packages": [{}]}}"#,
            members.join(", "),
            packages.join(", ")
        );
        parse_metadata(&json).unwrap()
    }

    fn deps_of(violations: &[Violation]) -> Vec<(String, String)> {
        violations
            .iter()
            .filter_map(|v| match v {
                Violation::Dependency {
                    krate, dependency, ..
                } => Some((krate.clone(), dependency.clone())),
                _ => None,
            })
            .collect()
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_owned(), b.to_owned())
    }

    #[test]
    fn the_intended_layering_passes() {
        let ws = metadata(&[]);
        assert_eq!(check_dependencies(&ws, RULES), vec![]);
        assert_eq!(unknown_crates(&ws, RULES), vec![]);
    }

    #[test]
    fn domain_with_tokio_fails() {
        let v = check_dependencies(&metadata(&[("agent-domain", "tokio", "null")]), RULES);
        assert_eq!(deps_of(&v), vec![pair("agent-domain", "tokio")]);
        let message = v[0].to_string();
        assert!(
            message.contains("agent-domain") && message.contains("`tokio`"),
            "{message}"
        );
    }

    #[test]
    fn domain_with_dev_dependency_tokio_passes() {
        let ws = metadata(&[("agent-domain", "tokio", r#""dev""#)]);
        assert_eq!(check_dependencies(&ws, RULES), vec![]);
    }

    #[test]
    fn domain_build_dependencies_are_checked() {
        let ws = metadata(&[("agent-domain", "cc", r#""build""#)]);
        assert_eq!(
            deps_of(&check_dependencies(&ws, RULES)),
            vec![pair("agent-domain", "cc")]
        );
    }

    #[test]
    fn application_with_reqwest_fails() {
        let v = check_dependencies(
            &metadata(&[("agent-application", "reqwest", "null")]),
            RULES,
        );
        assert_eq!(deps_of(&v), vec![pair("agent-application", "reqwest")]);
    }

    #[test]
    fn application_with_an_adapter_fails_but_dev_adapter_passes() {
        let ws = metadata(&[
            ("agent-application", "agent-infra-fs", "null"),
            ("agent-application", "agent-gateway", r#""dev""#),
        ]);
        assert_eq!(
            deps_of(&check_dependencies(&ws, RULES)),
            vec![pair("agent-application", "agent-infra-fs")]
        );
    }

    #[test]
    fn adapter_depending_on_adapter_or_host_fails() {
        let ws = metadata(&[
            ("agent-gateway", "agent-mcp", "null"),
            ("agent-mcp", "agent-host-cli", "null"),
            ("agent-infra-fs", "agent-gateway", r#""dev""#),
            ("agent-text", "agent-gateway", "null"),
            ("agent-gateway", "agent-text", "null"),
        ]);
        assert_eq!(
            deps_of(&check_dependencies(&ws, RULES)),
            vec![
                pair("agent-gateway", "agent-mcp"),
                pair("agent-gateway", "agent-text"),
                pair("agent-mcp", "agent-host-cli"),
                pair("agent-text", "agent-gateway")
            ]
        );
    }

    #[test]
    fn only_the_mcp_adapter_may_use_the_mcp_sdk() {
        let ws = metadata(&[
            ("agent-host-cli", "rmcp", "null"),
            ("agent-gateway", "rmcp", "null"),
            ("agent-infra-fs", "rmcp", r#""dev""#),
        ]);
        assert_eq!(
            deps_of(&check_dependencies(&ws, RULES)),
            vec![
                pair("agent-gateway", "rmcp"),
                pair("agent-host-cli", "rmcp")
            ]
        );
    }

    #[test]
    fn the_http_host_reaches_adapters_only_through_the_binary() {
        let ws = metadata(&[
            ("agent-host-http", "agent-infra-fs", "null"),
            ("agent-host-http", "reqwest", "null"),
            ("agent-host-http", "agent-gateway", r#""dev""#),
            ("agent-infra-fs", "agent-host-http", "null"),
        ]);
        assert_eq!(
            deps_of(&check_dependencies(&ws, RULES)),
            vec![
                pair("agent-host-http", "agent-infra-fs"),
                pair("agent-host-http", "reqwest"),
                pair("agent-infra-fs", "agent-host-http")
            ]
        );
    }

    #[test]
    fn application_with_the_text_adapter_fails() {
        let v = check_dependencies(
            &metadata(&[("agent-application", "agent-text", "null")]),
            RULES,
        );
        assert_eq!(deps_of(&v), vec![pair("agent-application", "agent-text")]);
    }

    #[test]
    fn all_violations_are_collected() {
        let ws = metadata(&[
            ("agent-domain", "tokio", "null"),
            ("agent-domain", "uuid", "null"),
            ("agent-application", "sha2", "null"),
        ]);
        assert_eq!(check_dependencies(&ws, RULES).len(), 3);
    }

    #[test]
    fn rules_for_missing_crates_are_reported() {
        let ws = metadata(&[]);
        let rules = [CrateRule {
            krate: "agent-renamed",
            ..RULES[0]
        }];
        assert_eq!(
            unknown_crates(&ws, &rules),
            vec![Violation::UnknownCrate {
                krate: "agent-renamed"
            }]
        );
    }
}
