//! Which group member a reply is from.
//!
//! A group reply is written by one member at a time. A run that adds a swipe to a message
//! speaks as the member who wrote that message. Otherwise it speaks as the member asked for
//! (matched by card file, card file without extension, or name, ignoring case), else as the
//! member who spoke last (a reply names its member by `original_avatar`, by the card file
//! inside `force_avatar`, or, in old chats, only by name), else as the first member not
//! muted.

use crate::error::ErrorCode;

/// A member of a group, as its card names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    /// The card file (`Seraphina.png`), SillyTavern's id of the member.
    pub avatar: String,
    /// The card's name (or the file's stem when the card is missing).
    pub name: String,
    /// Muted in the group (`disabled_members`).
    pub disabled: bool,
}

/// One earlier non-user message of the chat, as far as it names its speaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpokenBy<'a> {
    pub name: &'a str,
    pub original_avatar: Option<&'a str>,
    pub force_avatar: Option<&'a str>,
}

/// Why no member could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpeakerChoice {
    #[error("`{requested}` is not a member of this group; its members: {members}")]
    NotAMember { requested: String, members: String },
    #[error("the group has no members to speak as")]
    NoMembers,
    #[error(
        "the message to swipe was written by {speaker}, so a swipe of it cannot speak as `{requested}`"
    )]
    NotTheSwipedSpeaker { requested: String, speaker: String },
}

impl ErrorCode for SpeakerChoice {
    fn code(&self) -> &'static str {
        match self {
            Self::NotAMember { .. } => "chat.member_not_found",
            Self::NoMembers => "chat.group_empty",
            Self::NotTheSwipedSpeaker { .. } => "chat.member_mismatch",
        }
    }
}

/// The member a run on a group chat speaks as (see the module docs). `swiped` is the
/// message the run adds a swipe to, if it does; `recent` runs newest first over the chat's
/// earlier non-user messages.
pub fn choose_speaker<'a, 'm>(
    members: &'a [GroupMember],
    requested: Option<&str>,
    swiped: Option<SpokenBy<'_>>,
    recent: impl IntoIterator<Item = SpokenBy<'m>>,
) -> Result<&'a GroupMember, SpeakerChoice> {
    if members.is_empty() {
        return Err(SpeakerChoice::NoMembers);
    }
    let requested = requested.map(str::trim);
    if let Some(writer) = swiped.and_then(|s| members.iter().find(|member| member.wrote(s))) {
        return match requested {
            Some(handle) if !writer.is(handle) => Err(SpeakerChoice::NotTheSwipedSpeaker {
                requested: handle.to_owned(),
                speaker: writer.name.clone(),
            }),
            _ => Ok(writer),
        };
    }
    if let Some(requested) = requested {
        return members
            .iter()
            .find(|member| member.is(requested))
            .ok_or_else(|| SpeakerChoice::NotAMember {
                requested: requested.to_owned(),
                members: members
                    .iter()
                    .map(|m| format!("{} ({})", m.name, m.avatar))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
    }
    let last = recent
        .into_iter()
        .find_map(|spoken| members.iter().find(|member| member.wrote(spoken)));
    Ok(last
        .or_else(|| members.iter().find(|member| !member.disabled))
        .unwrap_or(&members[0]))
}

impl GroupMember {
    /// Whether `handle` names this member: its card file, the file's stem or its name.
    fn is(&self, handle: &str) -> bool {
        [
            self.avatar.as_str(),
            card_stem(&self.avatar),
            self.name.as_str(),
        ]
        .iter()
        .any(|name| name.eq_ignore_ascii_case(handle))
    }

    /// Whether this member wrote a message that names its speaker as `spoken`.
    fn wrote(&self, spoken: SpokenBy<'_>) -> bool {
        if let Some(avatar) = spoken.original_avatar {
            return avatar == self.avatar;
        }
        if let Some(forced) = spoken.force_avatar {
            return thumbnail_file(forced).is_some_and(|file| file == self.avatar);
        }
        spoken.name.trim() == self.name
    }
}

/// The card file a `force_avatar` thumbnail URL names (`file=` query parameter, decoded).
fn thumbnail_file(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let encoded = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("file="))?;
    Some(percent_decode(encoded))
}

/// `decodeURIComponent` for what `encodeURIComponent` writes (invalid escapes stay).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| {
            std::str::from_utf8(h)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        });
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A card file name without its extension (`Seraphina` for `Seraphina.png`): the
/// character's id in chat folders, lorebook links and tag maps.
pub fn card_stem(avatar: &str) -> &str {
    avatar.rsplit_once('.').map_or(avatar, |(stem, _)| stem)
}

