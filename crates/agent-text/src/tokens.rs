//! [`TiktokenCounter`]: token counts with OpenAI's BPE encodings, bundled (no download).
//!
//! The world-info budget is measured in the active model's tokens. OpenAI's current models
//! (GPT-4o, GPT-4.1, GPT-5, the o-series) use `o200k_base`; older ones, and everything else,
//! are counted with `cl100k_base`, which is also what SillyTavern falls back to for models it
//! has no tokenizer for. Building an encoding takes a noticeable moment, so each is built once,
//! on first use, and shared by every counter in the process.
//!
//! Text is counted as ordinary text: a special-token spelling such as `<|endoftext|>` inside
//! an entry counts as the characters it is made of, never as one control token.

use std::fmt;
use std::sync::OnceLock;

use agent_domain::ErrorCode;
use agent_domain::worldinfo::TokenCounter;
use tiktoken_rs::CoreBPE;

/// A BPE encoding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    O200kBase,
    /// GPT-4, GPT-3.5 and the default for any other model.
    #[default]
    Cl100kBase,
}

impl Encoding {
    /// The encoding for `model`, as a connection names it: the part after the last `/`
    /// (`openai/gpt-4o` is `gpt-4o`), without a fine-tune `ft:` prefix, compared in lowercase.
    /// `o200k_base` for names starting with `gpt-4o`, `chatgpt-4o`, `gpt-4.1`, `gpt-5` or an
    /// o-series name (`o1`, `o3-mini`, `o4-mini`, …); `cl100k_base` for everything else.
    pub fn for_model(model: &str) -> Self {
        let name = model.rsplit('/').next().unwrap_or(model).to_lowercase();
        let name = name.strip_prefix("ft:").unwrap_or(&name);
        let o_series = name
            .strip_prefix('o')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        let modern = ["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-5"]
            .iter()
            .any(|prefix| name.starts_with(prefix));
        if o_series || modern {
            Self::O200kBase
        } else {
            Self::Cl100kBase
        }
    }

    /// The encoding's name, as tiktoken spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::O200kBase => "o200k_base",
            Self::Cl100kBase => "cl100k_base",
        }
    }
}

/// Why an encoding could not be built (the bundled data failed to load; not expected in
/// practice).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenizerError {
    #[error("the {encoding} tokenizer could not be loaded: {detail}")]
    Unavailable {
        encoding: &'static str,
        detail: String,
    },
}

impl ErrorCode for TokenizerError {
    fn code(&self) -> &'static str {
        match self {
            Self::Unavailable { .. } => "text.tokenizer_unavailable",
        }
    }
}

/// Counts tokens with one encoding.
#[derive(Clone, Copy)]
pub struct TiktokenCounter {
    encoding: Encoding,
    bpe: &'static CoreBPE,
}

impl TiktokenCounter {
    /// A counter for `encoding`, building the encoding on first use.
    ///
    /// # Errors
    ///
    /// `text.tokenizer_unavailable` when the bundled encoding data cannot be loaded.
    pub fn new(encoding: Encoding) -> Result<Self, TokenizerError> {
        Ok(Self {
            encoding,
            bpe: shared_bpe(encoding)?,
        })
    }

    /// A counter for `model` (see [`Encoding::for_model`]).
    ///
    /// # Errors
    ///
    /// As [`TiktokenCounter::new`].
    pub fn for_model(model: &str) -> Result<Self, TokenizerError> {
        Self::new(Encoding::for_model(model))
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }
}

impl fmt::Debug for TiktokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TiktokenCounter")
            .field("encoding", &self.encoding.name())
            .finish()
    }
}

impl TokenCounter for TiktokenCounter {
    fn count_tokens(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

/// The process-wide encoding, built on first use. A failure is remembered too, so a broken
/// encoding is not rebuilt on every call.
fn shared_bpe(encoding: Encoding) -> Result<&'static CoreBPE, TokenizerError> {
    static O200K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
    static CL100K: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
    let (cell, build): (_, fn() -> _) = match encoding {
        Encoding::O200kBase => (&O200K, tiktoken_rs::o200k_base),
        Encoding::Cl100kBase => (&CL100K, tiktoken_rs::cl100k_base),
    };
    cell.get_or_init(|| build().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|detail| TokenizerError::Unavailable {
            encoding: encoding.name(),
            detail: detail.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_map_to_encodings() {
        let cases = [
            ("gpt-4o", Encoding::O200kBase),
            ("gpt-4o-mini-2024-07-18", Encoding::O200kBase),
            ("openai/gpt-4.1-mini", Encoding::O200kBase),
            ("chatgpt-4o-latest", Encoding::O200kBase),
            ("GPT-5", Encoding::O200kBase),
            ("o1-preview", Encoding::O200kBase),
            ("o3-mini", Encoding::O200kBase),
            ("o4-mini", Encoding::O200kBase),
            ("ft:gpt-4o:org:name:id", Encoding::O200kBase),
            ("gpt-4-turbo", Encoding::Cl100kBase),
            ("gpt-3.5-turbo", Encoding::Cl100kBase),
            ("claude-sonnet-4", Encoding::Cl100kBase),
            ("omni-large", Encoding::Cl100kBase),
            ("", Encoding::Cl100kBase),
        ];
        for (model, encoding) in cases {
            assert_eq!(Encoding::for_model(model), encoding, "{model}");
        }
        assert_eq!(Encoding::default(), Encoding::Cl100kBase);
    }

    /// Counts pinned from this crate's output (`hello world` is 2 tokens in both encodings,
    /// as OpenAI's tokenizer shows); a change means the bundled encodings changed.
    #[test]
    fn counts_are_tiktokens() {
        let o200k = TiktokenCounter::new(Encoding::O200kBase).unwrap();
        let cl100k = TiktokenCounter::for_model("gpt-4").unwrap();
        assert_eq!(cl100k.encoding(), Encoding::Cl100kBase);
        let cases: &[(&str, usize, usize)] = &[
            // (text, o200k_base, cl100k_base)
            ("", 0, 0),
            ("hello world", 2, 2),
            ("Alden is the capital of Eldoria.", 9, 10),
            // Ordinary text, never the one special token.
            ("<|endoftext|>", 7, 7),
            ("日本語のテキスト", 6, 8),
        ];
        for (text, in_o200k, in_cl100k) in cases {
            assert_eq!(
                (o200k.count_tokens(text), cl100k.count_tokens(text)),
                (*in_o200k, *in_cl100k),
                "{text:?}"
            );
        }
    }
}
