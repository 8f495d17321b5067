//! A skill's `SKILL.md` front matter and its optional `agents/tauritavern.json` sidecar,
//! read by TauriTavern's rules.
//!
//! The front matter is parsed by a YAML library (`serde-saphyr`), so block scalars
//! (`description: |-`), folded text, quoting, comments and flow collections all read as
//! YAML says. Around it:
//!
//! * `SKILL.md` is a regular file (not a link) of at most 1 MiB, in UTF-8;
//! * after CRLF → LF, the text starts exactly with `---\n` (no BOM, no blank line first),
//!   and the front matter ends at the first `\n---` after that;
//! * the front matter is a YAML mapping whose `name` and `description` are strings that
//!   are not blank; both are trimmed. A number, a list or `null` is not a string;
//! * `name` is `[a-z0-9_-]{1,128}`;
//! * optional: top-level `license`, and `metadata.author`, `metadata.version`,
//!   `metadata.tags` (strings; other items of `tags` are dropped). Everything else is
//!   ignored.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::options::{DuplicateKeyPolicy, MergeKeyPolicy, NonFiniteFloatPolicy};

use super::fault::SkillFault;
use crate::profiles::is_simple_name;

/// The entry point of every skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";
/// The most `SKILL.md` may hold.
pub(crate) const MAX_SKILL_MD_BYTES: u64 = 1024 * 1024;
/// TauriTavern's optional sidecar, relative to the skill folder.
const SIDECAR: &str = "agents/tauritavern.json";

/// What the front matter says about a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub name: String,
    pub description: String,
    pub license: Option<String>,
    pub author: Option<String>,
    pub version: Option<String>,
    /// `metadata.tags` that are strings, trimmed, without blanks, in order.
    pub tags: Vec<String>,
}

/// Reads and checks `dir/SKILL.md`.
pub(crate) fn read(dir: &Path) -> Result<Manifest, SkillFault> {
    let path = dir.join(SKILL_FILE);
    let meta = match fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(SkillFault::SkillMdMissing);
        }
        Err(err) => return Err(SkillFault::Unreadable(format!("{SKILL_FILE}: {err}"))),
    };
    if !meta.is_file() {
        return Err(SkillFault::SkillMdNotAFile);
    }
    if meta.len() > MAX_SKILL_MD_BYTES {
        return Err(SkillFault::SkillMdTooLarge(meta.len()));
    }
    let bytes =
        fs::read(&path).map_err(|err| SkillFault::Unreadable(format!("{SKILL_FILE}: {err}")))?;
    let text = String::from_utf8(bytes).map_err(|_| SkillFault::SkillMdNotUtf8)?;
    parse(&text)
}

/// Parses the front matter at the top of a `SKILL.md`.
pub(crate) fn parse(text: &str) -> Result<Manifest, SkillFault> {
    let normalized = text.replace("\r\n", "\n");
    let rest = normalized
        .strip_prefix("---\n")
        .ok_or(SkillFault::FrontMatterMissing)?;
    let end = rest.find("\n---").ok_or(SkillFault::FrontMatterUnclosed)?;
    let node: Node = serde_saphyr::from_str_with_options(&rest[..end], yaml_options())
        .map_err(|err| SkillFault::FrontMatterInvalid(one_line(&err.to_string())))?;
    let Node::Map(entries) = node else {
        return Err(SkillFault::FrontMatterInvalid(
            "it must be a mapping of keys to values".to_owned(),
        ));
    };
    let name = string_at(&entries, "name").ok_or(SkillFault::NameMissing)?;
    let description = string_at(&entries, "description").ok_or(SkillFault::DescriptionMissing)?;
    if !is_simple_name(&name) {
        return Err(SkillFault::NameInvalid(name));
    }
    let metadata = match value_at(&entries, "metadata") {
        Some(Node::Map(metadata)) => metadata.as_slice(),
        _ => &[],
    };
    let tags = match value_at(metadata, "tags") {
        Some(Node::Seq(items)) => items.iter().filter_map(Node::text).collect(),
        _ => Vec::new(),
    };
    Ok(Manifest {
        name,
        description,
        license: string_at(&entries, "license"),
        author: string_at(metadata, "author"),
        version: string_at(metadata, "version"),
        tags,
    })
}

