//! Provider adapters: parsing a streamed response of 100 tool calls, per provider, from the
//! server-sent events' `data` text to the finished `ToolCall`s, against a baseline that only
//! parses each event into a `serde_json::Value` (the least any client does with a stream).
//!
//! Run with `cargo bench -p tool-core --bench providers`. Criterion reports each side; the
//! closing lines print, per provider, the median time per stream and per event of both sides
//! measured interleaved in the same run, and their ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{Value, json};
use tool_core::provider::{SameNames, anthropic, gemini, openai_chat, openai_responses};

const CALLS: usize = 100;

/// The arguments of call `i`, in the pieces a model streams them in (about a token each).
fn fragments(i: usize) -> Vec<String> {
    let arguments = format!(
        r#"{{"path": "src/module_{i}/lib.rs", "pattern": "fn handle_{i}\\(", "context": 3, "case_insensitive": false}}"#
    );
    let chars: Vec<char> = arguments.chars().collect();
    chars
        .chunks(6)
        .map(|piece| piece.iter().collect())
        .collect()
}

fn data(value: &Value) -> String {
    value.to_string()
}

/// A chat completion stream: each call's first delta with its id and name, then its argument
/// fragments, the calls one after another as OpenAI sends them.
fn openai_chat_stream() -> Vec<String> {
    let chunk = |delta: Value| {
        data(
            &json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4o", "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]}),
        )
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": null}))];
    for i in 0..CALLS {
        events.push(chunk(
            json!({"tool_calls": [{"index": i, "id": format!("call_{i}"),
            "type": "function", "function": {"name": "grep", "arguments": ""}}]}),
        ));
        for piece in fragments(i) {
            events.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
            ));
        }
    }
    events.push("[DONE]".to_owned());
    events
}

/// A responses stream: per call, `output_item.added`, argument deltas, `.done` and
/// `output_item.done`.
fn openai_responses_stream() -> Vec<String> {
    let mut events = Vec::new();
    for i in 0..CALLS {
        let pieces = fragments(i);
        let arguments: String = pieces.concat();
        let item = |arguments: &str, status: &str| {
            json!({"id": format!("fc_{i}"), "type": "function_call", "status": status,
                "arguments": arguments, "call_id": format!("call_{i}"), "name": "grep"})
        };
        events.push(data(
            &json!({"type": "response.output_item.added", "sequence_number": 0,
            "output_index": i, "item": item("", "in_progress")}),
        ));
        for piece in pieces {
            events.push(data(&json!({"type": "response.function_call_arguments.delta",
                "sequence_number": 0, "item_id": format!("fc_{i}"), "output_index": i, "delta": piece})));
        }
        events.push(data(&json!({"type": "response.function_call_arguments.done",
            "sequence_number": 0, "item_id": format!("fc_{i}"), "output_index": i, "arguments": arguments})));
        events.push(data(
            &json!({"type": "response.output_item.done", "sequence_number": 0,
            "output_index": i, "item": item(&arguments, "completed")}),
        ));
    }
    events
}

/// A messages stream: per call, `content_block_start`, `input_json_delta` fragments and
/// `content_block_stop`.
fn anthropic_stream() -> Vec<String> {
    let mut events = vec![data(
        &json!({"type": "message_start", "message": {"id": "msg_1",
        "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4"}}),
    )];
    for i in 0..CALLS {
        events.push(data(
            &json!({"type": "content_block_start", "index": i, "content_block":
            {"type": "tool_use", "id": format!("toolu_{i}"), "name": "grep", "input": {}}}),
        ));
        for piece in fragments(i) {
            events.push(data(&json!({"type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta", "partial_json": piece}})));
        }
        events.push(data(&json!({"type": "content_block_stop", "index": i})));
    }
    events.push(data(&json!({"type": "message_stop"})));
    events
}

/// A `streamGenerateContent` stream: Gemini sends each call whole, one chunk per call.
fn gemini_stream() -> Vec<String> {
    (0..CALLS)
        .map(|i| {
            let args: Value = serde_json::from_str(&fragments(i).concat()).expect("valid");
            data(
                &json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "grep", "args": args}, "thoughtSignature": "c2lnbmF0dXJl"}
            ]}, "index": 0}], "modelVersion": "gemini-3-pro-preview"}),
            )
        })
        .collect()
}

fn baseline(events: &[String]) -> usize {
    events
        .iter()
        .filter_map(|event| serde_json::from_str::<Value>(event).ok())
        .count()
}

fn parse_openai_chat(events: &[String]) -> usize {
    let mut stream = openai_chat::StreamAccumulator::new();
    for event in events {
        stream.push_json(event).expect("a chunk");
    }
    stream.finish(&SameNames).expect("complete").len()
}

fn parse_openai_responses(events: &[String]) -> usize {
    let mut stream = openai_responses::StreamAccumulator::new();
    for event in events {
        stream.push_json(event).expect("an event");
    }
    stream.finish(&SameNames).len()
}

fn parse_anthropic(events: &[String]) -> usize {
    let mut stream = anthropic::StreamAccumulator::new();
    for event in events {
        stream.push_json(event).expect("an event");
    }
    stream.finish(&SameNames).len()
}

fn parse_gemini(events: &[String]) -> usize {
    let mut stream = gemini::StreamAccumulator::new();
    for event in events {
        stream.push_json(event).expect("a chunk");
    }
    stream.finish(&SameNames).len()
}

type Parser = fn(&[String]) -> usize;

fn providers() -> Vec<(&'static str, Vec<String>, Parser)> {
    vec![
        ("openai_chat", openai_chat_stream(), parse_openai_chat),
        (
            "openai_responses",
            openai_responses_stream(),
            parse_openai_responses,
        ),
        ("anthropic", anthropic_stream(), parse_anthropic),
        ("gemini", gemini_stream(), parse_gemini),
    ]
}

fn criterion_benches(c: &mut Criterion) {
    for (provider, events, parse) in providers() {
        assert_eq!(parse(&events), CALLS, "{provider}: every call comes out");
        let mut group = c.benchmark_group(format!("stream_100_calls/{provider}"));
        group.bench_function("baseline_value_parse", |b| {
            b.iter(|| baseline(black_box(&events)));
        });
        group.bench_function("accumulate", |b| b.iter(|| parse(black_box(&events))));
        group.finish();
    }
}

/// Times `rounds` alternating runs of both sides; returns the medians and the median ratio.
fn interleaved(events: &[String], parse: Parser, rounds: usize) -> (Duration, Duration, f64) {
    let (mut bases, mut ours, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        black_box(baseline(black_box(events)));
        let base = start.elapsed();
        let start = Instant::now();
        black_box(parse(black_box(events)));
        let mine = start.elapsed();
        ratios.push(mine.as_secs_f64() / base.as_secs_f64());
        bases.push(base);
        ours.push(mine);
    }
    bases.sort();
    ours.sort();
    ratios.sort_by(f64::total_cmp);
    (bases[rounds / 2], ours[rounds / 2], ratios[rounds / 2])
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    criterion_benches(&mut criterion);
    criterion.final_summary();
    println!("parsing a streamed response of {CALLS} tool calls (median of 101 interleaved runs):");
    for (provider, events, parse) in providers() {
        let (base, ours, ratio) = interleaved(&events, parse, 101);
        let per_event = |total: Duration| total / u32::try_from(events.len()).expect("small");
        println!(
            "  {provider:<17} {} events: accumulate {ours:?} ({:?}/event), \
             Value baseline {base:?} ({:?}/event), ratio {ratio:.2}x",
            events.len(),
            per_event(ours),
            per_event(base),
        );
    }
}
