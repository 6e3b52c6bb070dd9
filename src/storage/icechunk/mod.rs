//! Icechunk repositories (`icechunk+file://`, `icechunk+s3://`, `icechunk+gs://`,
//! `icechunk+az://`): a versioned, transactional store, read and written through the
//! `icechunk` crate (its `Repository`, sessions and zarr-key `Store`).
//!
//! A handle opens one version: the tip of a branch (writable: a writable session whose
//! writes no other reader sees until [`VersionControl::commit`]), or a tag or snapshot
//! (read-only). The crate is async; each store owns a small private tokio runtime and
//! blocks on it, so the store traits stay synchronous (as the Azure store does).
//!
//! - [`open`]: where the repository is, the options, opening or creating it and picking
//!   the version.
//! - [`store`]: the adapter from libzarr's store traits to `icechunk::Store`.
//! - [`versions`]: commits and the description of the repository's versions.
//!
//! [`VersionControl::commit`]: crate::storage::VersionControl::commit

pub mod open;
pub mod store;
pub mod versions;

pub use open::{open, Location, OpenedVersion};
pub use store::IcechunkStore;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::remote::{OpenError, UrlOptions};
    use crate::storage::{
        ByteRange, ListableStorage, ReadableStorage, StorageError, WritableStorage,
    };
    use std::path::PathBuf;

    /// A fresh directory for one test's repository.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("libzarr-icechunk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn options(json: &str) -> UrlOptions {
        UrlOptions::parse(json, crate::storage::remote::Scheme::IcechunkFile).unwrap()
    }

    fn open_at(dir: &std::path::Path, json: &str) -> Result<IcechunkStore, OpenError> {
        let url = format!("icechunk+file://{}", dir.display());
        open(Location::File(dir.to_path_buf()), &url, &options(json))
    }

    const GROUP: &[u8] = br#"{"zarr_format":3,"node_type":"group","attributes":{}}"#;
    const ARRAY: &[u8] = br#"{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,"codecs":[{"name":"bytes"}],"attributes":{}}"#;

    #[test]
    fn create_write_commit_reopen_read() {
        let dir = scratch("roundtrip");
        assert!(matches!(open_at(&dir, "{}"), Err(OpenError::NotFound(m)) if m.contains("create")));
        let store = open_at(&dir, r#"{"create": true}"#).unwrap();
        store.set("zarr.json", GROUP).unwrap();
        store.set("a/zarr.json", ARRAY).unwrap();
        store.set("a/c/0", &[1, 2]).unwrap();
        store.set("a/c/1", &[3, 4]).unwrap();
        assert_eq!(store.get("a/c/1").unwrap().unwrap(), [3, 4]);
        assert_eq!(store.get("a/c/9").unwrap(), None);
        assert_eq!(store.get("b/zarr.json").unwrap(), None);
        // Another handle does not see uncommitted writes.
        let other = open_at(&dir, "{}").unwrap();
        assert_eq!(other.get("a/c/0").unwrap(), None);
        let vc = store.version_control().unwrap();
        let id = vc.commit("first").unwrap();
        assert!(matches!(
            vc.commit("again"),
            Err(StorageError::NothingToCommit { .. })
        ));
        // The handle keeps working after the commit.
        store.set("a/c/0", &[9, 9]).unwrap();
        let second = vc.commit("second").unwrap();
        assert_ne!(id, second);

        let reader = open_at(&dir, "{}").unwrap();
        assert_eq!(reader.get("a/c/0").unwrap().unwrap(), [9, 9]);
        assert_eq!(reader.get("a/c/1").unwrap().unwrap(), [3, 4]);
        assert_eq!(reader.value_size("a/c/1").unwrap(), Some(2));
        assert_eq!(
            reader
                .get_range("a/c/1", ByteRange::Suffix { length: 1 })
                .unwrap()
                .unwrap(),
            [4]
        );
        let past_end = reader.get_range(
            "a/c/1",
            ByteRange::FromStart {
                offset: 1,
                length: 5,
            },
        );
        assert!(
            matches!(
                past_end,
                Err(StorageError::RangeOutOfBounds { size: 2, .. })
            ),
            "{past_end:?}"
        );
        let (_, bytes) = reader
            .read_ranges(
                "a/c/0",
                &[
                    ByteRange::FromStart {
                        offset: 1,
                        length: 1,
                    },
                    ByteRange::FromStart {
                        offset: 0,
                        length: 1,
                    },
                ],
            )
            .unwrap()
            .unwrap();
        assert_eq!(bytes, [9, 9]);
        let root = reader.list_dir("").unwrap();
        assert_eq!(root.keys, ["zarr.json"]);
        assert_eq!(root.prefixes, ["a"]);
        let chunks = reader.list_dir("a/c/").unwrap();
        assert_eq!(chunks.keys, ["0", "1"]);

        // The first version, by snapshot id: read-only, with the old chunk.
        let old = open_at(&dir, &format!(r#"{{"snapshot": "{id}"}}"#)).unwrap();
        assert_eq!(old.get("a/c/0").unwrap().unwrap(), [1, 2]);
        assert!(matches!(
            old.set("a/c/0", &[0, 0]),
            Err(StorageError::ReadOnly)
        ));
        assert!(matches!(
            old.version_control().unwrap().commit("x"),
            Err(StorageError::ReadOnly)
        ));
        let json: serde_json::Value =
            serde_json::from_str(&reader.version_control().unwrap().versions_json().unwrap())
                .unwrap();
        assert_eq!(json["format"], "icechunk");
        assert_eq!(json["spec_version"], 2);
        assert_eq!(json["opened"]["branch"], "main");
        assert_eq!(json["snapshot"], second.as_str());
        assert_eq!(json["branches"]["main"], second.as_str());
        let history = json["history"].as_array().unwrap();
        // The two commits and the repository's initial snapshot.
        assert_eq!(history.len(), 3, "{json}");
        assert_eq!(history[0]["message"], "second");
        assert_eq!(history[1]["id"], id.as_str());
        // Erasing, within a session.
        reader.erase("a/c/0").unwrap();
        assert_eq!(reader.get("a/c/0").unwrap(), None);
        reader.erase_prefix("a/").unwrap();
        assert_eq!(reader.get("a/zarr.json").unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_writers_of_one_branch_conflict() {
        let dir = scratch("conflict");
        let first = open_at(&dir, r#"{"create": true}"#).unwrap();
        first.set("zarr.json", GROUP).unwrap();
        first.version_control().unwrap().commit("root").unwrap();
        let a = open_at(&dir, "{}").unwrap();
        let b = open_at(&dir, "{}").unwrap();
        a.set("x/zarr.json", GROUP).unwrap();
        b.set("y/zarr.json", GROUP).unwrap();
        a.version_control().unwrap().commit("a").unwrap();
        let lost = b.version_control().unwrap().commit("b");
        assert!(
            matches!(&lost, Err(StorageError::CommitConflict { .. })),
            "{lost:?}"
        );
        let message = lost.unwrap_err().to_string();
        assert!(message.contains("reopen the store"), "{message}");
        // Nothing of b's was committed.
        let reader = open_at(&dir, "{}").unwrap();
        assert!(reader.get("x/zarr.json").unwrap().is_some());
        assert_eq!(reader.get("y/zarr.json").unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn versions_and_bad_options() {
        let dir = scratch("options");
        let store = open_at(&dir, r#"{"create": true}"#).unwrap();
        store.set("zarr.json", GROUP).unwrap();
        store.version_control().unwrap().commit("root").unwrap();
        for (json, expected) in [
            (r#"{"branch": "nope"}"#, "branch nope"),
            (r#"{"tag": "v9"}"#, "tag v9"),
        ] {
            match open_at(&dir, json) {
                Err(OpenError::NotFound(m)) => assert!(m.contains(expected), "{m}"),
                other => panic!("{json}: {other:?}"),
            }
        }
        for json in [
            r#"{"branch": "main", "tag": "v1"}"#,
            r#"{"snapshot": "not-an-id"}"#,
            r#"{"tag": "v1", "create": true}"#,
            r#"{"virtual_chunk_prefixes": ["ftp://x/"]}"#,
        ] {
            assert!(
                matches!(open_at(&dir, json), Err(OpenError::InvalidArgument(_))),
                "{json}"
            );
        }
        // A tag: read-only, and described as what was opened.
        let id = icechunk::format::SnapshotId::try_from(
            store
                .version_control()
                .unwrap()
                .versions_json()
                .map(|j| {
                    serde_json::from_str::<serde_json::Value>(&j).unwrap()["snapshot"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .unwrap()
                .as_str(),
        )
        .unwrap();
        store
            .runtime
            .block_on(store.repository.create_tag("v1", &id))
            .unwrap();
        let tagged = open_at(&dir, r#"{"tag": "v1"}"#).unwrap();
        assert!(tagged.get("zarr.json").unwrap().is_some());
        assert!(matches!(
            tagged.set("b/zarr.json", GROUP),
            Err(StorageError::ReadOnly)
        ));
        assert!(matches!(
            tagged.version_control().unwrap().commit("m"),
            Err(StorageError::ReadOnly)
        ));
        let json: serde_json::Value =
            serde_json::from_str(&tagged.version_control().unwrap().versions_json().unwrap())
                .unwrap();
        assert_eq!(json["opened"]["tag"], "v1");
        assert_eq!(json["tags"]["v1"], id.to_string().as_str());
        assert!(
            tagged.location().contains("(tag v1)"),
            "{}",
            tagged.location()
        );
        let read_only = open_at(&dir, r#"{"read_only": true}"#).unwrap();
        assert!(read_only.get("zarr.json").unwrap().is_some());
        assert!(matches!(
            read_only.set("a/zarr.json", GROUP),
            Err(StorageError::ReadOnly)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn virtual_chunks_only_under_the_authorized_prefixes() {
        use icechunk::format::manifest::{VirtualChunkLocation, VirtualChunkRef};
        use icechunk::virtual_chunks::VirtualChunkContainer;
        use icechunk::{ObjectStoreConfig, Repository, RepositoryConfig};
        let dir = scratch("virtual");
        let data = dir.join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("chunk.bin"), [5u8, 6]).unwrap();
        let prefix = format!("file://{}/", data.display());
        // A repository declaring the container, with one virtual chunk in it, made with
        // Icechunk's own API (libzarr does not write virtual references).
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let storage = icechunk::new_local_filesystem_storage(&dir.join("repo"))
                .await
                .unwrap();
            let mut config = RepositoryConfig::default();
            config
                .set_virtual_chunk_container(
                    VirtualChunkContainer::new(
                        prefix.clone(),
                        ObjectStoreConfig::LocalFileSystem(data.clone()),
                    )
                    .unwrap(),
                )
                .unwrap();
            let repo = Repository::create(storage)
                .config(config)
                .execute()
                .await
                .unwrap();
            repo.save_config().await.unwrap();
            let session = repo.writable_session("main").await.unwrap();
            let store = icechunk::Store::from_session(std::sync::Arc::new(
                tokio::sync::RwLock::new(session),
            ))
            .await;
            store
                .set("zarr.json", bytes::Bytes::from_static(GROUP))
                .await
                .unwrap();
            store
                .set("a/zarr.json", bytes::Bytes::from_static(ARRAY))
                .await
                .unwrap();
            let location = VirtualChunkLocation::from_url(&format!("{prefix}chunk.bin")).unwrap();
            let reference = VirtualChunkRef {
                location,
                offset: 0,
                length: 2,
                checksum: None,
            };
            store
                .set_virtual_ref("a/c/0", reference, true)
                .await
                .unwrap();
            let session = store.session();
            let mut session = session.write().await;
            session.commit("virtual").execute().await.unwrap();
        });
        let repo = dir.join("repo");
        let refused = open_at(&repo, "{}").unwrap().get("a/c/0");
        match refused {
            Err(StorageError::Repository { message, .. }) => {
                assert!(message.contains(&prefix), "{message}");
                assert!(message.contains("virtual_chunk_prefixes"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let allowed = open_at(
            &repo,
            &format!(r#"{{"virtual_chunk_prefixes": ["{prefix}"]}}"#),
        )
        .unwrap();
        assert_eq!(allowed.get("a/c/0").unwrap().unwrap(), [5, 6]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
