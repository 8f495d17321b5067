//! The character card as a system message, with SillyTavern's name macros filled in.

use crate::ports::CharacterCard;

/// Names the macros of a card stand for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Names<'a> {
    pub character: &'a str,
    pub user: &'a str,
}

/// `Character: <name>` followed by the card's non-empty prompt fields; `None` when the card
/// says nothing beyond its name. The greeting (`first_message`) is left out: SillyTavern
/// puts it into the chat as its first message, where the history already carries it, and
/// creator notes are for people, not the model.
pub(super) fn render_card(card: &CharacterCard, names: Names<'_>) -> Option<String> {
    let mut sections = Vec::new();
    let mut add = |label: Option<&str>, text: &str| {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let text = fill_macros(text, names);
        sections.push(match label {
            Some(label) => format!("{label}:\n{text}"),
            None => text,
        });
    };
    add(None, &card.description);
    add(Some("Personality"), &card.personality);
    add(Some("Scenario"), &card.scenario);
    add(Some("Example dialogue"), &card.example_dialogue);
    if sections.is_empty() {
        return None;
    }
    Some(format!(
        "Character: {}\n\n{}",
        names.character,
        sections.join("\n\n")
    ))
}

/// Replaces `{{char}}`, `{{user}}` and their legacy spellings `<BOT>`, `<USER>` (ASCII
/// case-insensitive), as SillyTavern does before a card reaches the model.
pub(super) fn fill_macros(text: &str, names: Names<'_>) -> String {
    let macros = [
        ("{{char}}", names.character),
        ("{{user}}", names.user),
        ("<bot>", names.character),
        ("<user>", names.user),
    ];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(ch) = rest.chars().next() {
        if matches!(ch, '{' | '<') {
            for (pattern, name) in macros {
                let head = rest.get(..pattern.len());
                if head.is_some_and(|head| head.eq_ignore_ascii_case(pattern)) {
                    out.push_str(name);
                    rest = &rest[pattern.len()..];
                    continue 'scan;
                }
            }
        }
        out.push(ch);
        rest = &rest[ch.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: Names<'static> = Names {
        character: "Seraphina",
        user: "Ann",
    };

    #[test]
    fn macros_are_filled_case_insensitively() {
        assert_eq!(
            fill_macros(
                "{{Char}} greets {{user}}; <BOT> waves at <User>. {{charx}} {",
                NAMES
            ),
            "Seraphina greets Ann; Seraphina waves at Ann. {{charx}} {"
        );
        assert_eq!(fill_macros("森の{{char}}", NAMES), "森のSeraphina");
    }

    #[test]
    fn empty_fields_are_skipped() {
        let card = CharacterCard {
            name: "Seraphina".into(),
            description: "A guardian of {{char}}'s glade.".into(),
            scenario: "  ".into(),
            example_dialogue: "<START>\n{{user}}: Hi".into(),
            ..CharacterCard::default()
        };
        assert_eq!(
            render_card(&card, NAMES).unwrap(),
            "Character: Seraphina\n\nA guardian of Seraphina's glade.\n\nExample dialogue:\n\
             <START>\nAnn: Hi"
        );
        assert_eq!(render_card(&CharacterCard::default(), NAMES), None);
    }
}
