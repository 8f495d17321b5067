//! Content decorators: leading `@@activate` / `@@dont_activate` lines that force or forbid an
//! entry, removed from the content before anything else sees it.
//!
//! Only content that starts with `@@` is looked at. Its leading lines that start with `@@` are
//! decorator lines; the content is what follows the first line that does not. Among them:
//! * a line starting with a known decorator name is kept as a decorator, verbatim (so only a
//!   line that is exactly `@@activate` later activates the entry; `@@activate now` is kept but
//!   never matches);
//! * any other `@@` line is dropped, and makes the next `@@@` line count: `@@@activate`
//!   right after an unknown decorator is read as `@@activate`, while a `@@@` line anywhere
//!   else is dropped;
//! * when every line is a decorator line there is no content to separate, and the content is
//!   left exactly as it was (decorator lines included), which is SillyTavern's behaviour too.

const KNOWN: [&str; 2] = [ACTIVATE, DONT_ACTIVATE];

/// The decorator that activates an entry regardless of keys.
pub const ACTIVATE: &str = "@@activate";
/// The decorator that keeps an entry from activating by keys, `constant` or stickiness.
pub const DONT_ACTIVATE: &str = "@@dont_activate";

/// Splits `content` into its decorator lines and the content without them.
pub fn parse_decorators(content: &str) -> (Vec<String>, String) {
    if !content.starts_with("@@") {
        return (Vec::new(), content.to_owned());
    }
    let lines: Vec<&str> = content.split('\n').collect();
    let mut decorators = Vec::new();
    let mut after_unknown = false;
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("@@") {
            return (decorators, lines[i..].join("\n"));
        }
        let escaped = line.starts_with("@@@");
        if escaped && !after_unknown {
            continue;
        }
        let name = if escaped { &line[1..] } else { line };
        if KNOWN.iter().any(|known| name.starts_with(known)) {
            decorators.push(name.to_owned());
            after_unknown = false;
        } else {
            after_unknown = true;
        }
    }
    (decorators, content.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(content: &str) -> (Vec<String>, String) {
        parse_decorators(content)
    }

    #[test]
    fn content_without_a_leading_at_at_is_untouched() {
        assert_eq!(
            parse("text\n@@activate"),
            (vec![], "text\n@@activate".into())
        );
    }

    #[test]
    fn known_decorators_are_lifted_out() {
        assert_eq!(
            parse("@@activate\n@@dont_activate\nBody\n@@activate"),
            (
                vec!["@@activate".into(), "@@dont_activate".into()],
                "Body\n@@activate".into()
            )
        );
    }

    #[test]
    fn unknown_decorators_are_dropped_and_unlock_an_escaped_line() {
        assert_eq!(
            parse("@@future\n@@@activate\nBody"),
            (vec!["@@activate".into()], "Body".into())
        );
        assert_eq!(parse("@@@activate\nBody"), (vec![], "Body".into()));
    }

    #[test]
    fn a_known_prefix_is_kept_verbatim() {
        assert_eq!(
            parse("@@activate now\nBody"),
            (vec!["@@activate now".into()], "Body".into())
        );
    }

    #[test]
    fn content_of_only_decorator_lines_stays_whole() {
        assert_eq!(
            parse("@@activate\n@@dont_activate"),
            (
                vec!["@@activate".into(), "@@dont_activate".into()],
                "@@activate\n@@dont_activate".into()
            )
        );
    }
}
