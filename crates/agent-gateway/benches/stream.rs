//! Streamed-answer cost: one answer of 2,000 deltas per streaming format, read from its
//! server-sent events bytes to the canonical turn.
//!
//! * `stream/<format>`: SSE parsing (`eventsource-stream`), the format's assembler (live
//!   deltas plus the rebuilt unstreamed body) and the format's decoder — what a streamed
//!   call costs in this crate, network aside.
//!
//! Each answer: 1,000 reasoning fragments, 800 text fragments and one tool call whose
//! arguments arrive in 200 fragments (Gemini sends calls whole, so its 2,000 deltas are
//! 1,100 reasoning and 900 text parts plus the call). Every event is its own network chunk,
//! the worst case for the parser.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::convert::Infallible;
use std::hint::black_box;

use agent_application::ports::{ModelDelta, ModelError};
use agent_domain::model::AgentModelResponse;
use agent_domain::tool::AgentModelTool;
use agent_gateway::http::Redactor;
use agent_gateway::sse::{self, Assembled, Assembler};
use agent_gateway::{anthropic, gemini, openai_chat, openai_responses};
use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::{Value, json};

#[path = "../tests/support/tools.rs"]
mod tools;
use tools::tools;

const REASONING: usize = 1_000;
const TEXT: usize = 800;
const ARGUMENT_FRAGMENTS: usize = 200;
const ALIAS: &str = "workspace_write_file";

/// The tool call's argument JSON, cut into `ARGUMENT_FRAGMENTS` pieces.
fn argument_fragments() -> Vec<String> {
    let content = "The lamp flickers; Alice counts the keys twice. ".repeat(20);
    let arguments = json!({"path": "output/main.md", "content": content}).to_string();
    let size = arguments.len().div_ceil(ARGUMENT_FRAGMENTS);
    arguments
        .as_bytes()
        .chunks(size)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect()
}

fn word(i: usize) -> String {
    format!("w{} ", i % 97)
}

fn events(data: impl IntoIterator<Item = Value>) -> Vec<String> {
    data.into_iter().map(|d| format!("data: {d}\n\n")).collect()
}

fn chat() -> Vec<String> {
    let chunk = |delta: Value| json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    let mut data: Vec<Value> = (0..REASONING)
        .map(|i| chunk(json!({"reasoning_content": word(i)})))
        .collect();
    data.extend((0..TEXT).map(|i| chunk(json!({"content": word(i)}))));
    data.push(chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": ALIAS, "arguments": ""}}]}),
    ));
    data.extend(
        argument_fragments()
            .into_iter()
            .map(|f| chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": f}}]}))),
    );
    data.push(
        json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    );
    data.push(json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2000}}));
    let mut all = events(data);
    all.push("data: [DONE]\n\n".into());
    all
}

fn responses() -> Vec<String> {
    let reasoning: String = (0..REASONING).map(word).collect();
    let text: String = (0..TEXT).map(word).collect();
    let arguments: String = argument_fragments().concat();
    let items = [
        json!({"id": "rs_1", "type": "reasoning", "encrypted_content": "gAAA", "summary": [{"type": "summary_text", "text": reasoning}]}),
        json!({"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]}),
        json!({"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": ALIAS, "arguments": arguments}),
    ];
    let mut data =
        vec![json!({"type": "response.created", "response": {"id": "r1", "output": []}})];
    data.extend((0..REASONING).map(|i| json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "delta": word(i)})));
    data.push(json!({"type": "response.output_item.done", "output_index": 0, "item": items[0]}));
    data.extend((0..TEXT).map(
        |i| json!({"type": "response.output_text.delta", "output_index": 1, "delta": word(i)}),
    ));
    data.push(json!({"type": "response.output_item.done", "output_index": 1, "item": items[1]}));
    data.push(json!({"type": "response.output_item.added", "output_index": 2, "item": {"type": "function_call", "name": ALIAS}}));
    data.extend(argument_fragments().into_iter().map(|f| json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": f})));
    data.push(json!({"type": "response.output_item.done", "output_index": 2, "item": items[2]}));
    data.push(json!({"type": "response.completed", "response": {"id": "r1", "object": "response", "status": "completed", "model": "m", "output": items, "usage": {"input_tokens": 9, "output_tokens": 2000}}}));
    events(data)
}

fn anthropic_events() -> Vec<String> {
    let delta = |index: usize, delta: Value| json!({"type": "content_block_delta", "index": index, "delta": delta});
    let mut data = vec![
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "usage": {"input_tokens": 9, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    ];
    data.extend(
        (0..REASONING).map(|i| delta(0, json!({"type": "thinking_delta", "thinking": word(i)}))),
    );
    data.push(delta(
        0,
        json!({"type": "signature_delta", "signature": "EvQBsig"}),
    ));
    data.push(json!({"type": "content_block_stop", "index": 0}));
    data.push(json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}));
    data.extend((0..TEXT).map(|i| delta(1, json!({"type": "text_delta", "text": word(i)}))));
    data.push(json!({"type": "content_block_stop", "index": 1}));
    data.push(json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_1", "name": ALIAS, "input": {}}}));
    data.extend(
        argument_fragments()
            .into_iter()
            .map(|f| delta(2, json!({"type": "input_json_delta", "partial_json": f}))),
    );
    data.push(json!({"type": "content_block_stop", "index": 2}));
    data.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2000}}));
    data.push(json!({"type": "message_stop"}));
    events(data)
}

