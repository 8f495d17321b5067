//! Wire codec cost: encoding a 200-message agent conversation into each format's request
//! body, and decoding one response of that format into a canonical turn.
//!
//! * `encode/<format>`: the 200-message request → the request body (a `serde_json::Value`).
//! * `decode/<format>`: one response body (reasoning, text and two tool calls) → the
//!   canonical turn.
//! * `roundtrip/<format>`: the same encode, then the body serialised with
//!   `serde_json::to_vec`, plus the response parsed from bytes with
//!   `serde_json::from_slice` and decoded — what one model call costs in this crate,
//!   network aside.
//!
//! The conversation is the same script for every format: a system prompt, a user task,
//! then rounds of one assistant turn (reasoning, a short text, one or two calls to the
//! default writer's workspace tools) followed by one tool message per call, with results
//! from a few hundred bytes to a few KB. Each format's history is built by *decoding*
//! response bodies of that format through its own decoder, so the assistant turns carry
//! exactly the native parts the encoder replays: signed thinking blocks for Anthropic, the
//! `thoughtSignature`d model parts for Gemini, signed thought steps for Gemini Interactions,
//! reasoning items with `encrypted_content` for Responses, `reasoning_content` for Chat
//! Completions (DeepSeek dialect, the one that replays reasoning). The two stateful formats
//! (Responses, Interactions) are encoded stateless: `store: false`, the whole transcript.
//!
//! All text is generated from a fixed seed, so every run measures the same bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use agent_application::ports::ModelError;
use agent_domain::connection::ChatDialect;
use agent_domain::model::{
    AgentModelMessage, AgentModelRequest, AgentModelResponse, GenerationParameters, ModelRole,
    ProviderState, ReasoningEffort,
};
use agent_domain::tool::{AgentModelTool, AgentToolResult, ToolChoice};
use agent_gateway::continuation::Continuation;
use agent_gateway::gemini::SchemaMode;
use agent_gateway::{anthropic, gemini, gemini_interactions, openai_chat, openai_responses};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

#[path = "../tests/support/tools.rs"]
mod tools;
use tools::tools;

/// Messages in the benchmarked request, system and user prompt included.
const MESSAGES: usize = 200;

/// Seed of the text generator.
const SEED: u64 = 0x7a17_c0de_5eed_2026;

/// Criterion samples of the benches that encode the whole request.
const WHOLE_REQUEST_SAMPLES: usize = 50;

/// Index of the round whose response the `decode` benches use; outside the conversation.
const SAMPLE_ROUND: usize = 900;

// ---------------------------------------------------------------------------------------
// Deterministic text
// ---------------------------------------------------------------------------------------

const WORDS: &[&str] = &[
    "the",
    "lantern",
    "harbour",
    "night",
    "captain",
    "river",
    "silence",
    "letter",
    "storm",
    "keeper",
    "tavern",
    "door",
    "stranger",
    "map",
    "bell",
    "tide",
    "whisper",
    "shadow",
    "road",
    "winter",
    "ember",
    "glass",
    "promise",
    "orchard",
    "mill",
    "stone",
    "was",
    "were",
    "had",
    "could",
    "would",
    "never",
    "slowly",
    "again",
    "under",
    "beyond",
    "across",
    "toward",
    "and",
    "but",
    "while",
    "because",
    "a",
    "an",
    "of",
    "in",
    "with",
    "her",
    "his",
    "their",
    "old",
    "quiet",
    "bright",
    "broken",
    "distant",
    "cold",
    "warm",
    "hidden",
    "lost",
    "familiar",
    "walked",
    "listened",
    "remembered",
    "opened",
    "waited",
    "turned",
    "smiled",
    "carried",
    "watched",
    "forgot",
    "answered",
    "followed",
];

const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// A small xorshift generator: the same bytes on every machine.
struct Prose(u64);

