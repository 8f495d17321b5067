//! Store failures: request faults are recoverable, workspace faults stop the run.

use agent_domain::ErrorCode;
use serde_json::json;

use super::*;
use crate::tools::ToolFailure;
use crate::tools::workspace::errors::{Access, store_failure};

fn code(failure: ToolFailure) -> String {
    match failure {
        ToolFailure::Recoverable { code, .. } => code,
        ToolFailure::Fatal(fault) => format!("fatal {}", fault.code),
    }
}

#[tokio::test]
async fn each_store_error_maps_to_its_code() {
    let h = Harness::new().await;
    let p = path("output/a.md");
    let cases = [
        (
            WorkspaceError::NotFound(p.clone()),
            Access::Browse,
            "workspace.path_not_found",
        ),
        (
            WorkspaceError::NotFound(p.clone()),
            Access::File,
            "workspace.file_not_found",
        ),
        (
            WorkspaceError::IsDirectory(p.clone()),
            Access::File,
            "workspace.path_is_directory",
        ),
        (
            WorkspaceError::NotText(p.clone()),
            Access::File,
            "workspace.file_not_text",
        ),
        (
            WorkspaceError::AlreadyExists(p.clone()),
            Access::File,
            "workspace.write_requires_read",
        ),
        (
            WorkspaceError::VersionMismatch {
                path: p.clone(),
                current: None,
            },
            Access::File,
            "workspace.write_stale_file",
        ),
        (
            WorkspaceError::VersionMismatch {
                path: p.clone(),
                current: Some("x".into()),
            },
            Access::File,
            "workspace.write_stale_file",
        ),
        (
            WorkspaceError::ReadOnly(p.clone()),
            Access::File,
            "workspace.path_not_writable",
        ),
        (
            WorkspaceError::Integrity("symlink".into()),
            Access::File,
            "fatal workspace.integrity_violation",
        ),
        (
            WorkspaceError::Io("disk".into()),
            Access::Browse,
            "fatal workspace.io_error",
        ),
    ];
    for (error, access, expected) in cases {
        let shown = format!("{error:?}");
        assert_eq!(
            code(store_failure(error, access, &h.invocation)),
            expected,
            "{shown}"
        );
    }
    let ToolFailure::Recoverable { message, .. } = store_failure(
        WorkspaceError::VersionMismatch {
            path: p,
            current: None,
        },
        Access::File,
        &h.invocation,
    ) else {
        panic!("recoverable expected");
    };
    assert!(message.contains("was deleted"), "{message}");
}

#[tokio::test]
async fn workspace_faults_stop_the_run() {
    for error in [
        WorkspaceError::Integrity("`output/a.md` is a symlink".into()),
        WorkspaceError::Io("disk full".into()),
    ] {
        let memory = Arc::new(MemoryWorkspace::new());
        let store = Interfering::new(memory.clone(), Interference::Fail(error.clone()));
        let mut h = Harness::with_store(memory, store).await;
        let calls = [
            (LIST, json!({})),
            (LIST, json!({"path": "output"})),
            (SEARCH, json!({"query": "x"})),
            (READ, json!({"path": "output/a.md"})),
            (WRITE, json!({"path": "output/a.md", "content": "x"})),
            (
                WRITE,
                json!({"path": "output/a.md", "content": "x", "mode": "append"}),
            ),
            (
                PATCH,
                json!({"path": "output/a.md", "old_string": "a", "new_string": "b"}),
            ),
        ];
        for (tool, args) in calls {
            let fault = h.call(tool, args).await.unwrap_err();
            assert_eq!(fault.code, error.code(), "{tool:?}");
        }
    }
}
