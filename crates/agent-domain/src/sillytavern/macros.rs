//! The name macros of SillyTavern prompts: `{{user}}`, `{{char}}`, `{{group}}` and the
//! legacy `<USER>`, `<BOT>`, `<CHAR>`, `<GROUP>`, matched without regard to case, plus
//! `{{outlet::Name}}`, which stands for the world-info entries placed in that outlet.
//!
//! They are expanded in what a prompt carries (card fields, world info, the chat history as
//! sent) and never in text stored in the chat. Other macros are left as written.

use std::collections::BTreeMap;

/// What the macros stand for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MacroNames {
    /// `{{user}}`, `<USER>`: the persona's name.
    pub user: String,
    /// `{{char}}`, `<BOT>`, `<CHAR>`: the character (in a group, the member replying).
    pub character: String,
    /// `{{group}}`, `<GROUP>`: the group's member names, comma-separated; in a one-to-one
    /// chat, the character's name.
    pub group: String,
    /// `{{outlet::Name}}`: the text of world-info outlet `Name` (absent outlets are empty).
    pub outlets: BTreeMap<String, String>,
}

/// The prefix of an outlet macro, after `{{`.
const OUTLET: &str = "outlet::";

/// `text` with every name macro replaced.
pub fn expand_macros(text: &str, names: &MacroNames) -> String {
    if !text.contains(['{', '<']) {
        return text.to_owned();
    }
    let simple: [(&str, &str); 7] = [
        ("{{user}}", &names.user),
        ("{{char}}", &names.character),
        ("{{group}}", &names.group),
        ("<user>", &names.user),
        ("<bot>", &names.character),
        ("<char>", &names.character),
        ("<group>", &names.group),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(ch) = rest.chars().next() {
        if matches!(ch, '{' | '<') {
            for (pattern, value) in simple {
                if starts_with_ignore_case(rest, pattern) {
                    out.push_str(value);
                    rest = &rest[pattern.len()..];
                    continue 'scan;
                }
            }
            if let Some((value, used)) = outlet(rest, names) {
                out.push_str(value);
                rest = &rest[used..];
                continue 'scan;
            }
        }
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

/// `{{outlet::Name}}` at the start of `text`: the outlet's text and the macro's length.
fn outlet<'a>(text: &str, names: &'a MacroNames) -> Option<(&'a str, usize)> {
    let after = text.strip_prefix("{{")?;
    if !starts_with_ignore_case(after, OUTLET) {
        return None;
    }
    let name_and_rest = &after[OUTLET.len()..];
    let end = name_and_rest.find("}}")?;
    let name = name_and_rest[..end].trim();
    let value = names.outlets.get(name).map_or("", String::as_str);
    Some((value, 2 + OUTLET.len() + end + 2))
}

fn starts_with_ignore_case(text: &str, pattern: &str) -> bool {
    text.get(..pattern.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(pattern))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn names() -> MacroNames {
        MacroNames {
            user: "Ann".into(),
            character: "Seraphina".into(),
            group: "Seraphina, Bram".into(),
            outlets: BTreeMap::from([("Lore".to_owned(), "The glade is old.".to_owned())]),
        }
    }

    #[test]
    fn names_are_filled_whatever_their_case() {
        assert_eq!(
            expand_macros(
                "{{Char}} greets {{USER}}; <BOT> waves at <User>. <char> of {{group}}, <GROUP>.",
                &names()
            ),
            "Seraphina greets Ann; Seraphina waves at Ann. Seraphina of Seraphina, Bram, \
             Seraphina, Bram."
        );
        assert_eq!(expand_macros("森の{{char}}", &names()), "森のSeraphina");
    }

    #[test]
    fn outlets_and_unknown_macros() {
        assert_eq!(
            expand_macros(
                "[{{outlet::Lore}}][{{OUTLET:: Lore }}][{{outlet::None}}]",
                &names()
            ),
            "[The glade is old.][The glade is old.][]"
        );
        assert_eq!(
            expand_macros("{{charx}} {{time}} {{outlet::open <b>", &names()),
            "{{charx}} {{time}} {{outlet::open <b>"
        );
        assert_eq!(expand_macros("plain text", &names()), "plain text");
    }
}