impl Prose {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    fn sentence(&mut self) -> String {
        let words = self.between(7, 18);
        let mut sentence = String::new();
        for n in 0..words {
            let word = WORDS[self.between(0, WORDS.len() - 1)];
            if n == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    sentence.extend(first.to_uppercase());
                    sentence.push_str(chars.as_str());
                }
            } else {
                sentence.push(' ');
                sentence.push_str(word);
            }
        }
        sentence.push('.');
        sentence
    }

    /// Paragraphs of sentences, at least `min_bytes` long.
    fn text(&mut self, min_bytes: usize) -> String {
        let mut text = String::new();
        let mut in_paragraph = 0;
        while text.len() < min_bytes {
            if in_paragraph == 4 {
                text.push_str("\n\n");
                in_paragraph = 0;
            } else if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&self.sentence());
            in_paragraph += 1;
        }
        text
    }

    /// Text of a length drawn from `low..=high` bytes (approximately: whole sentences).
    fn text_between(&mut self, low: usize, high: usize) -> String {
        let bytes = self.between(low, high);
        self.text(bytes)
    }

    /// An opaque base64-looking token (signatures, encrypted reasoning).
    fn token(&mut self, low: usize, high: usize) -> String {
        let len = self.between(low, high);
        (0..len)
            .map(|_| char::from(BASE64[(self.next() % 64) as usize]))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// The conversation script, independent of any format
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Kind {
    Read,
    Write,
    Search,
    Patch,
    List,
}

/// The order in which an agent run tends to use its tools: mostly reading and writing.
const KIND_CYCLE: &[Kind] = &[
    Kind::Read,
    Kind::Write,
    Kind::Search,
    Kind::Read,
    Kind::Patch,
    Kind::Write,
    Kind::List,
    Kind::Read,
];

/// One planned tool call: what the model asks for and what the tool answers.
struct PlannedCall {
    alias: &'static str,
    arguments: Value,
    result: String,
}

/// One assistant round of the script, rendered by each format into its own response.
struct Round {
    index: usize,
    reasoning: String,
    text: String,
    /// Anthropic thinking signature, Gemini `thoughtSignature`.
    signature: String,
    /// Responses `encrypted_content`.
    sealed: String,
    calls: Vec<PlannedCall>,
}

fn path_for(prose: &mut Prose) -> String {
    match prose.between(0, 5) {
        0 => "notes/outline.md".to_owned(),
        1 => "notes/characters.md".to_owned(),
        2 => "notes/world.md".to_owned(),
        n => format!("output/chapter-{:02}.md", n * 3 + prose.between(0, 2)),
    }
}

fn planned_call(prose: &mut Prose, kind: Kind) -> PlannedCall {
    let path = path_for(prose);
    match kind {
        Kind::Read => {
            let body = prose.text_between(900, 3800);
            let numbered: Vec<String> = body
                .lines()
                .enumerate()
                .map(|(n, line)| format!("{} | {line}", n + 1))
                .collect();
            PlannedCall {
                alias: "workspace_read_file",
                arguments: json!({"path": path}),
                result: format!(
                    "{path} ({} bytes, {} lines)\n\n{}",
                    body.len(),
                    numbered.len(),
                    numbered.join("\n")
                ),
            }
        }
        Kind::Write => {
            let content = prose.text_between(1500, 4000);
            PlannedCall {
                alias: "workspace_write_file",
                result: format!(
                    "Wrote {path} ({} bytes, {} lines, mode replace). The file is now {} \
                     bytes; its previous version was kept as a checkpoint. Commit it with \
                     workspace_commit when the chapter is ready.",
                    content.len(),
                    content.lines().count(),
                    content.len()
                ),
                arguments: json!({"path": path, "content": content, "mode": "replace"}),
            }
        }
        Kind::Search => {
            let query = WORDS[prose.between(0, WORDS.len() - 1)];
            let hits = prose.between(2, 6);
            let mut result = format!("{hits} matches for \"{query}\" in notes/:\n");
            for _ in 0..hits {
                let start = prose.between(1, 180);
                let hit = path_for(prose);
                result.push_str(&format!(
                    "\nworkspace:{hit}#L{start}-L{}\n> {}\n",
                    start + 2,
                    prose.text_between(120, 260)
                ));
            }
            PlannedCall {
                alias: "workspace_search_files",
                arguments: json!({"query": query, "path": "notes/"}),
                result,
            }
        }
        Kind::Patch => {
            let old = prose.sentence();
            let new = prose.text_between(80, 300);
            PlannedCall {
                alias: "workspace_apply_patch",
                result: format!(
                    "Patched {path}: 1 replacement.\n\n- {old}\n+ {new}\n\nThe file is now \
                     {} bytes.",
                    prose.between(2000, 9000)
                ),
                arguments: json!({"path": path, "old_string": old, "new_string": new}),
            }
        }
        Kind::List => {
            let mut result = String::from(".\n");
            for folder in ["notes", "output"] {
                result.push_str(&format!("├── {folder}/\n"));
                for _ in 0..prose.between(3, 9) {
                    result.push_str(&format!(
                        "│   ├── {} ({} bytes)\n",
                        path_for(prose).rsplit('/').next().unwrap_or_default(),
                        prose.between(300, 12_000)
                    ));
                }
            }
            PlannedCall {
                alias: "workspace_list_files",
                arguments: json!({"path": "", "depth": 2}),
                result,
            }
        }
    }
}

fn plan_round(prose: &mut Prose, index: usize, kinds: &[Kind]) -> Round {
    Round {
        index,
        reasoning: prose.text_between(200, 700),
        text: prose.text_between(60, 280),
        signature: prose.token(300, 700),
        sealed: prose.token(1200, 2600),
        calls: kinds.iter().map(|&k| planned_call(prose, k)).collect(),
    }
}

/// Rounds of one or two calls, alternately, each followed by one tool message per call,
/// until the request holds exactly [`MESSAGES`] messages (it ends on tool results: the
/// request the agent sends next).
fn plan(prose: &mut Prose) -> Vec<Round> {
    let mut rounds = Vec::new();
    let mut count = 2; // system + user
    let mut kind = 0;
    while count < MESSAGES {
        let left = MESSAGES - count;
        let wanted = if rounds.len() % 2 == 0 { 1 } else { 2 };
        // Never leave a single message over: it could not hold a round.
        let calls = match left {
            2 | 3 => left - 1,
            4 => 1,
            _ => wanted,
        };
        let kinds: Vec<Kind> = (0..calls)
            .map(|n| KIND_CYCLE[(kind + n) % KIND_CYCLE.len()])
            .collect();
        kind += calls;
        rounds.push(plan_round(prose, rounds.len(), &kinds));
        count += 1 + calls;
    }
    assert_eq!(count, MESSAGES);
    rounds
}

fn opening(prose: &mut Prose) -> Vec<AgentModelMessage> {
    let system = format!(
        "You are a writer working in a private workspace. Read the notes before you write, \
         keep chapters under output/, and commit when a chapter is done.\n\n{}",
        prose.text(1800)
    );
    let task = format!(
        "Write the next three chapters of the story.\n\n{}",
        prose.text(600)
    );
    vec![
        AgentModelMessage::system(system),
        AgentModelMessage::user(task),
    ]
}

/// A provider call id, unique per round and position, stable across runs.
fn call_suffix(round: usize, position: usize) -> String {
    let mut x = ((round as u64) << 8 | position as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    format!("{x:016x}{round:03}{position}")
}

/// The arguments as a JSON string, for the formats that carry them that way.
fn argument_string(call: &PlannedCall) -> String {
    call.arguments.to_string()
}

// ---------------------------------------------------------------------------------------
// Response bodies per format
// ---------------------------------------------------------------------------------------

/// Chat Completions, DeepSeek thinking mode: `reasoning_content` beside the text.
fn chat_response(round: &Round) -> Value {
    let calls: Vec<Value> = round
        .calls
        .iter()
        .enumerate()
        .map(|(n, call)| {
            json!({
                "id": format!("call_{}", call_suffix(round.index, n)),
                "type": "function",
                "function": {"name": call.alias, "arguments": argument_string(call)},
            })
        })
        .collect();
    json!({
        "id": format!("chatcmpl-{}", call_suffix(round.index, 9)),
        "object": "chat.completion",
        "created": 1_770_933_900 + round.index,
        "model": "deepseek-reasoner",
        "system_fingerprint": "fp_bench",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": round.text,
                "reasoning_content": round.reasoning,
                "tool_calls": calls,
            },
            "logprobs": null,
            "finish_reason": "tool_calls",
        }],
        "usage": {
            "prompt_tokens": 18_000 + round.index * 900,
            "completion_tokens": 700,
            "total_tokens": 18_700 + round.index * 900,
            "prompt_tokens_details": {"cached_tokens": 16_000 + round.index * 880},
            "completion_tokens_details": {"reasoning_tokens": 420},
        },
    })
}

