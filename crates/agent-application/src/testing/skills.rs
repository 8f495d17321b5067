//! An in-memory [`SkillStore`] with the contract of the file-system one: skills per scope,
//! folders implied by file paths, links refused as integrity faults, folders refused as
//! reads, and problems a test plants reported by the listings.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use super::fake_sha256_hex;
use crate::ports::{
    SKILL_PATH_IS_FOLDER, SearchCorpus, SearchFile, SkillFile, SkillIndexEntry, SkillListing,
    SkillProblem, SkillRef, SkillScope, SkillStore, StoreError,
};

#[derive(Debug, Clone)]
enum Entry {
    File(Vec<u8>),
    /// A symbolic link: the real store refuses it wherever it appears.
    Link,
}

#[derive(Debug, Default)]
struct Skill {
    description: String,
    /// By path relative to the skill folder.
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Default)]
struct State {
    skills: BTreeMap<(SkillScope, String), Skill>,
    /// Problems the listing of a scope reports, in the order planted.
    problems: Vec<(SkillScope, SkillProblem)>,
    failure: Option<StoreError>,
}

/// Skills of every scope, in memory.
#[derive(Debug, Default)]
pub struct MemorySkills {
    state: Mutex<State>,
}

impl MemorySkills {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut state)
    }

    /// Adds a skill to `scope` with a `SKILL.md` holding its front matter and a title, and
    /// returns its reference.
    pub fn add(&self, scope: &SkillScope, name: &str, description: &str) -> SkillRef {
        let skill_md = format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n");
        self.with(|s| {
            let skill = s
                .skills
                .entry((scope.clone(), name.to_owned()))
                .or_default();
            skill.description = description.to_owned();
            skill
                .entries
                .insert("SKILL.md".into(), Entry::File(skill_md.into_bytes()));
        });
        SkillRef::new(scope.clone(), name)
    }

    /// Places a file in an added skill, replacing one at the same path.
    pub fn put(&self, skill: &SkillRef, path: &str, bytes: impl Into<Vec<u8>>) {
        self.insert(skill, path, Entry::File(bytes.into()));
    }

    /// Places a symbolic link in an added skill.
    pub fn link(&self, skill: &SkillRef, path: &str) {
        self.insert(skill, path, Entry::Link);
    }

    /// Makes the listing of `scope` report `problem` (a skill that does not read).
    pub fn add_problem(&self, scope: &SkillScope, problem: SkillProblem) {
        self.with(|s| s.problems.push((scope.clone(), problem)));
    }

    /// Makes every later call fail with `error` (a broken disk, a corrupt index).
    pub fn fail_with(&self, error: StoreError) {
        self.with(|s| s.failure = Some(error));
    }

    fn insert(&self, skill: &SkillRef, path: &str, entry: Entry) {
        self.with(|s| {
            if let Some(found) = s.skills.get_mut(&key(skill)) {
                found.entries.insert(path.to_owned(), entry);
            }
        });
    }

    /// Runs `f` on the skill, after the injected failure and the skill's existence.
    fn on_skill<T>(
        &self,
        skill: &SkillRef,
        f: impl FnOnce(&Skill) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with(|s| {
            if let Some(failure) = &s.failure {
                return Err(failure.clone());
            }
            match s.skills.get(&key(skill)) {
                Some(found) => f(found),
                None => Err(StoreError::NotFound(skill.to_string())),
            }
        })
    }
}

fn key(skill: &SkillRef) -> (SkillScope, String) {
    (skill.scope.clone(), skill.name.clone())
}

fn below<'a>(skill: &'a Skill, folder: &'a str) -> impl Iterator<Item = (&'a String, &'a Entry)> {
    skill.entries.iter().filter(move |(path, _)| {
        path.strip_prefix(folder)
            .is_some_and(|r| r.starts_with('/'))
    })
}

/// What `path` is in `skill`: checks every ancestor like a confined file-system walk.
fn locate<'a>(
    skill: &'a Skill,
    skill_ref: &SkillRef,
    path: &WorkspacePath,
) -> Result<Option<&'a Entry>, StoreError> {
    let segments: Vec<&str> = path.segments().collect();
    for end in 1..segments.len() {
        let ancestor = segments[..end].join("/");
        match skill.entries.get(&ancestor) {
            Some(Entry::Link) => return Err(link_error(skill_ref, &ancestor)),
            Some(Entry::File(_)) => return Err(not_found(skill_ref, path)),
            None => {}
        }
    }
    match skill.entries.get(path.as_str()) {
        Some(Entry::Link) => Err(link_error(skill_ref, path.as_str())),
        found => Ok(found),
    }
}

fn link_error(skill: &SkillRef, path: &str) -> StoreError {
    StoreError::Integrity(format!("{skill}: `{path}` is a symbolic link"))
}

fn not_found(skill: &SkillRef, path: &WorkspacePath) -> StoreError {
    StoreError::NotFound(format!("{skill}: {path}"))
}

fn search_file(path: &str, entry: &Entry, skill: &SkillRef) -> Result<SearchFile, StoreError> {
    match entry {
        Entry::Link => Err(link_error(skill, path)),
        Entry::File(bytes) => Ok(SearchFile {
            path: WorkspacePath::parse(path).map_err(|e| StoreError::Integrity(e.to_string()))?,
            text: String::from_utf8(bytes.clone()).ok(),
            sha256: fake_sha256_hex(bytes),
        }),
    }
}