/// `text` (a whole `SKILL.md`) with its skill renamed to `name`: the front matter's
/// top-level `name: ...` line is replaced and everything else is kept byte for byte. The
/// result is parsed again and must name `name`; a `name` that is not one plain line (a
/// block scalar, a flow mapping) cannot be rewritten this way and is refused.
pub(crate) fn with_name(text: &str, name: &str) -> Result<String, SkillFault> {
    parse(text)?;
    let mut out = String::with_capacity(text.len() + name.len());
    let mut in_front_matter = false;
    let mut replaced = false;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if number == 0 {
            in_front_matter = true;
        } else if in_front_matter && bare.starts_with("---") {
            in_front_matter = false;
        } else if in_front_matter && !replaced && bare.starts_with("name:") {
            out.push_str("name: ");
            out.push_str(name);
            out.push_str(&line[bare.len()..]);
            replaced = true;
            continue;
        }
        out.push_str(line);
    }
    match parse(&out) {
        Ok(manifest) if replaced && manifest.name == name => Ok(out),
        Ok(_) => Err(SkillFault::NameNotRewritable(
            "no top-level `name:` line was found".to_owned(),
        )),
        Err(fault) => Err(SkillFault::NameNotRewritable(fault.to_string())),
    }
}

/// How the YAML library is set up to read as TauriTavern's parser (`serde_yaml` 0.9) does:
/// YAML 1.2 booleans only (`yes` is a string), `0755` and `1_000` are strings, `.inf` is a
/// number, a repeated key is an error, `<<` is an ordinary key. Messages stay on one line.
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        non_finite_float_policy: NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: DuplicateKeyPolicy::Error,
        merge_keys: MergeKeyPolicy::AsOrdinary,
        with_snippet: false,
    }
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The value of the string key `key` in a mapping.
fn value_at<'a>(entries: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    entries
        .iter()
        .find(|(k, _)| matches!(k, Node::Str(k) if k == key))
        .map(|(_, v)| v)
}

/// The value of `key` when it is a string that is not blank, trimmed.
fn string_at(entries: &[(Node, Node)], key: &str) -> Option<String> {
    value_at(entries, key).and_then(Node::text)
}

/// A YAML value, as much of it as front matter rules need: strings apart from every other
/// scalar.
#[derive(Debug)]
enum Node {
    Str(String),
    /// A number, boolean, null or binary value.
    Other,
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The trimmed string, when this is a string that is not blank.
    fn text(&self) -> Option<String> {
        match self {
            Self::Str(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Node::Map(entries))
    }
}

/// What the optional `agents/tauritavern.json` adds to an index entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sidecar {
    pub display_name: Option<String>,
    pub source_kind: Option<String>,
    pub tags: Vec<String>,
}

/// The sidecar document, as strict as TauriTavern reads it: version 1, no unknown field.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SidecarFile {
    version: u32,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    source_kind: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    allow_implicit_invocation: Option<bool>,
    #[serde(default)]
    #[allow(dead_code)]
    recommended_tools: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    recommended_context: Option<RecommendedContext>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    notes: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RecommendedContext {
    #[serde(default)]
    #[allow(dead_code)]
    default_budget_tokens: Option<u32>,
    #[serde(default)]
    #[allow(dead_code)]
    preferred_mode: Option<String>,
}