/// Responses: a reasoning item with `encrypted_content` and a summary, a preamble message,
/// then the function calls.
fn responses_response(round: &Round) -> Value {
    let id = call_suffix(round.index, 9);
    let mut output = vec![
        json!({
            "id": format!("rs_{id}"),
            "type": "reasoning",
            "encrypted_content": round.sealed,
            "summary": [{"type": "summary_text", "text": round.reasoning}],
        }),
        json!({
            "id": format!("msg_{id}"),
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": round.text}],
        }),
    ];
    for (n, call) in round.calls.iter().enumerate() {
        let suffix = call_suffix(round.index, n);
        output.push(json!({
            "id": format!("fc_{suffix}"),
            "type": "function_call",
            "status": "completed",
            "arguments": argument_string(call),
            "call_id": format!("call_{suffix}"),
            "name": call.alias,
        }));
    }
    json!({
        "id": format!("resp_{id}"),
        "object": "response",
        "created_at": 1_765_552_659 + round.index,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-5",
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "store": false,
        "usage": {
            "input_tokens": 18_000 + round.index * 900,
            "input_tokens_details": {"cached_tokens": 16_000 + round.index * 880},
            "output_tokens": 700,
            "output_tokens_details": {"reasoning_tokens": 420},
            "total_tokens": 18_700 + round.index * 900,
        },
    })
}

