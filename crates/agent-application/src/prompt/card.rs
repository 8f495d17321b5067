//! The character card and the persona in a prompt: the card's prompt fields as a system
//! message, its example dialogue (with the example-message world info around it), and the
//! user's persona description.

use crate::ports::CharacterCard;

/// `Character: <name>` followed by the card's non-empty prompt fields; `None` when the card
/// says nothing beyond its name. The greeting (`first_message`) is left out: SillyTavern
/// puts it into the chat as its first message, where the history already carries it, and
/// creator notes are for people, not the model.
pub(super) fn render_card(card: &CharacterCard, name: &str) -> Option<String> {
    let mut sections = Vec::new();
    let mut add = |label: Option<&str>, text: &str| {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        sections.push(match label {
            Some(label) => format!("{label}:\n{text}"),
            None => text.to_owned(),
        });
    };
    add(None, &card.description);
    add(Some("Personality"), &card.personality);
    add(Some("Scenario"), &card.scenario);
    if sections.is_empty() {
        return None;
    }
    Some(format!("Character: {name}\n\n{}", sections.join("\n\n")))
}

/// The example dialogue: world-info example blocks placed above the card's examples, the
/// card's own, and those placed below, as SillyTavern stacks them (each world-info block
/// opened with `<START>`, as the card's are); `None` when there is none.
pub(super) fn render_examples(
    top: &[String],
    card: Option<&str>,
    bottom: &[String],
) -> Option<String> {
    let block = |text: &String| {
        let text = text.trim();
        if text.is_empty() || text.starts_with(START) {
            text.to_owned()
        } else {
            format!("{START}\n{text}")
        }
    };
    let blocks: Vec<String> = top
        .iter()
        .map(block)
        .chain(card.map(|text| text.trim().to_owned()))
        .chain(bottom.iter().map(block))
        .filter(|block| !block.is_empty())
        .collect();
    (!blocks.is_empty()).then(|| format!("Example dialogue:\n{}", blocks.join("\n")))
}

/// What opens an example-dialogue block.
const START: &str = "<START>";

/// The user's persona description, when there is one.
pub(super) fn render_persona(name: &str, description: &str) -> Option<String> {
    let description = description.trim();
    (!description.is_empty()).then(|| format!("About {name} (the user):\n{description}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fields_are_skipped() {
        let card = CharacterCard {
            name: "Seraphina".into(),
            description: "A guardian of the glade.".into(),
            scenario: "  ".into(),
            example_dialogue: "<START>\nAnn: Hi".into(),
            ..CharacterCard::default()
        };
        assert_eq!(
            render_card(&card, "Seraphina").unwrap(),
            "Character: Seraphina\n\nA guardian of the glade."
        );
        assert_eq!(render_card(&CharacterCard::default(), "X"), None);
    }

    #[test]
    fn examples_stack_top_card_bottom() {
        let top = ["A: top".to_owned()];
        let bottom = ["<START>\nA: bottom".to_owned(), " ".to_owned()];
        assert_eq!(
            render_examples(&top, Some("<START>\nA: card"), &bottom).unwrap(),
            "Example dialogue:\n<START>\nA: top\n<START>\nA: card\n<START>\nA: bottom"
        );
        assert_eq!(render_examples(&[], Some(" "), &[]), None);
        assert_eq!(render_persona("Ann", " "), None);
    }
}
