//! [`TextEngines`]: the application's `LoreEngines` port over this crate's regex engine and
//! tokenizers, for hosts to wire.

use std::sync::Arc;

use agent_application::ports::{EngineUnavailable, LoreEngines};
use agent_domain::ErrorCode;
use agent_domain::worldinfo::{KeyRegexEngine, TokenCounter};

use crate::{Encoding, JsRegexEngine, TiktokenCounter};

/// JavaScript regex keys and tiktoken token counts, as world info needs them.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextEngines {
    regex: JsRegexEngine,
}

impl TextEngines {
    pub fn new() -> Self {
        Self::default()
    }
}

impl LoreEngines for TextEngines {
    fn regex(&self) -> &(dyn KeyRegexEngine + Send + Sync) {
        &self.regex
    }

    /// The encoding of `model`'s family ([`Encoding::for_model`]); `cl100k_base` without one.
    fn tokenizer(
        &self,
        model: Option<&str>,
    ) -> Result<Arc<dyn TokenCounter + Send + Sync>, EngineUnavailable> {
        let encoding = model.map_or_else(Encoding::default, Encoding::for_model);
        TiktokenCounter::new(encoding)
            .map(|counter| Arc::new(counter) as Arc<dyn TokenCounter + Send + Sync>)
            .map_err(|err| EngineUnavailable {
                code: err.code(),
                message: err.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engines_count_with_the_models_encoding_and_compile_js_regexes() {
        let engines = TextEngines::new();
        let gpt4o = engines.tokenizer(Some("gpt-4o")).unwrap();
        let default = engines.tokenizer(None).unwrap();
        assert_eq!(gpt4o.count_tokens("hello world"), 2);
        assert_eq!(default.count_tokens("hello world"), 2);
        let regex = engines.regex().compile("(?<=Sera)phina", "i").unwrap();
        assert!(regex.is_match("SERAPHINA"));
    }
}