/// Anthropic Messages: a signed thinking block, text, then `tool_use` blocks.
fn anthropic_response(round: &Round) -> Value {
    let mut content = vec![
        json!({"type": "thinking", "thinking": round.reasoning, "signature": round.signature}),
        json!({"type": "text", "text": round.text}),
    ];
    for (n, call) in round.calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use",
            "id": format!("toolu_{}", call_suffix(round.index, n)),
            "name": call.alias,
            "input": call.arguments,
        }));
    }
    json!({
        "model": "claude-sonnet-4-5-20250929",
        "id": format!("msg_{}", call_suffix(round.index, 9)),
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {
            "input_tokens": 900,
            "cache_creation_input_tokens": 1_200,
            "cache_read_input_tokens": 16_000 + round.index * 880,
            "output_tokens": 700,
            "service_tier": "standard",
        },
    })
}

/// Gemini `generateContent`: a thought summary part, text, then function calls without
/// ids (the decoder mints them), the first one carrying the turn's `thoughtSignature`.
fn gemini_response(round: &Round) -> Value {
    let mut parts = vec![
        json!({"text": round.reasoning, "thought": true}),
        json!({"text": round.text}),
    ];
    for (n, call) in round.calls.iter().enumerate() {
        let mut part = json!({"functionCall": {"name": call.alias, "args": call.arguments}});
        if n == 0 {
            part["thoughtSignature"] = json!(round.signature);
        }
        parts.push(part);
    }
    json!({
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": 18_000 + round.index * 900,
            "cachedContentTokenCount": 16_000 + round.index * 880,
            "candidatesTokenCount": 280,
            "thoughtsTokenCount": 420,
            "totalTokenCount": 18_700 + round.index * 900,
        },
        "modelVersion": "gemini-3-pro-preview",
        "responseId": format!("G{}", call_suffix(round.index, 9)),
    })
}

