//! A small model of `cargo metadata --format-version 1 --no-deps` output: the workspace
//! members, their declared dependencies and their targets.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde_json::Value;

/// The workspace as far as the layering check cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub root: PathBuf,
    /// Workspace members only, in `workspace_members` order.
    pub packages: Vec<Package>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub manifest_path: PathBuf,
    pub dependencies: Vec<Dependency>,
    pub targets: Vec<Target>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// The depended-on package's real name (not its rename, if any).
    pub name: String,
    pub kind: DepKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DepKind {
    Normal,
    Dev,
    Build,
}

impl DepKind {
    pub fn label(self) -> &'static str {
        match self {
            DepKind::Normal => "normal",
            DepKind::Dev => "dev",
            DepKind::Build => "build",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `lib`, `bin`, `test`, `bench`, `custom-build`, …
    pub kinds: Vec<String>,
    pub src_path: PathBuf,
}

impl Workspace {
    pub fn package(&self, name: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.name == name)
    }
}

impl Package {
    /// The directory holding the package's `Cargo.toml`.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new("."))
    }
}

/// Parses the JSON printed by `cargo metadata --format-version 1` (with or without `--no-deps`).
pub fn parse_metadata(json: &str) -> Result<Workspace> {
    let value: Value = serde_json::from_str(json).context("cargo metadata output is not JSON")?;
    let root = PathBuf::from(str_field(&value, "workspace_root")?);
    let members: Vec<&str> = array_field(&value, "workspace_members")?
        .iter()
        .map(|m| {
            m.as_str()
                .ok_or_else(|| anyhow!("workspace_members entry is not a string"))
        })
        .collect::<Result<_>>()?;

    let mut packages = Vec::new();
    for member in members {
        let package = array_field(&value, "packages")?
            .iter()
            .find(|p| p.get("id").and_then(Value::as_str) == Some(member))
            .ok_or_else(|| anyhow!("workspace member `{member}` missing from `packages`"))?;
        packages.push(parse_package(package)?);
    }
    Ok(Workspace { root, packages })
}

fn parse_package(package: &Value) -> Result<Package> {
    let name = str_field(package, "name")?.to_owned();
    let context = || format!("package `{name}`");
    let dependencies = array_field(package, "dependencies")
        .with_context(context)?
        .iter()
        .map(parse_dependency)
        .collect::<Result<_>>()
        .with_context(context)?;
    let targets = match package.get("targets") {
        None | Some(Value::Null) => Vec::new(),
        Some(_) => array_field(package, "targets")
            .with_context(context)?
            .iter()
            .map(parse_target)
            .collect::<Result<_>>()
            .with_context(context)?,
    };
    Ok(Package {
        manifest_path: PathBuf::from(str_field(package, "manifest_path").with_context(context)?),
        name,
        dependencies,
        targets,
    })
}

fn parse_dependency(dep: &Value) -> Result<Dependency> {
    let name = str_field(dep, "name")?.to_owned();
    let kind = match dep.get("kind") {
        None | Some(Value::Null) => DepKind::Normal,
        Some(Value::String(s)) if s == "dev" => DepKind::Dev,
        Some(Value::String(s)) if s == "build" => DepKind::Build,
        Some(other) => return Err(anyhow!("dependency `{name}` has unknown kind {other}")),
    };
    Ok(Dependency { name, kind })
}

fn parse_target(target: &Value) -> Result<Target> {
    let kinds = array_field(target, "kind")?
        .iter()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    Ok(Target {
        kinds,
        src_path: PathBuf::from(str_field(target, "src_path")?),
    })
}

fn str_field<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("missing string field `{key}`"))
}

fn array_field<'a>(value: &'a Value, key: &str) -> Result<&'a Vec<Value>> {
    value
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| anyhow!("missing array field `{key}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_members_dependencies_and_targets() {
        let json = r#"{
            "workspace_root": "/ws",
            "workspace_members": ["path+file:///ws/a#0.1.0"],
            "packages": [
                {
                    "name": "a", "id": "path+file:///ws/a#0.1.0",
                    "manifest_path": "/ws/a/Cargo.toml",
                    "dependencies": [
                        {"name": "serde", "kind": null, "rename": "s"},
                        {"name": "tokio", "kind": "dev"},
                        {"name": "cc", "kind": "build"}
                    ],
                    "targets": [{"kind": ["lib"], "src_path": "/ws/a/src/lib.rs"}]
                },
                {"name": "not-a-member", "id": "x", "manifest_path": "/x", "dependencies": []}
            ]
        }"#;
        let ws = parse_metadata(json).unwrap();
        assert_eq!(ws.root, PathBuf::from("/ws"));
        assert_eq!(ws.packages.len(), 1);
        let a = ws.package("a").unwrap();
        assert_eq!(a.dir(), Path::new("/ws/a"));
        let kinds: Vec<_> = a
            .dependencies
            .iter()
            .map(|d| (d.name.as_str(), d.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("serde", DepKind::Normal),
                ("tokio", DepKind::Dev),
                ("cc", DepKind::Build)
            ]
        );
        assert_eq!(a.targets[0].kinds, vec!["lib"]);
    }

    #[test]
    fn missing_fields_are_errors() {
        assert!(parse_metadata("{}").is_err());
        assert!(parse_metadata("not json").is_err());
    }
}