/// Reads `dir/agents/tauritavern.json` when there is one.
pub(crate) fn read_sidecar(dir: &Path) -> Result<Option<Sidecar>, SkillFault> {
    let path = dir.join(SIDECAR);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => {
            return Err(SkillFault::SidecarInvalid(
                "it is not a regular file".to_owned(),
            ));
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(SkillFault::Unreadable(format!("{SIDECAR}: {err}"))),
    }
    let text =
        fs::read(&path).map_err(|err| SkillFault::Unreadable(format!("{SIDECAR}: {err}")))?;
    let file: SidecarFile =
        serde_json::from_slice(&text).map_err(|err| SkillFault::SidecarInvalid(err.to_string()))?;
    if file.version != 1 {
        return Err(SkillFault::SidecarInvalid(format!(
            "version {} is not 1",
            file.version
        )));
    }
    let trimmed =
        |value: Option<String>| value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    Ok(Some(Sidecar {
        display_name: trimmed(file.display_name),
        source_kind: trimmed(file.source_kind),
        tags: file
            .tags
            .iter()
            .map(|tag| tag.trim().to_owned())
            .filter(|tag| !tag.is_empty())
            .collect(),
    }))
}

/// The index's `tags`: the front matter's and the sidecar's, sorted, each once.
pub(crate) fn merged_tags(manifest: &Manifest, sidecar: Option<&Sidecar>) -> Vec<String> {
    let mut tags: BTreeSet<String> = manifest.tags.iter().cloned().collect();
    if let Some(sidecar) = sidecar {
        tags.extend(sidecar.tags.iter().cloned());
    }
    tags.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renaming_rewrites_only_the_name_line() {
        let renamed = with_name(ANTHROPIC_STYLE, "pdf-kit").unwrap();
        assert_eq!(
            renamed,
            ANTHROPIC_STYLE.replace("name: pdf-tools   # the folder name", "name: pdf-kit")
        );
        assert_eq!(parse(&renamed).unwrap().name, "pdf-kit");
        let block = "---\nname: |-\n  poetry\ndescription: Poems.\n---\n";
        assert!(matches!(
            with_name(block, "verse"),
            Err(SkillFault::NameNotRewritable(_))
        ));
        assert!(matches!(
            with_name("no front matter", "verse"),
            Err(SkillFault::FrontMatterMissing)
        ));
    }

    /// The shape of Anthropic's published skills: a block scalar description, quotes,
    /// comments, nested metadata, CRLF line ends.
    const ANTHROPIC_STYLE: &str = "---\r\n\
        # Front matter of a document skill\r\n\
        name: pdf-tools   # the folder name\r\n\
        description: |-\r\n  \
          Comprehensive PDF toolkit: extract text and tables, fill forms.\r\n  \
          Use it when a user asks to read or fill a PDF.\r\n\
        license: 'Proprietary. LICENSE.txt has the terms'\r\n\
        metadata:\r\n  \
          author: \"Anthropic\"\r\n  \
          version: \"1.0\"\r\n  \
          tags: [pdf, documents, 7, '  forms  ']\r\n\
        allowed-tools: [Bash, Read]\r\n\
        ---\r\n\
        # PDF tools\r\n";

    #[test]
    fn reads_real_yaml() {
        let manifest = parse(ANTHROPIC_STYLE).unwrap();
        assert_eq!(
            manifest,
            Manifest {
                name: "pdf-tools".into(),
                description: "Comprehensive PDF toolkit: extract text and tables, fill forms.\n\
                              Use it when a user asks to read or fill a PDF."
                    .into(),
                license: Some("Proprietary. LICENSE.txt has the terms".into()),
                author: Some("Anthropic".into()),
                version: Some("1.0".into()),
                tags: vec!["pdf".into(), "documents".into(), "forms".into()],
            }
        );
        let folded = parse("---\nname: x\ndescription: >\n  one\n  two\n\n  three\n---\n").unwrap();
        assert_eq!(folded.description, "one two\nthree");
        let quoted = parse("---\nname: \"x\"\ndescription: 'It''s \"fine\"\\n'\n---").unwrap();
        assert_eq!(quoted.description, "It's \"fine\"\\n");
        // A version written as a number is not a string.
        let numeric =
            parse("---\nname: x\ndescription: y\nmetadata:\n  version: 1.0\n---").unwrap();
        assert_eq!(numeric.version, None);
    }

    #[test]
    fn refuses_what_tauritavern_refuses() {
        let cases: &[(&str, &str)] = &[
            ("# no front matter\n", "skill.front_matter_missing"),
            (
                "\u{feff}---\nname: x\ndescription: y\n---\n",
                "skill.front_matter_missing",
            ),
            (
                "\n---\nname: x\ndescription: y\n---\n",
                "skill.front_matter_missing",
            ),
            (
                "---\nname: x\ndescription: y\n",
                "skill.front_matter_unclosed",
            ),
            (
                "---\nname: [x\ndescription: y\n---\n",
                "skill.front_matter_invalid",
            ),
            (
                "---\nname: x\nname: y\ndescription: z\n---\n",
                "skill.front_matter_invalid",
            ),
            (
                "---\n- name\n- description\n---\n",
                "skill.front_matter_invalid",
            ),
            (
                "---\ndescription: y\n---\n",
                "skill.front_matter_name_missing",
            ),
            (
                "---\nname: 123\ndescription: y\n---\n",
                "skill.front_matter_name_missing",
            ),
            (
                "---\nname: '  '\ndescription: y\n---\n",
                "skill.front_matter_name_missing",
            ),
            (
                "---\nname: x\ndescription:\n---\n",
                "skill.front_matter_description_missing",
            ),
            (
                "---\nname: x\ndescription: true\n---\n",
                "skill.front_matter_description_missing",
            ),
            (
                "---\nname: x\ndescription: [a]\n---\n",
                "skill.front_matter_description_missing",
            ),
            (
                "---\nname: My Skill\ndescription: y\n---\n",
                "skill.name_invalid",
            ),
            ("---\nname: ..\ndescription: y\n---\n", "skill.name_invalid"),
        ];
        for (text, code) in cases {
            let fault = parse(text).unwrap_err();
            assert_eq!(
                agent_domain::ErrorCode::code(&fault),
                *code,
                "{text:?}: {fault}"
            );
        }
        // YAML 1.2 rules, as TauriTavern's parser has them: `yes` is a string, `0755` too.
        assert_eq!(
            parse("---\nname: x\ndescription: yes\n---")
                .unwrap()
                .description,
            "yes"
        );
        assert_eq!(
            parse("---\nname: '0755'\ndescription: 0755\n---")
                .unwrap()
                .description,
            "0755"
        );
        // Values are trimmed.
        assert_eq!(
            parse("---\nname: ' x '\ndescription: \" y \"\n---")
                .unwrap()
                .name,
            "x"
        );
    }

    #[test]
    fn sidecar_is_strict() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_sidecar(dir.path()).unwrap(), None);
        fs::create_dir_all(dir.path().join("agents")).unwrap();
        let sidecar = dir.path().join(SIDECAR);
        fs::write(
            &sidecar,
            r#"{"version": 1, "displayName": " PDF ", "tags": ["b", " "], "notes": "n"}"#,
        )
        .unwrap();
        let read = read_sidecar(dir.path()).unwrap().unwrap();
        assert_eq!(read.display_name.as_deref(), Some("PDF"));
        assert_eq!(read.tags, ["b"]);
        let manifest =
            parse("---\nname: x\ndescription: y\nmetadata:\n  tags: [c, b]\n---").unwrap();
        assert_eq!(merged_tags(&manifest, Some(&read)), ["b", "c"]);
        for bad in [
            r#"{"version": 2}"#,
            r#"{"version": 1, "colour": "red"}"#,
            "{",
        ] {
            fs::write(&sidecar, bad).unwrap();
            let fault = read_sidecar(dir.path()).unwrap_err();
            assert!(
                matches!(fault, SkillFault::SidecarInvalid(_)),
                "{bad}: {fault}"
            );
        }
    }
}