/// Gemini Interactions, stateless (`store: false`, so the interaction has no id): a signed
/// thought step with its summary, a `model_output` step, then `function_call` steps with
/// their ids, the first one signed too.
fn interactions_response(round: &Round) -> Value {
    let mut steps = vec![
        json!({
            "type": "thought",
            "signature": round.signature,
            "summary": [{"type": "text", "text": round.reasoning}],
        }),
        json!({"type": "model_output", "content": [{"type": "text", "text": round.text}]}),
    ];
    for (n, call) in round.calls.iter().enumerate() {
        let mut step = json!({
            "type": "function_call",
            "id": &call_suffix(round.index, n)[..8],
            "name": call.alias,
            "arguments": call.arguments,
        });
        if n == 0 {
            step["signature"] = json!(round.signature);
        }
        steps.push(step);
    }
    json!({
        "status": "requires_action",
        "usage": {
            "total_tokens": 18_700 + round.index * 900,
            "total_input_tokens": 18_000 + round.index * 900,
            "input_tokens_by_modality": [{"modality": "text", "tokens": 18_000 + round.index * 900}],
            "total_cached_tokens": 16_000 + round.index * 880,
            "total_output_tokens": 280,
            "total_tool_use_tokens": 0,
            "total_thought_tokens": 420,
        },
        "created": "2026-05-15T18:52:00Z",
        "updated": "2026-05-15T18:52:00Z",
        "service_tier": "standard",
        "steps": steps,
        "object": "interaction",
        "model": "gemini-3-pro-preview",
    })
}

// ---------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------

type Encode = fn(&AgentModelRequest, &Map<String, Value>) -> Result<Value, ModelError>;
type Decode = fn(&Value, &[AgentModelTool]) -> Result<AgentModelResponse, ModelError>;

struct Format {
    name: &'static str,
    respond: fn(&Round) -> Value,
    encode: Encode,
    decode: Decode,
}

fn formats() -> Vec<Format> {
    vec![
        Format {
            name: "openai_chat",
            respond: chat_response,
            encode: |request, params| {
                openai_chat::encode(request, "deepseek-reasoner", ChatDialect::Deepseek, params)
            },
            decode: openai_chat::decode,
        },
        Format {
            name: "openai_responses",
            respond: responses_response,
            encode: |request, params| {
                openai_responses::encode(request, "gpt-5", params, false, Continuation::Full)
            },
            decode: openai_responses::decode,
        },
        Format {
            name: "anthropic",
            respond: anthropic_response,
            encode: |request, params| anthropic::encode(request, "claude-sonnet-4-5", params),
            decode: anthropic::decode,
        },
        Format {
            name: "gemini",
            respond: gemini_response,
            encode: |request, params| gemini::encode(request, params, SchemaMode::JsonSchema),
            decode: gemini::decode,
        },
        Format {
            name: "gemini_interactions",
            respond: interactions_response,
            encode: |request, params| {
                gemini_interactions::encode(
                    request,
                    "gemini-3-pro-preview",
                    params,
                    false,
                    Continuation::Full,
                )
            },
            decode: gemini_interactions::decode,
        },
    ]
}

/// Everything one format's benches need, built once.
struct Fixture {
    format: Format,
    request: AgentModelRequest,
    params: Map<String, Value>,
    response: Value,
    response_bytes: Vec<u8>,
}

