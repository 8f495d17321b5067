//! The YAML front matter of a `SKILL.md`, reduced to what a skill index needs.
//!
//! Only the simple subset is read: top-level `key: value` lines with plain, `"double"` or
//! `'single'` quoted scalars. Other keys, indented lines, list items and comments are ignored,
//! so richer front matter still works as long as `name` and `description` are simple.

use crate::profiles::is_simple_name;

/// `name` and `description` of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    pub name: String,
    pub description: String,
}

/// Why a `SKILL.md` has no usable front matter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FrontMatterError {
    #[error("SKILL.md must start with a `---` front matter block")]
    Missing,
    #[error("the front matter block of SKILL.md is not closed by a `---` line")]
    Unclosed,
    #[error("the front matter of SKILL.md has no `{0}`")]
    MissingField(&'static str),
    #[error("`{0}` appears twice in the front matter of SKILL.md")]
    Duplicate(&'static str),
    #[error("`{0}` in the front matter of SKILL.md must be a one-line plain or quoted value")]
    Unsupported(&'static str),
    #[error("`{0}` is not a valid skill name: use 1-128 characters of a-z, 0-9, `_` and `-`")]
    BadName(String),
}

/// Reads the front matter at the top of `text` and checks the skill name.
pub(crate) fn parse(text: &str) -> Result<FrontMatter, FrontMatterError> {
    let mut lines = text.strip_prefix('\u{feff}').unwrap_or(text).lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(FrontMatterError::Missing);
    }
    let mut name = None;
    let mut description = None;
    let mut closed = false;
    for line in lines {
        let line = line.trim_end();
        if line == "---" || line == "..." {
            closed = true;
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key.trim_end() {
            "name" => (&mut name, "name"),
            "description" => (&mut description, "description"),
            _ => continue,
        };
        if slot.0.is_some() {
            return Err(FrontMatterError::Duplicate(slot.1));
        }
        *slot.0 = Some(scalar(value.trim()).ok_or(FrontMatterError::Unsupported(slot.1))?);
    }
    if !closed {
        return Err(FrontMatterError::Unclosed);
    }
    let name = name
        .filter(|n| !n.is_empty())
        .ok_or(FrontMatterError::MissingField("name"))?;
    let description = description
        .filter(|d| !d.trim().is_empty())
        .ok_or(FrontMatterError::MissingField("description"))?;
    if !is_simple_name(&name) {
        return Err(FrontMatterError::BadName(name));
    }
    Ok(FrontMatter { name, description })
}

/// A one-line scalar; `None` for what this subset does not read (block scalars, flow
/// collections, unterminated quotes).
fn scalar(raw: &str) -> Option<String> {
    if let Some(inner) = raw.strip_prefix('"') {
        return double_quoted(inner.strip_suffix('"')?);
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        return Some(inner.replace("''", "'"));
    }
    if raw.starts_with(['|', '>', '[', '{', '&', '*', '!']) {
        return None;
    }
    let plain = match raw.find(" #") {
        Some(comment) => &raw[..comment],
        None => raw,
    };
    Some(plain.trim().to_owned())
}

fn double_quoted(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            other => other,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> (String, String) {
        let fm = parse(text).unwrap();
        (fm.name, fm.description)
    }

    #[test]
    fn reads_plain_and_quoted_scalars() {
        assert_eq!(
            ok("---\nname: notes\ndescription: Keep notes. # why\n---\nbody"),
            ("notes".into(), "Keep notes.".into())
        );
        assert_eq!(
            ok("\u{feff}---\r\nname: \"a-b\"\r\ndescription: 'It''s \"fine\"'\r\n---\r\n"),
            ("a-b".into(), "It's \"fine\"".into())
        );
        assert_eq!(
            ok("---\nname: x\nmetadata:\n  name: nested\ndescription: \"tab\\there\"\n---"),
            ("x".into(), "tab\there".into())
        );
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let cases = [
            ("no front matter", FrontMatterError::Missing),
            ("---\nname: x\ndescription: y\n", FrontMatterError::Unclosed),
            (
                "---\ndescription: y\n---",
                FrontMatterError::MissingField("name"),
            ),
            (
                "---\nname: x\ndescription:\n---",
                FrontMatterError::MissingField("description"),
            ),
            (
                "---\nname: x\nname: y\n---",
                FrontMatterError::Duplicate("name"),
            ),
            (
                "---\nname: x\ndescription: >\n  folded\n---",
                FrontMatterError::Unsupported("description"),
            ),
            ("---\nname: \"x\n---", FrontMatterError::Unsupported("name")),
            (
                "---\nname: My Skill\ndescription: y\n---",
                FrontMatterError::BadName("My Skill".into()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text).unwrap_err(), want, "{text}");
        }
    }
}
