//! Stdio servers: the child process runs in its own process group, which is killed when the
//! session ends (closed or dropped), so no server or grandchild (`npx` spawns node) is left
//! behind. Its stdout is read through a line-length bound, so one oversized response ends
//! the session with `mcp.response_too_large` instead of growing without limit.

use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use agent_domain::mcp::{McpError, McpErrorKind, McpValue, NamedValue};
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The running child; killing its group on drop is what guarantees cleanup.
#[derive(Debug)]
pub(crate) struct ChildGuard {
    child: Child,
    group: Option<Pid>,
}

impl ChildGuard {
    /// Kills the whole process group and reaps the child.
    pub(crate) async fn kill(mut self) {
        self.kill_group();
        let _ = self.child.wait().await;
    }

    fn kill_group(&mut self) {
        if let Some(group) = self.group.take() {
            // The group may already be gone; there is nothing else to do then.
            let _ = kill_process_group(group, Signal::KILL);
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// What a spawn hands back: the guard, the bounded stdout, stdin, and the flag the bound sets.
pub(crate) struct Spawned {
    pub guard: ChildGuard,
    pub stdout: BoundedLines<ChildStdout>,
    pub stdin: ChildStdin,
    pub oversized: Arc<AtomicBool>,
}

/// Starts `program` in a new process group with piped stdin/stdout; stderr is discarded.
pub(crate) fn spawn(
    program: &str,
    args: &[String],
    env: &[NamedValue],
    cwd: Option<&str>,
    max_line_bytes: usize,
) -> Result<Spawned, McpError> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    for entry in env {
        command.env(&entry.name, resolve(entry)?);
    }
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = command.spawn().map_err(|error| {
        McpError::new(
            McpErrorKind::SpawnFailed,
            format!("could not start MCP server `{program}`: {error}"),
        )
    })?;
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw);
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(McpError::new(
            McpErrorKind::SpawnFailed,
            format!("MCP server `{program}` started without piped stdio"),
        ));
    };
    let oversized = Arc::new(AtomicBool::new(false));
    Ok(Spawned {
        guard: ChildGuard { child, group },
        stdout: BoundedLines {
            inner: stdout,
            line: 0,
            limit: max_line_bytes,
            oversized: Arc::clone(&oversized),
        },
        stdin,
        oversized,
    })
}

/// The value of an env entry or header; a `FromEnv` reads tavern-agent's environment now.
pub(crate) fn resolve(entry: &NamedValue) -> Result<String, McpError> {
    match &entry.value {
        McpValue::Literal(value) => Ok(value.clone()),
        McpValue::FromEnv(var) => std::env::var(var).map_err(|_| {
            McpError::new(
                McpErrorKind::EnvVarMissing,
                format!(
                    "`{}` takes its value from environment variable `{var}`, which is not set",
                    entry.name
                ),
            )
        }),
    }
}

/// A reader that fails once a line grows past `limit` bytes, setting `oversized`.
#[derive(Debug)]
pub(crate) struct BoundedLines<R> {
    inner: R,
    line: usize,
    limit: usize,
    oversized: Arc<AtomicBool>,
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                for &byte in &buf.filled()[before..] {
                    this.line = if byte == b'\n' { 0 } else { this.line + 1 };
                    if this.line > this.limit {
                        this.oversized.store(true, Ordering::SeqCst);
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "MCP response exceeds the response size limit",
                        )));
                    }
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}