/// The script as this format's history: every assistant turn is what the format's decoder
/// made of the format's own response, followed by one tool message per call.
fn fixture(
    format: Format,
    opening: &[AgentModelMessage],
    rounds: &[Round],
    sample: &Round,
    tools: &[AgentModelTool],
) -> Fixture {
    let mut messages = opening.to_vec();
    for round in rounds {
        let turn = (format.decode)(&(format.respond)(round), tools)
            .unwrap_or_else(|e| panic!("{}: round {}: {e}", format.name, round.index));
        let calls: Vec<_> = turn.message.tool_calls().into_iter().cloned().collect();
        assert_eq!(calls.len(), round.calls.len(), "{}", format.name);
        messages.push(turn.message);
        for (invocation, planned) in calls.iter().zip(&round.calls) {
            messages.push(AgentModelMessage::tool_result(AgentToolResult::success(
                invocation,
                planned.result.clone(),
                Value::Null,
            )));
        }
    }
    assert_eq!(messages.len(), MESSAGES, "{}", format.name);
    let request = AgentModelRequest {
        messages: messages.into(),
        tools: tools.to_vec().into(),
        tool_choice: ToolChoice::Auto,
        provider_state: ProviderState::initial("run_bench", "inv_root"),
        parameters: GenerationParameters {
            max_output_tokens: Some(8192),
            reasoning_effort: Some(ReasoningEffort::Medium),
            reasoning_budget_tokens: Some(4096),
            ..GenerationParameters::default()
        },
    };
    let params = Map::new();
    // Fail here, not inside a timing loop, if the history is not valid for the format.
    (format.encode)(&request, &params).unwrap_or_else(|e| panic!("{}: {e}", format.name));
    let response = (format.respond)(sample);
    let turn = (format.decode)(&response, tools).unwrap();
    assert_eq!(turn.message.role, ModelRole::Assistant);
    assert_eq!(turn.tool_calls().len(), 2, "{}", format.name);
    assert!(!turn.text().is_empty() && !turn.reasoning_text().is_empty());
    let response_bytes = serde_json::to_vec(&response).unwrap();
    Fixture {
        format,
        request,
        params,
        response,
        response_bytes,
    }
}

fn fixtures() -> Vec<Fixture> {
    let mut prose = Prose(SEED);
    let opening = opening(&mut prose);
    let rounds = plan(&mut prose);
    let sample = plan_round(&mut prose, SAMPLE_ROUND, &[Kind::Read, Kind::Write]);
    let tools = tools();
    formats()
        .into_iter()
        .map(|format| fixture(format, &opening, &rounds, &sample, &tools))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Benches
// ---------------------------------------------------------------------------------------

fn codec(c: &mut Criterion) {
    let fixtures = fixtures();

    // Whole-request benches take about a millisecond: 50 samples fit the short settings
    // (`--measurement-time 3`) without criterion asking for more time.
    let mut group = c.benchmark_group("encode");
    group.sample_size(WHOLE_REQUEST_SAMPLES);
    for f in &fixtures {
        group.bench_function(f.format.name, |b| {
            b.iter(|| (f.format.encode)(black_box(&f.request), black_box(&f.params)).unwrap())
        });
    }
    group.finish();

    let mut group = c.benchmark_group("decode");
    for f in &fixtures {
        group.bench_function(f.format.name, |b| {
            b.iter(|| {
                (f.format.decode)(black_box(&f.response), black_box(&f.request.tools)).unwrap()
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("roundtrip");
    group.sample_size(WHOLE_REQUEST_SAMPLES);
    for f in &fixtures {
        group.bench_function(f.format.name, |b| {
            b.iter(|| {
                let body = (f.format.encode)(black_box(&f.request), black_box(&f.params)).unwrap();
                let sent = serde_json::to_vec(&body).unwrap();
                let received: Value = serde_json::from_slice(black_box(&f.response_bytes)).unwrap();
                let turn = (f.format.decode)(&received, &f.request.tools).unwrap();
                (sent, turn)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
