//! Which lorebooks a generation scans, by role: [`select_books`].
//!
//! Four places link books to a chat: the global selection in the settings, the character
//! card (its linked world plus the extra books of `charLore`), the chat itself
//! (`chat_metadata.world_info`) and the active persona. A book is scanned once, in the first
//! role that claims it by these rules:
//! * global books are scanned as global;
//! * the chat book is skipped when it is global;
//! * the persona book is skipped when it is the chat book or global;
//! * a character book (linked or extra) is skipped when it is global, the chat book or the
//!   persona book.
//!
//! Names are compared exactly. A name that is not an available book, and an empty name,
//! contributes nothing (SillyTavern finds no file for it); the global selection is also
//! filtered against the available books first, as SillyTavern does when it loads settings.

/// Where each book of a generation comes from, as stored.
#[derive(Debug, Clone, Copy, Default)]
pub struct BookSources<'a> {
    /// `world_info.globalSelect` (see `WorldInfoSettings::global_select`).
    pub global_select: &'a [String],
    /// Every book that exists (the `worlds/*.json` stems).
    pub available: &'a [String],
    /// The card's `data.extensions.world`.
    pub character_world: Option<&'a str>,
    /// The card's extra books (see `WorldInfoSettings::extra_books_for`).
    pub character_extra_books: &'a [String],
    /// `chat_metadata.world_info`.
    pub chat_world: Option<&'a str>,
    /// The active persona's lorebook.
    pub persona_world: Option<&'a str>,
}

/// The books a generation scans, by role, each list without repeats. Entries are collected
/// from them in the order chat, persona, then global and character by the strategy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BookSelection {
    pub chat: Vec<String>,
    pub persona: Vec<String>,
    pub global: Vec<String>,
    pub character: Vec<String>,
}

impl BookSelection {
    /// Every selected book name once, in the order chat, persona, global, character: the books
    /// to load.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self
            .chat
            .iter()
            .chain(&self.persona)
            .chain(&self.global)
            .chain(&self.character)
        {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }
}

/// Applies the role and de-duplication rules of the module documentation.
pub fn select_books(sources: &BookSources<'_>) -> BookSelection {
    let exists = |name: &str| !name.is_empty() && sources.available.iter().any(|a| a == name);
    let mut global: Vec<String> = Vec::new();
    for name in sources.global_select {
        if exists(name) && !global.contains(name) {
            global.push(name.clone());
        }
    }
    let is_global = |name: &str| global.iter().any(|g| g == name);
    let chat_world = sources.chat_world.filter(|name| !name.is_empty());
    let persona_world = sources.persona_world.filter(|name| !name.is_empty());

    let chat = chat_world.filter(|name| !is_global(name));
    let persona = persona_world.filter(|name| Some(*name) != chat_world && !is_global(name));
    let mut character: Vec<String> = Vec::new();
    let linked = sources.character_world.into_iter();
    for name in linked.chain(sources.character_extra_books.iter().map(String::as_str)) {
        let claimed = is_global(name) || Some(name) == chat_world || Some(name) == persona_world;
        if !claimed && !character.iter().any(|c| c == name) {
            character.push(name.to_owned());
        }
    }

    let keep = |names: Vec<String>| names.into_iter().filter(|n| exists(n)).collect();
    BookSelection {
        chat: keep(chat.into_iter().map(str::to_owned).collect()),
        persona: keep(persona.into_iter().map(str::to_owned).collect()),
        character: keep(character),
        global,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn each_book_is_scanned_once_in_the_first_role_that_claims_it() {
        let available = names(&["G", "Chat", "Persona", "Card", "Extra", "Shared"]);
        let global_select = names(&["G", "Missing", "G", "Shared"]);
        let extra = names(&["Extra", "Card", "Shared", "Chat", "Persona", ""]);
        let selection = select_books(&BookSources {
            global_select: &global_select,
            available: &available,
            character_world: Some("Card"),
            character_extra_books: &extra,
            chat_world: Some("Chat"),
            persona_world: Some("Persona"),
        });
        assert_eq!(
            selection,
            BookSelection {
                chat: names(&["Chat"]),
                persona: names(&["Persona"]),
                global: names(&["G", "Shared"]),
                character: names(&["Card", "Extra"]),
            }
        );
        assert_eq!(
            selection.names(),
            ["Chat", "Persona", "G", "Shared", "Card", "Extra"]
        );
    }

    #[test]
    fn chat_and_persona_books_yield_to_global_and_each_other() {
        let available = names(&["G", "P"]);
        let global_select = names(&["G"]);
        let selection = select_books(&BookSources {
            global_select: &global_select,
            available: &available,
            chat_world: Some("G"),
            persona_world: Some("G"),
            ..BookSources::default()
        });
        assert!(selection.chat.is_empty() && selection.persona.is_empty());

        let selection = select_books(&BookSources {
            available: &available,
            chat_world: Some("P"),
            persona_world: Some("P"),
            character_world: Some("P"),
            ..BookSources::default()
        });
        assert_eq!(selection.chat, ["P"]);
        assert!(selection.persona.is_empty() && selection.character.is_empty());
    }

    #[test]
    fn books_that_do_not_exist_contribute_nothing() {
        let available = names(&["Real"]);
        let selection = select_books(&BookSources {
            available: &available,
            chat_world: Some("Gone"),
            persona_world: Some(""),
            character_world: Some("Real"),
            ..BookSources::default()
        });
        assert_eq!(selection.names(), ["Real"]);
        assert_eq!(selection.character, ["Real"]);
    }
}
