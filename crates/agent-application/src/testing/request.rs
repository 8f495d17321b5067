//! [`snapshot_request`]: the run request runtime tests and benches start from, so each
//! states only what it varies.

use agent_domain::event::{ChatRef, ModelBindingMode, ModelBindingResolvedPayload};
use agent_domain::run::GenerationType;
use serde_json::{Value, json};

use crate::prompt::PromptInput;
use crate::runtime::{ModelLabel, RunRequest};
use crate::scene::SceneRequest;

/// A normal generation on `chat` with the default profile, whose prompt is a snapshot of
/// `messages` (chat-completion shape), bound in script mode to `provider` and `model`.
pub fn snapshot_request(chat: ChatRef, provider: &str, model: &str, messages: Value) -> RunRequest {
    RunRequest {
        chat,
        profile_id: None,
        generation_type: GenerationType::Normal,
        presentation: None,
        prompt: PromptInput::Snapshot(json!({
            "chatCompletionPayload": { "messages": messages }
        })),
        model_label: ModelLabel {
            provider_format: Some(provider.into()),
            model: Some(model.into()),
            api: None,
        },
        model_binding: ModelBindingResolvedPayload {
            invocation_id: "inv_root".into(),
            mode: ModelBindingMode::Script,
            connection: None,
            provider_format: Some(provider.into()),
            model_id: None,
        },
        scene: SceneRequest::default(),
    }
}
