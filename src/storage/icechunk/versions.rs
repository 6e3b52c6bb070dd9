//! Commits and the description of a repository's versions.
//!
//! Conflicts: a commit never rebases. When the branch moved since the handle's session
//! began (another writer committed), the commit fails with
//! [`StorageError::CommitConflict`] and nothing is committed. Icechunk could try to
//! rebase the session onto the new tip, but libzarr's writes are not all blind: a write
//! of part of a chunk merged the elements it did not cover from the session's snapshot,
//! and attribute and metadata updates were read-modify-writes. A rebase would keep those
//! merged values over what the other writer committed whenever the two touched different
//! Icechunk-level objects that overlap in meaning, so the safe answer is to let the
//! caller reopen (from the new tip) and write again.

use super::open::{message, OpenedVersion};
use super::store::IcechunkStore;
use crate::storage::{ReadableStorage, StorageError, VersionControl};
use futures_util::TryStreamExt as _;
use icechunk::repository::{RepositoryErrorKind, VersionInfo};
use icechunk::session::SessionErrorKind;
use icechunk::Store;
use serde_json::{json, Map, Value};
use std::sync::Arc;

impl IcechunkStore {
    fn repository_failure(&self, what: &str, detail: String) -> StorageError {
        StorageError::Repository {
            location: self.location(),
            message: format!("{what}: {detail}"),
        }
    }
}

/// The file in a local repository's directory that commits lock.
const COMMIT_LOCK: &str = ".libzarr-commit.lock";

/// An exclusive lock, across processes, on a local repository's commits. Icechunk
/// updates a branch with a conditional write, which object stores make atomic but its
/// local file system storage does not (it warns that local repositories are not safe
/// for concurrent commits): two commits racing on one branch could both succeed, the
/// second one silently dropping the first from the branch's history. Holding this lock
/// from before the commit reads the branch until after it moved the branch makes the
/// later commit see the earlier one and fail with a conflict, as on an object store.
/// It serialises libzarr's commits only: other programs (icechunk-python) do not take it.
struct CommitLock {
    _file: std::fs::File,
}

impl CommitLock {
    fn acquire(root: &std::path::Path) -> std::io::Result<CommitLock> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(root.join(COMMIT_LOCK))?;
        crate::sys::file_lock::lock_exclusive(&file)?;
        Ok(CommitLock { _file: file })
    }
}

/// Whether a commit failure is a lost race with another writer.
fn is_conflict(kind: &SessionErrorKind) -> bool {
    matches!(
        kind,
        SessionErrorKind::Conflict { .. }
            | SessionErrorKind::RebaseFailed { .. }
            | SessionErrorKind::RepositoryError(
                RepositoryErrorKind::Conflict { .. }
                    | RepositoryErrorKind::RepoInfoUpdated
                    | RepositoryErrorKind::RepoUpdateAttemptsLimit(_)
            )
    )
}

impl VersionControl for IcechunkStore {
    fn commit(&self, message_text: &str) -> Result<String, StorageError> {
        let OpenedVersion::Branch(branch) = &self.version else {
            return Err(StorageError::ReadOnly);
        };
        if !self.writable() {
            return Err(StorageError::ReadOnly);
        }
        // One commit at a time per handle, and no operation of another thread in
        // flight: they finish before the commit (and are in it) or start after it, in
        // the next session. Holding the slot keeps a write from landing in a session
        // that was already committed.
        let _commit = self
            .commit_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut slot = self
            .store
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let session = slot.session();
        let _repository_lock = match &self.local_root {
            Some(root) => Some(CommitLock::acquire(root).map_err(|e| {
                self.repository_failure(
                    &format!(
                        "cannot lock '{}' for the commit",
                        root.join(COMMIT_LOCK).display()
                    ),
                    e.to_string(),
                )
            })?),
            None => None,
        };
        let id = self.block_on(async {
            let mut session = session.write().await;
            if !session.has_uncommitted_changes() {
                return Err(StorageError::NothingToCommit {
                    location: self.location(),
                });
            }
            session.commit(message_text).execute().await.map_err(|e| {
                if is_conflict(e.kind()) {
                    StorageError::CommitConflict {
                        location: self.location(),
                        detail: message(&e),
                    }
                } else {
                    self.repository_failure("commit", message(&e))
                }
            })
        })?;
        // Keep working on the branch: a new writable session from the new tip.
        let next = self
            .block_on(async {
                let session = self.repository.writable_session(branch).await?;
                Ok::<_, icechunk::repository::RepositoryError>(
                    Store::from_session(Arc::new(tokio::sync::RwLock::new(session))).await,
                )
            })
            .map_err(|e| {
                self.repository_failure(
                    &format!("committed snapshot {id}, but cannot start the next session"),
                    message(&e),
                )
            })?;
        *slot = next;
        Ok(id.to_string())
    }

    fn versions_json(&self) -> Result<String, StorageError> {
        let store = self.current();
        let session = store.session();
        let repo = &self.repository;
        let failed = |e: icechunk::repository::RepositoryError| {
            self.repository_failure("reading its versions", message(&e))
        };
        let (snapshot, branches, tags, history) = self
            .block_on(async {
                let snapshot = session.read().await.snapshot_id().clone();
                let mut branches = Map::new();
                for name in repo.list_branches().await? {
                    let id = repo.lookup_branch(&name).await?;
                    branches.insert(name, Value::String(id.to_string()));
                }
                let mut tags = Map::new();
                for name in repo.list_tags().await? {
                    let id = repo.lookup_tag(&name).await?;
                    tags.insert(name, Value::String(id.to_string()));
                }
                let history: Vec<_> = repo
                    .ancestry(&VersionInfo::SnapshotId(snapshot.clone()))
                    .await?
                    .try_collect()
                    .await?;
                Ok((snapshot, branches, tags, history))
            })
            .map_err(failed)?;
        let opened = match &self.version {
            OpenedVersion::Branch(name) => json!({ "branch": name }),
            OpenedVersion::Tag(name) => json!({ "tag": name }),
            OpenedVersion::Snapshot(id) => json!({ "snapshot": id }),
        };
        let history: Vec<Value> = history
            .iter()
            .map(|info| {
                json!({
                    "id": info.id.to_string(),
                    "message": info.message,
                    "written_at": info.flushed_at.to_rfc3339(),
                })
            })
            .collect();
        let document = json!({
            "format": "icechunk",
            "spec_version": repo.spec_version() as u8,
            "opened": opened,
            "snapshot": snapshot.to_string(),
            "branches": branches,
            "tags": tags,
            "history": history,
        });
        Ok(document.to_string())
    }
}
