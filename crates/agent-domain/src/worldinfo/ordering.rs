//! [`collect_entries`]: the entries of the selected books, in the order the scan visits them.
//!
//! Each role's entries (its books in order, each book's entries in file order) are sorted by
//! `order`, highest first, keeping ties in that order. Global and character lore are then
//! combined by the [`CharacterStrategy`], and the scan list is chat lore, persona lore, then
//! the combination. The position in this list decides ties everywhere later (candidate order,
//! budget, inclusion-group members).

use std::cmp::Ordering;

use super::book::WorldBook;
use super::scan_entry::ScanEntry;
use super::settings::CharacterStrategy;
use super::sources::BookSelection;

/// The scan list of `selection`, reading each named book from `books` (a name with no book
/// contributes nothing).
pub fn collect_entries(
    selection: &BookSelection,
    books: &[WorldBook],
    strategy: CharacterStrategy,
) -> Vec<ScanEntry> {
    let role = |names: &[String]| -> Vec<ScanEntry> {
        names
            .iter()
            .filter_map(|name| books.iter().find(|book| &book.name == name))
            .flat_map(|book| book.entries.iter().map(|e| ScanEntry::new(&book.name, e)))
            .collect()
    };
    let mut global = role(&selection.global);
    let mut character = role(&selection.character);
    let combined = match strategy {
        CharacterStrategy::Evenly => {
            global.append(&mut character);
            sorted_by_order(global)
        }
        CharacterStrategy::CharacterFirst => {
            let mut list = sorted_by_order(character);
            list.append(&mut sorted_by_order(global));
            list
        }
        CharacterStrategy::GlobalFirst => {
            let mut list = sorted_by_order(global);
            list.append(&mut sorted_by_order(character));
            list
        }
    };
    let mut list = sorted_by_order(role(&selection.chat));
    list.append(&mut sorted_by_order(role(&selection.persona)));
    list.extend(combined);
    list
}

/// Stable sort by `order`, highest first.
fn sorted_by_order(mut entries: Vec<ScanEntry>) -> Vec<ScanEntry> {
    entries.sort_by(|a, b| {
        b.entry
            .order
            .partial_cmp(&a.entry.order)
            .unwrap_or(Ordering::Equal)
    });
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(name: &str, orders: &[(i64, f64)]) -> WorldBook {
        let members: Vec<String> = orders
            .iter()
            .map(|(uid, order)| format!(r#""{uid}": {{"uid": {uid}, "order": {order}}}"#))
            .collect();
        WorldBook::parse(
            name,
            &format!(r#"{{"entries": {{{}}}}}"#, members.join(",")),
        )
        .unwrap()
    }

    fn keys(entries: &[ScanEntry]) -> Vec<String> {
        entries.iter().map(ScanEntry::key).collect()
    }

    fn selection() -> (BookSelection, Vec<WorldBook>) {
        let selection = BookSelection {
            chat: vec!["C".into()],
            persona: vec!["P".into()],
            global: vec!["G".into(), "G2".into()],
            character: vec!["Ch".into(), "Missing".into()],
        };
        let books = vec![
            book("G", &[(0, 10.0), (1, 50.0)]),
            book("G2", &[(0, 50.0)]),
            book("Ch", &[(0, 50.0), (1, 90.0)]),
            book("C", &[(0, 1.0), (1, 2.0)]),
            book("P", &[(0, 5.0)]),
        ];
        (selection, books)
    }

    #[test]
    fn character_first_puts_character_lore_before_global_lore() {
        let (selection, books) = selection();
        let list = collect_entries(&selection, &books, CharacterStrategy::CharacterFirst);
        assert_eq!(
            keys(&list),
            ["C.1", "C.0", "P.0", "Ch.1", "Ch.0", "G.1", "G2.0", "G.0"]
        );
    }

    #[test]
    fn global_first_puts_global_lore_first() {
        let (selection, books) = selection();
        let list = collect_entries(&selection, &books, CharacterStrategy::GlobalFirst);
        assert_eq!(
            keys(&list),
            ["C.1", "C.0", "P.0", "G.1", "G2.0", "G.0", "Ch.1", "Ch.0"]
        );
    }

    #[test]
    fn evenly_sorts_both_together_with_global_winning_ties() {
        let (selection, books) = selection();
        let list = collect_entries(&selection, &books, CharacterStrategy::Evenly);
        assert_eq!(
            keys(&list),
            ["C.1", "C.0", "P.0", "Ch.1", "G.1", "G2.0", "Ch.0", "G.0"]
        );
    }
}