fn gemini_events() -> Vec<String> {
    let chunk = |part: Value| json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}], "responseId": "g1", "modelVersion": "m"});
    let mut data: Vec<Value> = (0..REASONING + ARGUMENT_FRAGMENTS / 2)
        .map(|i| chunk(json!({"text": word(i), "thought": true})))
        .collect();
    data.extend((0..TEXT + ARGUMENT_FRAGMENTS / 2).map(|i| chunk(json!({"text": word(i)}))));
    let arguments: Value = serde_json::from_str(&argument_fragments().concat()).unwrap();
    let mut last = chunk(
        json!({"functionCall": {"id": "fc1", "name": ALIAS, "args": arguments}, "thoughtSignature": "sig"}),
    );
    last["candidates"][0]["finishReason"] = json!("STOP");
    last["usageMetadata"] = json!({"promptTokenCount": 9, "candidatesTokenCount": 2000});
    data.push(last);
    events(data)
}

type Decode = fn(&Value, &[AgentModelTool]) -> Result<AgentModelResponse, ModelError>;

/// A fresh assembler of one format.
type NewAssembler = fn(Redactor) -> Box<dyn Assembler>;

/// Reads `chunks` through a fresh assembler and decodes the rebuilt body.
fn read(
    chunks: &[String],
    assembler: Box<dyn Assembler>,
    decode: Decode,
    tools: &[AgentModelTool],
) -> (usize, AgentModelResponse) {
    let bytes = futures::stream::iter(chunks.iter().map(|c| Ok::<_, Infallible>(c.as_bytes())));
    let mut stream = sse::assemble(bytes, assembler, |e: Infallible| match e {});
    futures::executor::block_on(async {
        let mut deltas = 0;
        while let Some(item) = stream.next().await {
            match item.unwrap() {
                Assembled::Deltas(batch) => {
                    deltas += batch
                        .iter()
                        .filter(|d| !matches!(d, ModelDelta::Usage(_)))
                        .count();
                }
                Assembled::Body(body) => return (deltas, decode(&body, tools).unwrap()),
            }
        }
        panic!("no body");
    })
}

fn stream(c: &mut Criterion) {
    let tools = tools();
    let redactor = || Redactor::new(Vec::<String>::new());
    let formats: [(&str, Vec<String>, NewAssembler, Decode); 4] = [
        (
            "openai-chat",
            chat(),
            |r| Box::new(openai_chat::ChatAssembler::new(r)),
            openai_chat::decode,
        ),
        (
            "openai-responses",
            responses(),
            |r| Box::new(openai_responses::ResponsesAssembler::new(r)),
            openai_responses::decode,
        ),
        (
            "anthropic",
            anthropic_events(),
            |r| Box::new(anthropic::AnthropicAssembler::new(r)),
            anthropic::decode,
        ),
        (
            "gemini",
            gemini_events(),
            |r| Box::new(gemini::GeminiAssembler::new(r)),
            gemini::decode,
        ),
    ];
    let mut group = c.benchmark_group("stream");
    for (name, chunks, assembler, decode) in formats {
        let (deltas, response) = read(&chunks, assembler(redactor()), decode, &tools);
        assert!(deltas >= 2_000, "{name}: {deltas} deltas");
        assert_eq!(response.message.tool_calls().len(), 1, "{name}");
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(read(
                    black_box(&chunks),
                    assembler(redactor()),
                    decode,
                    &tools,
                ))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, stream);
criterion_main!(benches);