#[async_trait]
impl SkillStore for MemorySkills {
    async fn list_scope(&self, scope: &SkillScope) -> Result<SkillListing, StoreError> {
        self.with(|s| {
            if let Some(failure) = &s.failure {
                return Err(failure.clone());
            }
            Ok(SkillListing {
                skills: s
                    .skills
                    .iter()
                    .filter(|((at, _), _)| at == scope)
                    .map(|((_, name), skill)| SkillIndexEntry {
                        name: name.clone(),
                        description: skill.description.clone(),
                    })
                    .collect(),
                problems: s
                    .problems
                    .iter()
                    .filter(|(at, _)| at == scope)
                    .map(|(_, problem)| problem.clone())
                    .collect(),
            })
        })
    }

    /// The global scope, then every other scope with a skill or a problem, in scope order.
    async fn scopes(&self) -> Result<Vec<SkillScope>, StoreError> {
        self.with(|s| {
            if let Some(failure) = &s.failure {
                return Err(failure.clone());
            }
            let mut scopes = vec![SkillScope::Global];
            let found = s
                .skills
                .keys()
                .map(|(scope, _)| scope)
                .chain(s.problems.iter().map(|(scope, _)| scope));
            for scope in found {
                if !scopes.contains(scope) {
                    scopes.push(scope.clone());
                }
            }
            scopes[1..].sort();
            Ok(scopes)
        })
    }

    async fn read_file(
        &self,
        skill: &SkillRef,
        path: &WorkspacePath,
    ) -> Result<SkillFile, StoreError> {
        self.on_skill(skill, |found| match locate(found, skill, path)? {
            Some(Entry::File(bytes)) => Ok(SkillFile {
                text: String::from_utf8(bytes.clone()).ok(),
                sha256: fake_sha256_hex(bytes),
            }),
            _ if below(found, path.as_str()).next().is_some() => Err(StoreError::Invalid {
                code: SKILL_PATH_IS_FOLDER,
                message: format!("{skill}: `{path}` is a folder"),
            }),
            _ => Err(not_found(skill, path)),
        })
    }

    async fn search_corpus(
        &self,
        skill: &SkillRef,
        path: Option<&WorkspacePath>,
        max_files: usize,
    ) -> Result<SearchCorpus, StoreError> {
        self.on_skill(skill, |found| {
            let mut files = match path {
                None => found
                    .entries
                    .iter()
                    .map(|(p, e)| search_file(p, e, skill))
                    .collect::<Result<Vec<_>, _>>()?,
                Some(path) => match locate(found, skill, path)? {
                    Some(entry) => vec![search_file(path.as_str(), entry, skill)?],
                    None => {
                        let files = below(found, path.as_str())
                            .map(|(p, e)| search_file(p, e, skill))
                            .collect::<Result<Vec<_>, _>>()?;
                        if files.is_empty() {
                            return Err(not_found(skill, path));
                        }
                        files
                    }
                },
            };
            files.sort_by(|a, b| a.path.cmp(&b.path));
            let truncated = files.len() > max_files;
            files.truncate(max_files);
            Ok(SearchCorpus { files, truncated })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(raw: &str) -> WorkspacePath {
        WorkspacePath::parse(raw).unwrap()
    }

    #[tokio::test]
    async fn follows_the_store_contract() {
        let skills = MemorySkills::new();
        let poetry = skills.add(&SkillScope::Global, "poetry", "Poems.");
        skills.put(&poetry, "refs/style.md", "one\ntwo\n");
        skills.put(&poetry, "logo.bin", vec![0xff, 0xfe]);
        skills.link(&poetry, "refs/etc");

        let listed = skills.list().await.unwrap();
        assert_eq!(listed.skills[0].name, "poetry");
        let profile = SkillScope::Profile {
            profile_id: "x".into(),
        };
        assert_eq!(
            skills.list_scope(&profile).await.unwrap(),
            SkillListing::default()
        );
        let problem = SkillProblem::in_scope(&profile, "bad", "skill.front_matter_missing", "no");
        skills.add_problem(&profile, problem.clone());
        assert_eq!(
            skills.list_scope(&profile).await.unwrap().problems,
            [problem]
        );
        assert_eq!(
            skills.scopes().await.unwrap(),
            [SkillScope::Global, profile]
        );

        let read = skills.read_file(&poetry, &p("SKILL.md")).await.unwrap();
        assert!(read.text.unwrap().contains("description: Poems."));
        assert_eq!(
            skills
                .read_file(&poetry, &p("logo.bin"))
                .await
                .unwrap()
                .text,
            None
        );
        let code = |r: Result<SkillFile, StoreError>| r.unwrap_err();
        assert!(matches!(
            code(skills.read_file(&poetry, &p("refs")).await),
            StoreError::Invalid {
                code: SKILL_PATH_IS_FOLDER,
                ..
            }
        ));
        assert!(matches!(
            code(skills.read_file(&poetry, &p("refs/etc/passwd")).await),
            StoreError::Integrity(_)
        ));
        assert!(matches!(
            code(skills.read_file(&poetry, &p("logo.bin/x")).await),
            StoreError::NotFound(_)
        ));
        let ghost = SkillRef::new(SkillScope::Global, "ghost");
        assert!(matches!(
            code(skills.read_file(&ghost, &p("SKILL.md")).await),
            StoreError::NotFound(_)
        ));

        assert!(matches!(
            skills.search_corpus(&poetry, None, 10).await,
            Err(StoreError::Integrity(_))
        ));
        let file = skills
            .search_corpus(&poetry, Some(&p("logo.bin")), 10)
            .await
            .unwrap();
        assert_eq!(file.files.len(), 1);
        assert!(matches!(
            skills.search_corpus(&poetry, Some(&p("nope")), 10).await,
            Err(StoreError::NotFound(_))
        ));
    }
}
