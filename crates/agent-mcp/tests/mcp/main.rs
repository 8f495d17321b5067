//! agent-mcp against a real MCP server built here on rmcp's server side, over stdio and
//! Streamable HTTP, plus stdio fixtures that write malformed JSON-RPC or well-formed answers of the wrong
//! shape.
//!
//! This binary is its own server: with `AGENT_MCP_TEST_SERVER` set it serves (see
//! `server.rs`) instead of testing, so the tests start it as a child process and no other
//! crate is needed. Without it, `main` runs every test in [`TESTS`] (a name given on the
//! command line runs only the tests whose names contain it) and fails if any fails.

// Without libtest's `#[test]` clippy cannot tell these functions are tests, so the
// workspace's test exemptions for the panic family are stated here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod server;
mod tests;

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;

type TestFn = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("no tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match std::env::var("AGENT_MCP_TEST_SERVER").as_deref() {
        Ok("stdio") => runtime.block_on(server::stdio()),
        Ok("http") => runtime.block_on(server::http()),
        Ok("malformed") => runtime.block_on(server::malformed()),
        Ok("wrong_shape") => runtime.block_on(server::wrong_shape()),
        _ => return run_tests(&runtime),
    }
    ExitCode::SUCCESS
}

fn run_tests(runtime: &tokio::runtime::Runtime) -> ExitCode {
    // libtest flags (`--nocapture`, `-q`, ...) are accepted and ignored.
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let selected: Vec<_> = tests::TESTS
        .iter()
        .filter(|(name, _)| filter.as_deref().is_none_or(|f| name.contains(f)))
        .collect();
    println!("running {} tests", selected.len());
    let mut failed = Vec::new();
    for (name, test) in selected {
        let outcome = runtime.block_on(runtime.spawn(test()));
        match outcome {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    if failed.is_empty() {
        println!("test result: ok");
        ExitCode::SUCCESS
    } else {
        println!("test result: FAILED: {failed:?}");
        ExitCode::FAILURE
    }
}