/// A character's display name: its card name trimmed and with HTML tags (`<` followed by a
/// letter or `/`, up to `>`) removed, as SillyTavern shows it.
pub fn display_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_tag = false;
    let mut chars = name.chars().peekable();
    while let Some(ch) = chars.next() {
        let opens = ch == '<' && chars.peek().is_some_and(|c| c.is_alphabetic() || *c == '/');
        match ch {
            _ if opens => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn members() -> Vec<GroupMember> {
        let member = |avatar: &str, name: &str, disabled| GroupMember {
            avatar: avatar.into(),
            name: name.into(),
            disabled,
        };
        vec![
            member("Seraphina.png", "Seraphina", true),
            member("Bram the Bard.png", "Bram", false),
            member("Mara.png", "Mara", false),
        ]
    }

    fn spoken<'a>(
        name: &'a str,
        original: Option<&'a str>,
        forced: Option<&'a str>,
    ) -> SpokenBy<'a> {
        SpokenBy {
            name,
            original_avatar: original,
            force_avatar: forced,
        }
    }

    #[test]
    fn a_requested_member_is_found_by_file_stem_or_name() {
        let members = members();
        for handle in ["Mara.png", "mara", "MARA"] {
            assert_eq!(
                choose_speaker(&members, Some(handle), None, [])
                    .unwrap()
                    .name,
                "Mara"
            );
        }
        assert_eq!(
            choose_speaker(&members, Some("bram the bard"), None, [])
                .unwrap()
                .name,
            "Bram"
        );
        let err = choose_speaker(&members, Some("Nobody"), None, []).unwrap_err();
        assert_eq!(err.code(), "chat.member_not_found");
        assert!(
            err.to_string().contains("Bram (Bram the Bard.png)"),
            "{err}"
        );
    }

    #[test]
    fn otherwise_the_last_speaker_then_the_first_unmuted_member() {
        let members = members();
        let by_original = [spoken("Someone", Some("Mara.png"), None)];
        assert_eq!(
            choose_speaker(&members, None, None, by_original)
                .unwrap()
                .name,
            "Mara"
        );
        let by_thumbnail = [spoken(
            "x",
            None,
            Some("/thumbnail?type=avatar&file=Bram%20the%20Bard.png"),
        )];
        assert_eq!(
            choose_speaker(&members, None, None, by_thumbnail)
                .unwrap()
                .name,
            "Bram"
        );
        let by_name = [
            spoken("Narrator", None, None),
            spoken("Seraphina", None, None),
        ];
        assert_eq!(
            choose_speaker(&members, None, None, by_name).unwrap().name,
            "Seraphina"
        );
        assert_eq!(
            choose_speaker(&members, None, None, []).unwrap().name,
            "Bram"
        );
        assert_eq!(
            choose_speaker(&[], None, None, []).unwrap_err(),
            SpeakerChoice::NoMembers
        );
    }

    #[test]
    fn a_swipe_speaks_as_the_member_who_wrote_the_message() {
        let members = members();
        let swiped = spoken("Mara", Some("Mara.png"), None);
        let later = [spoken("Bram", Some("Bram the Bard.png"), None)];
        for requested in [None, Some("mara")] {
            assert_eq!(
                choose_speaker(&members, requested, Some(swiped), later)
                    .unwrap()
                    .name,
                "Mara"
            );
        }
        let err = choose_speaker(&members, Some("Bram"), Some(swiped), later).unwrap_err();
        assert_eq!(err.code(), "chat.member_mismatch");
        assert!(err.to_string().contains("written by Mara"), "{err}");
        // A message no member wrote (a narrator) leaves the usual rules.
        let narrator = spoken("Narrator", None, None);
        assert_eq!(
            choose_speaker(&members, Some("Bram"), Some(narrator), later)
                .unwrap()
                .name,
            "Bram"
        );
        assert_eq!(
            choose_speaker(&members, None, Some(narrator), later)
                .unwrap()
                .name,
            "Bram"
        );
    }

    #[test]
    fn card_stems_drop_the_last_extension() {
        assert_eq!(card_stem("Bram the Bard.png"), "Bram the Bard");
        assert_eq!(card_stem("Mr. Smith.png"), "Mr. Smith");
        assert_eq!(card_stem("plain"), "plain");
    }

    #[test]
    fn display_names_lose_tags_and_spaces() {
        assert_eq!(display_name("  <b>Sera</b>phina "), "Seraphina");
        assert_eq!(display_name("A < B"), "A < B");
    }
}
