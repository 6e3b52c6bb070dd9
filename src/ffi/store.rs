//! `zarr_store`: opening and freeing stores.

use super::args::{clear_out, handle, out_ptr, str_arg, write_out};
use super::boundary::run;
use super::error::FfiError;
use super::handle::zarr_store;
use super::status::zarr_status;
use super::strings::owned_c_string;
use crate::consolidated::ConsolidatedStore;
use crate::error::Error;
use crate::storage::{FilesystemStore, MemoryStore, StorageError, UpdateProtection, ZipStore};
use std::ffi::c_char;
use std::sync::Arc;

/// Open a store on the local file system rooted at the directory `path`.
///
/// The directory need not exist: it is created by the first write. Key `a/b/c` is the
/// file `<path>/a/b/c`.
///
/// Writes: every write goes to a temporary file `.libzarr-tmp-<pid>-<n>-<random>` in the
/// destination directory, created exclusively, then renamed into place. Readers never see
/// a torn chunk or metadata file, and any number of handles, threads and processes may
/// write disjoint regions of one array at once, whether or not the regions share chunks
/// or shards: a write that covers part of a chunk (or shard) reads, merges and rewrites
/// it holding an exclusive lock on that chunk across processes (an open file description
/// lock on a lock file `.libzarr-lock-<name>` beside it, removed afterwards), so no
/// writer's elements are lost. Writes of whole chunks take no lock, and reads never wait.
/// The kernel drops the lock of a process that dies; its lock file stays until the next
/// update of that chunk. Temporary and lock files left behind by a killed process are
/// ignored by reads and listings and never block later writes; they may be deleted when
/// no writer is running. See `zarr_store_write_protection` and, for network file
/// systems and the option that turns locking off, `zarr_store_open_url`.
///
/// Crashes: if the process dies, every chunk and metadata file holds its old or its new
/// value. Nothing is fsync'ed (`zarr_store_open_url` with the option `fsync` does that),
/// so after a power loss or kernel crash the writes of about
/// the last half minute may be lost, and on some file systems a file written in that
/// window may be left empty or partly written (reads of it then fail with
/// `ZARR_ERROR_CORRUPT_DATA` for compressed or checksummed chunks).
///
/// Links and special files: keys resolve beneath the root. Symbolic links below the root
/// are not followed, wherever they point (`zarr_store_open_url` with the option
/// `follow_symlinks` follows them); a key whose path crosses one fails with
/// `ZARR_ERROR_INVALID_PATH` naming the link, and listings (`zarr_group_children_json`...)
/// leave links out. The root `path` itself, and the directories above it, may be links.
/// Only regular files hold values: a FIFO, socket or device at a key fails with
/// `ZARR_ERROR_IO` ("not a regular file") without blocking or reading it.
///
/// - `path`: NUL-terminated UTF-8 directory path (absolute or relative to the current
///   directory, which is resolved now).
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `path` or `out` is NULL;
/// `ZARR_ERROR_INVALID_ARGUMENT` if `path` is empty or not UTF-8; `ZARR_ERROR_IO` if
/// `path` exists and is not a directory. Later calls on the store may fail with
/// `ZARR_ERROR_IO` (the operating system's error, or a special file),
/// `ZARR_ERROR_INVALID_PATH` (a symbolic link on the way) or `ZARR_ERROR_RESOURCE` (out of
/// file descriptors).
///
/// Ownership: the store holds no open file between calls. Thread safety: any number of
/// threads may use the store at once.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_filesystem(
    path: *const c_char,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_filesystem", || {
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        if path.is_empty() {
            return Err(FfiError::InvalidArgument("argument 'path' is empty".into()));
        }
        let root = std::path::absolute(path)
            .map_err(|e| FfiError::InvalidArgument(format!("cannot resolve path '{path}': {e}")))?;
        let storage = FilesystemStore::new(root).map_err(Error::from)?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(storage),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Open a read-only store over the zip archive at `path` (a whole Zarr hierarchy shipped
/// as one `.zip` file).
///
/// The archive's central directory is read and checked once, here; reads then use
/// positioned reads of the one open file. Entries may be stored (uncompressed: a byte range
/// of a chunk or shard reads just those bytes) or deflated (the entry is inflated, bounded
/// by its declared size and checked against its CRC-32). Zip64 archives are supported.
///
/// Root detection: a hierarchy zipped "from within" has its `zarr.json` at the top of the
/// archive; one zipped "from the parent folder" has every entry under one directory
/// (`data.zarr/zarr.json`, ...). When the archive has no top-level metadata entry
/// (`zarr.json`, `.zgroup`, `.zarray`, `.zattrs`, `.zmetadata`) and every entry lies under
/// one top-level directory, that directory is the root: group and array paths are relative
/// to it (`"/"` is `data.zarr/`). Directory entries (names ending in `/`) are not values.
///
/// The store is read-only: every write through it (`zarr_array_create`, `zarr_array_write`,
/// `zarr_group_create`, setting attributes...) fails with `ZARR_ERROR_READ_ONLY`.
///
/// - `path`: NUL-terminated UTF-8 path of the zip file (absolute or relative to the current
///   directory, which is resolved now).
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `path` or `out` is NULL;
/// `ZARR_ERROR_INVALID_ARGUMENT` if `path` is empty or not UTF-8; `ZARR_ERROR_NOT_FOUND` if
/// no file exists at `path`; `ZARR_ERROR_CORRUPT_DATA` if the file is not a zip archive, its
/// central directory is damaged or truncated, or the archive is hostile (an entry name that
/// is absolute or has an empty, `.` or `..` segment, two entries with the same name, an
/// entry whose data lies past the end of the file); `ZARR_ERROR_UNSUPPORTED` for multi-disk
/// archives; `ZARR_ERROR_IO` if the file cannot be read (a directory, no permission).
/// Later reads of an entry may return `ZARR_ERROR_CORRUPT_DATA` (bad CRC, an entry that
/// inflates to another size than it declares) or `ZARR_ERROR_UNSUPPORTED` (encrypted
/// entries, compression methods other than stored and deflate).
///
/// Ownership: the store keeps the file open until the store and every array and group
/// opened from it are freed. Thread safety: the store may be read from any number of
/// threads at once.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_zip(
    path: *const c_char,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_zip", || {
        // SAFETY: per this function's contract.
        let path = unsafe { str_arg(path, "path") }?;
        let out = out_ptr(out, "out")?;
        if path.is_empty() {
            return Err(FfiError::InvalidArgument("argument 'path' is empty".into()));
        }
        let file = std::path::absolute(path)
            .map_err(|e| FfiError::InvalidArgument(format!("cannot resolve path '{path}': {e}")))?;
        let storage = ZipStore::open(&file).map_err(|e| match e {
            StorageError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                FfiError::NotFound(format!("no zip file at '{}': {source}", file.display()))
            }
            other => FfiError::from(Error::from(other)),
        })?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(storage),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Open a new, empty in-memory store. Its contents live as long as the store handle or
/// any array or group opened from it.
///
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`, or `ZARR_ERROR_NULL_ARGUMENT` if `out` is NULL.
///
/// # Safety
/// `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_memory(out: *mut *mut zarr_store) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_memory", || {
        let out = out_ptr(out, "out")?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(MemoryStore::new()),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Open a view of `store` that reads node metadata from the consolidated metadata at the
/// store root: the root `zarr.json`'s inline `consolidated_metadata` (Zarr v3, as
/// zarr-python writes it) or `.zmetadata` (Zarr v2).
///
/// The consolidated metadata is read once, now; afterwards opening any array or group
/// through the view costs no store read for metadata (chunks are still read from
/// `store`). The snapshot is authoritative: a node it does not list is not found, even if
/// it was added to the store later. Writes through the view go to `store`; metadata
/// written through the view also updates the view's snapshot, but not the consolidated
/// document (call `zarr_group_consolidate` for that).
///
/// - `store`: the underlying store; the view keeps it alive.
/// - `out`: receives the view, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT`; `ZARR_ERROR_NOT_FOUND` (no consolidated
/// metadata at the root); `ZARR_ERROR_INVALID_METADATA` (malformed consolidated
/// metadata); `ZARR_ERROR_UNSUPPORTED` (a `consolidated_metadata` kind other than
/// "inline"); `ZARR_ERROR_IO`.
///
/// # Safety
/// `store` is NULL or a live handle; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_consolidated(
    store: *const zarr_store,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_consolidated", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        let out = out_ptr(out, "out")?;
        let view = ConsolidatedStore::open(store.storage.clone())?;
        let handle = Box::new(zarr_store {
            storage: Arc::new(view),
        });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// Free a store handle. Accepts NULL. Arrays and groups opened from the store keep it
/// alive, so they may be freed before or after it.
///
/// # Safety
/// `store` is NULL or a handle from a `zarr_store_open_*` function, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn zarr_store_free(store: *mut zarr_store) {
    if !store.is_null() {
        // SAFETY: the handle came from Box::into_raw and is freed once, per the contract.
        drop(unsafe { Box::from_raw(store) });
    }
}

/// Open the store a URL names: an S3-compatible object store, Google Cloud Storage, Azure
/// Blob Storage, a plain HTTP(S) server, or a local directory.
///
/// URLs:
/// - `s3://bucket` or `s3://bucket/prefix`: keys are objects under `prefix/` in `bucket`,
///   read with byte-range GETs, written with one PUT per value (multipart upload, in
///   parts of 8 MiB sent concurrently, above 16 MiB; a failed upload is aborted, never
///   left half-written), erased with DELETE, listed with ListObjectsV2. Requests are
///   signed with AWS Signature Version 4 unless `anonymous` is true or no credentials are
///   found. With an `endpoint` (MinIO, Ceph, moto, any S3-compatible service) URLs are
///   path-style (`endpoint/bucket/key`) unless `force_path_style` is false; AWS itself is
///   addressed as `https://bucket.s3.<region>.amazonaws.com`.
/// - `http://host[:port]/path` and `https://...`: a read-only store of the files below
///   that URL (`GET path/key`). HTTP has no listing, so hierarchy listings fail with
///   `ZARR_ERROR_UNSUPPORTED`: open the hierarchy through its consolidated metadata
///   (`zarr_store_open_consolidated`, one request) or open nodes by path. Writes fail with
///   `ZARR_ERROR_READ_ONLY`.
/// - a plain local path, or `file:///absolute/path`: the file system store of
///   `zarr_store_open_filesystem`, over a directory that must exist (unlike with
///   `zarr_store_open_filesystem`, whose directory the first write makes): a missing one
///   is `ZARR_ERROR_NOT_FOUND` ("the directory '/d/x.zarr' does not exist (nor does '/d';
///   the option "create": true creates it)") unless the option `create` is true.
/// - `gs://bucket` or `gs://bucket/prefix` (also `gcs://`): Google Cloud Storage through
///   its JSON API: byte-range GETs (`?alt=media`), one upload per value (a resumable
///   upload in pieces of 8 MiB above 16 MiB), DELETE, paged listing. Requests carry an
///   OAuth2 bearer token (see the credentials below) unless `anonymous` is true or none is
///   found.
/// - `az://container` or `az://container/prefix` (also `abfs://` and `abfss://`, and
///   adlfs' `abfs://container@account.dfs.core.windows.net/prefix`, which names the
///   account): Azure Blob Storage: byte-range GETs, one Put Blob per value (Put Block and
///   Put Block List in 8 MiB blocks above 16 MiB), Delete Blob, paged listing; Shared Key
///   or SAS authorization (see below).
/// - `icechunk+file:///abs/path/repo`, `icechunk+s3://bucket/prefix`,
///   `icechunk+gs://bucket/prefix`, `icechunk+az://container/prefix`: an Icechunk
///   repository (versioned; writes are committed with `zarr_store_commit`), read and
///   written through the Icechunk library; see "Icechunk repositories" below for its
///   options.
///
/// `options_json` is NULL or a JSON object; every key is optional:
/// - `endpoint` (string, S3, GCS and Azure): the service's URL, `http://` or `https://`:
///   an S3-compatible service; for GCS default `https://storage.googleapis.com`, or
///   `STORAGE_EMULATOR_HOST` when set (with or without `http://`); for Azure default
///   `https://<account>.blob.core.windows.net`, for Azurite
///   `http://127.0.0.1:10000/devstoreaccount1` (the path names the account).
/// - `region` (string, S3): the signing region (default `us-east-1`).
/// - `anonymous` (bool, S3, GCS and Azure): send requests without credentials and look
///   for none (public buckets and containers).
/// - `service_account_path` (string, GCS): a service-account JSON key file; its key signs
///   the token request (RS256 JWT) sent to the file's `token_uri`.
/// - `token` (string, GCS; not with `service_account_path`): an OAuth2 bearer token the
///   caller already has; used as is, never renewed.
/// - `account_name` (string, Azure): the storage account.
/// - `account_key` (string, Azure): the account's Shared Key (base64).
/// - `sas_token` (string, Azure; not with `account_key`): a shared access signature, the
///   query string with or without its leading `?`.
/// - `access_key_id`, `secret_access_key` (strings, S3, given together), `session_token`
///   (string, S3): credentials.
/// - `profile` (string, S3): the profile to read from the shared profile files.
/// - `force_path_style` (bool, S3): path-style (`endpoint/bucket/key`) or virtual-host
///   (`bucket.endpoint/key`) URLs.
/// - `max_concurrency` (integer 1-1024, remote stores; default 32): requests in flight per
///   call (the ranges of one `read_ranges`, the parts of one upload) and connections kept
///   open; the store reports it to the I/O planner as the number of chunk fetches worth
///   keeping in flight.
/// - `timeout_ms` (integer 1-3600000, remote stores; default 30000): how long connecting,
///   or any wait for the next bytes to send or receive, may take before the attempt fails.
/// - `max_retries` (integer 0-100, remote stores; default 8): retries of a request that got
///   HTTP 5xx, 408 or 429, timed out, or lost its connection; with exponential backoff
///   (50 ms doubling up to 2 s) and jitter. Other 4xx answers and refused connections are
///   not retried.
/// - `read_only` (bool, every scheme): refuse writes with `ZARR_ERROR_READ_ONLY`
///   (HTTP stores are always read-only: `false` is an error there).
/// - `create` (bool, S3 and local paths; default false; not with `read_only` true): make
///   the directory (with its parents) or the bucket (in the store's region; one these
///   credentials already own is fine) when it does not exist. Without it, opening a
///   directory or bucket that does not exist is `ZARR_ERROR_NOT_FOUND`.
/// - `fsync` (bool, local paths; default false): make every write durable before it
///   returns: the temporary file is fsync'ed before its rename, then its directory (and
///   every directory the write created). After a power loss or kernel crash a write that
///   returned `ZARR_OK` is then on disk; without it, see `zarr_store_open_filesystem`.
///   Small writes take several times as long (see docs/filesystem.md).
/// - `follow_symlinks` (bool, local paths; default false): follow symbolic links below
///   the root wherever they lead, as a plain path lookup does, instead of refusing keys
///   that cross one (`ZARR_ERROR_INVALID_PATH`). For trees whose directories are linked
///   in from elsewhere on purpose; it gives up the guarantee that keys stay beneath the
///   root.
/// - `locking` (bool, local paths; default true): lock a chunk across processes while a
///   write that covers part of it reads, merges and rewrites it (see
///   `zarr_store_open_filesystem`). Local file systems, NFSv4 and NFSv3 with lockd honour
///   the locks, across machines too; Lustre honours them when mounted with `-o flock`
///   (with `-o localflock` only within one node, and without either option it refuses
///   them). Where the file system refuses a lock, such a write fails with `ZARR_ERROR_IO`
///   saying so. `false` turns the locks off: then only writes of whole chunks are safe
///   from several processes at once.
/// - `conditional_writes` (bool, S3, GCS and Azure; default true): a write that covers
///   part of a chunk or shard reads the object with its version (S3's and Azure's ETag,
///   GCS's generation), merges, and writes it back only if the object is still that
///   version (`If-Match`, or `If-None-Match: *` when there was none; GCS's
///   `ifGenerationMatch`, 0 when there was none; a conditional DELETE when the result is
///   all fill value); when another writer came first (HTTP 412, or 409), it waits a random
///   while (up to 10 ms, doubling with each conflict up to 1 s) and starts over, then
///   fails with `ZARR_ERROR_CONFLICT` after `update_attempts` tries. AWS S3, MinIO,
///   Cloudflare R2 and moto support these conditions; a service that ignores them gives
///   no protection. `false` writes without conditions: then only writes of whole chunks
///   are safe from several writers at once. Writes of whole chunks are never conditional.
/// - `update_attempts` (integer 1-1000, S3, GCS and Azure; default 50): the tries of one
///   such update before `ZARR_ERROR_CONFLICT` (not with `conditional_writes` false).
///
/// Icechunk repositories (versioned, transactional; see docs/icechunk.md):
/// `icechunk+file:///abs/path/repo`, `icechunk+s3://bucket/prefix`,
/// `icechunk+gs://bucket/prefix`, `icechunk+az://container/prefix` (the part after
/// `icechunk+` is read as that URL is on its own). They take the options of the
/// underlying scheme that Icechunk's storage can use: S3's `endpoint`, `region`,
/// `anonymous`, `access_key_id`, `secret_access_key`, `session_token`, `profile`,
/// `force_path_style`, `timeout_ms`; GCS's `endpoint`, `anonymous`,
/// `service_account_path`, `token`; Azure's `endpoint`, `anonymous`, `account_name`,
/// `account_key`, `sas_token`; and everywhere `read_only` and `create`. Others
/// (`max_concurrency`, `max_retries`, `conditional_writes`, `fsync`, `locking`...) are
/// `ZARR_ERROR_INVALID_ARGUMENT` naming the key. Their own options:
/// - `branch` (string; default `"main"`), `tag` (string), `snapshot` (string, a
///   snapshot id): the version to open, at most one of the three. A branch is
///   writable: writes go to a session that no other reader sees until
///   `zarr_store_commit`. A tag or snapshot is read-only (writes are
///   `ZARR_ERROR_READ_ONLY`). An unknown branch, tag or snapshot is
///   `ZARR_ERROR_NOT_FOUND` naming it.
/// - `create` (bool; default false): create an empty repository (spec version 2) when
///   there is none at the URL; without it a missing repository is `ZARR_ERROR_NOT_FOUND`
///   naming the URL.
/// - `virtual_chunk_prefixes` (array of strings): URL prefixes (`"file:///data/"`,
///   `"s3://bucket/path/"`, `"https://host/"`) whose virtual chunks may be read (the
///   repository must also declare them as virtual chunk containers). Reading a virtual
///   chunk outside them fails naming its location and this option.
///
/// An unknown key, a key that does not apply to the URL's scheme, a value of the wrong
/// JSON type or out of range, and contradicting keys are `ZARR_ERROR_INVALID_ARGUMENT`
/// naming the key.
///
/// S3 settings not given as options come from where AWS tools keep them, options first:
/// region from `AWS_REGION`, `AWS_DEFAULT_REGION`, then the profile's `region`; endpoint
/// from `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, then the profile's `s3 = endpoint_url`
/// or `endpoint_url`; credentials from the options, then the profile named by the
/// `profile` option, then `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`,
/// then the profile named by `AWS_PROFILE` (or `default`), read from
/// `AWS_SHARED_CREDENTIALS_FILE` (default `~/.aws/credentials`) and `AWS_CONFIG_FILE`
/// (default `~/.aws/config`). Only if none of these gives credentials and `anonymous` is
/// not set is the EC2 instance metadata service asked (IMDSv2, falling back to v1;
/// `AWS_EC2_METADATA_SERVICE_ENDPOINT`, default `http://169.254.169.254`;
/// `AWS_EC2_METADATA_DISABLED=true` skips it): each of its requests may take at most
/// 1 s, there are no retries, and a failed probe is remembered for 5 minutes, so a
/// machine outside EC2 waits at most a few seconds once. Without credentials the
/// requests go unsigned (public buckets).
///
/// GCS credentials, as Google's clients find them: the options (`anonymous`, `token`,
/// `service_account_path`); then, when `STORAGE_EMULATOR_HOST` is set, none (an emulator
/// takes anonymous requests); then the key file named by `GOOGLE_APPLICATION_CREDENTIALS`
/// (`service_account` or `authorized_user`), gcloud's application default credentials
/// file (`$CLOUDSDK_CONFIG` or `~/.config/gcloud`/`application_default_credentials.json`),
/// and the metadata server of a Google Cloud machine (`GCE_METADATA_HOST`, default
/// `metadata.google.internal`; asked once for at most 1 s, a failure remembered for 5
/// minutes; `NO_GCE_CHECK=true` skips it). Without any, requests are anonymous. Tokens
/// are fetched on first use and renewed a minute before they expire. Opening sends one
/// `GET` of the bucket's metadata: HTTP 404 is `ZARR_ERROR_NOT_FOUND` naming the bucket,
/// 401 (the credential itself refused) `ZARR_ERROR_ACCESS_DENIED` naming the credential,
/// 403 lets the open go on (the credential may read objects without seeing the bucket).
///
/// Azure credentials: the options (`anonymous`, `account_key`, `sas_token`,
/// `account_name`, `endpoint`), then `AZURE_STORAGE_CONNECTION_STRING` (its
/// `AccountName`, `AccountKey`, `BlobEndpoint`, `SharedAccessSignature`,
/// `DefaultEndpointsProtocol`, `EndpointSuffix`; `UseDevelopmentStorage=true` for
/// Azurite), `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`,
/// `AZURE_STORAGE_SAS_TOKEN`; without a key or SAS, requests are anonymous. Opening sends
/// one listing request to the container: a missing container is `ZARR_ERROR_NOT_FOUND`,
/// a refused key or SAS `ZARR_ERROR_ACCESS_DENIED` naming the credential.
///
/// https uses the system's trusted certificates, or those of the file `SSL_CERT_FILE`
/// (or directory `SSL_CERT_DIR`) when set. Opening an S3 store sends one `HEAD` of the
/// bucket (after the probe above): HTTP 404 is `ZARR_ERROR_NOT_FOUND` naming the bucket
/// and endpoint (or, with `create`, the bucket is created); 401 or 403 lets the open go
/// on (credentials may read objects without the right to look at the bucket), and a
/// refusal shows on first use; an endpoint that cannot be reached fails the open.
/// Opening an HTTP store sends nothing: a wrong path shows on first use as
/// `ZARR_ERROR_NOT_FOUND` naming the URL and the HTTP 404. A missing object (HTTP 404)
/// reads as absent (a missing chunk is the fill value); 401 and 403 are
/// `ZARR_ERROR_ACCESS_DENIED`.
///
/// - `url`: NUL-terminated UTF-8 URL or path (a relative path is resolved now).
/// - `options_json`: NULL or a NUL-terminated JSON object, as above.
/// - `out`: receives the new store, or NULL on failure. Free it with `zarr_store_free`.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `url` or `out` is NULL;
/// `ZARR_ERROR_INVALID_ARGUMENT` for an empty or malformed URL, bad options, a profile
/// that is not in the profile files, or a malformed endpoint; `ZARR_ERROR_UNSUPPORTED` for
/// another scheme; `ZARR_ERROR_NOT_FOUND` if the local directory, the S3 or GCS bucket or
/// the Azure container does not exist (and, for the first two, `create` is not true), if
/// there is no Icechunk repository at an `icechunk+` URL (and `create` is not true), or
/// no branch, tag or snapshot of the name asked for; `ZARR_ERROR_IO` if a local path
/// exists and is not a directory, or cannot be created, or an Icechunk repository cannot
/// be read; `ZARR_ERROR_NETWORK`, `ZARR_ERROR_TIMEOUT` or
/// `ZARR_ERROR_REMOTE` if an object store's endpoint cannot be reached or fails the
/// request of the open; `ZARR_ERROR_ACCESS_DENIED` if a GCS token request or an Azure
/// open is refused;
/// `ZARR_ERROR_ACCESS_DENIED` if `create` is to make a bucket without credentials or
/// the service refuses it; `ZARR_ERROR_NETWORK` if https is needed and no trusted
/// certificate is found. Calls on the store may later return `ZARR_ERROR_NETWORK`,
/// `ZARR_ERROR_ACCESS_DENIED`, `ZARR_ERROR_TIMEOUT`, `ZARR_ERROR_REMOTE` and
/// `ZARR_ERROR_CONFLICT`, and `ZARR_ERROR_NOT_FOUND` naming the bucket if it is deleted
/// after the open. Access-denied messages name the credential that was refused.
///
/// Thread safety: the store may be used from many threads at once; each call sends its
/// own requests over a shared connection pool.
///
/// # Safety
/// `url` is NULL or a NUL-terminated string; `options_json` is NULL or a NUL-terminated
/// string; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_open_url(
    url: *const c_char,
    options_json: *const c_char,
    out: *mut *mut zarr_store,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(out) };
    run("zarr_store_open_url", || {
        // SAFETY: per this function's contract.
        let url = unsafe { str_arg(url, "url") }?;
        let options = if options_json.is_null() {
            None
        } else {
            // SAFETY: non-NULL and NUL-terminated per this function's contract.
            Some(unsafe { str_arg(options_json, "options_json") }?)
        };
        let out = out_ptr(out, "out")?;
        let storage = crate::store_url::open_url(url, options)?;
        let handle = Box::new(zarr_store { storage });
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, Box::into_raw(handle)) };
        Ok(())
    })
}

/// How a store protects the writes of several processes that update the same chunk or shard
/// (a write that covers part of a chunk reads it, merges the new elements in and rewrites
/// it): the answer of `zarr_store_write_protection`.
#[allow(non_camel_case_types)]
pub type zarr_write_protection = i32;

/// No protection across processes: writes through any handles of one process never lose
/// each other's elements, but two processes writing parts of one chunk at once may. Only
/// writes of whole chunks are safe from several processes. Memory stores, stores of C
/// callbacks, read-only stores, and stores opened with `locking` or `conditional_writes`
/// set to false.
pub const ZARR_WRITE_PROTECTION_NONE: zarr_write_protection = 0;
/// An exclusive lock on the chunk across processes from the read to the rewrite: local
/// directories (see `zarr_store_open_filesystem`).
pub const ZARR_WRITE_PROTECTION_LOCKING: zarr_write_protection = 1;
/// Conditional writes: the rewrite succeeds only if the object is still the one read,
/// otherwise the update reads and merges again (S3 stores, see `zarr_store_open_url`).
pub const ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES: zarr_write_protection = 2;

/// Say how `store` protects a write that covers part of a chunk or shard from other
/// processes writing other parts of it at the same time (see `zarr_write_protection`).
/// A tool can print it; a program can refuse to start many unsynchronised writers where
/// the answer is `ZARR_WRITE_PROTECTION_NONE`.
///
/// - `store`: the store.
/// - `out`: receives one of the `ZARR_WRITE_PROTECTION_*` values; unchanged on failure.
///
/// Returns `ZARR_OK`, or `ZARR_ERROR_NULL_ARGUMENT` if `store` or `out` is NULL.
/// Thread safety: any thread, any time.
///
/// # Safety
/// `store` is NULL or a live handle; `out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_write_protection(
    store: *const zarr_store,
    out: *mut zarr_write_protection,
) -> zarr_status {
    run("zarr_store_write_protection", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        let out = out_ptr(out, "out")?;
        let protection = match store.storage.update_protection() {
            UpdateProtection::None => ZARR_WRITE_PROTECTION_NONE,
            UpdateProtection::Locking => ZARR_WRITE_PROTECTION_LOCKING,
            UpdateProtection::ConditionalWrites => ZARR_WRITE_PROTECTION_CONDITIONAL_WRITES,
        };
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, protection) };
        Ok(())
    })
}

/// Commit what was written through `store` since it was opened (or since its last
/// commit) to its branch, as a new version of an Icechunk repository.
///
/// Until the commit, the writes are visible only through this handle. After a commit the
/// handle keeps working on the branch, from the new version. A commit never merges with
/// another writer's: when another commit moved the branch since this handle's version,
/// it fails with `ZARR_ERROR_CONFLICT` and nothing is committed; reopen the store (from
/// the new tip) and write again.
///
/// - `store`: a store opened by `zarr_store_open_url` on a branch of an Icechunk
///   repository (`icechunk+...` URL).
/// - `message`: NUL-terminated UTF-8 commit message.
/// - `snapshot_id`: receives the new version's snapshot id, owned by the caller (free it
///   with `zarr_string_free`); NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `store`, `message` or `snapshot_id`
/// is NULL; `ZARR_ERROR_UNSUPPORTED` if the store is not an Icechunk repository;
/// `ZARR_ERROR_READ_ONLY` if it was opened on a tag or a snapshot, or `read_only`;
/// `ZARR_ERROR_INVALID_ARGUMENT` if nothing was written since the last commit ("nothing
/// to commit"); `ZARR_ERROR_CONFLICT` if another writer committed to the branch first;
/// `ZARR_ERROR_IO` (or a network status) if the repository cannot be written.
///
/// Thread safety: writes from other threads during the commit go either into it or into
/// the next one; commits of one handle are serialised.
///
/// # Safety
/// `store` is NULL or a live handle; `message` is NULL or a NUL-terminated string;
/// `snapshot_id` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_commit(
    store: *mut zarr_store,
    message: *const c_char,
    snapshot_id: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(snapshot_id) };
    run("zarr_store_commit", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        // SAFETY: per this function's contract.
        let message = unsafe { str_arg(message, "message") }?;
        let out = out_ptr(snapshot_id, "snapshot_id")?;
        let control = version_control(store)?;
        let id = control.commit(message).map_err(Error::from)?;
        let text = owned_c_string(id)?;
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// Describe the versions of the Icechunk repository `store` opened, as JSON:
/// `{"format": "icechunk", "spec_version": 2, "opened": {"branch": "main"}` (or
/// `{"tag": "v1"}`, `{"snapshot": "ID"}`)`, "snapshot": "ID of the opened version",
/// "branches": {"main": "ID", ...}, "tags": {"v1": "ID", ...}, "history": [{"id": "ID",
/// "message": "...", "written_at": "RFC 3339 time"}, ...]}`. `history` is the ancestry
/// of the opened version, newest first (for a branch, of the version the handle started
/// from or last committed: uncommitted writes are not a version).
///
/// - `store`: a store opened by `zarr_store_open_url` on an `icechunk+...` URL.
/// - `json_out`: receives the JSON text, owned by the caller (free it with
///   `zarr_string_free`); NULL on failure.
///
/// Returns `ZARR_OK`; `ZARR_ERROR_NULL_ARGUMENT` if `store` or `json_out` is NULL;
/// `ZARR_ERROR_UNSUPPORTED` if the store is not an Icechunk repository; `ZARR_ERROR_IO`
/// (or a network status) if the repository cannot be read.
///
/// Thread safety: any thread, any time.
///
/// # Safety
/// `store` is NULL or a live handle; `json_out` is NULL or writable.
#[must_use]
#[no_mangle]
pub unsafe extern "C" fn zarr_store_versions_json(
    store: *const zarr_store,
    json_out: *mut *mut c_char,
) -> zarr_status {
    // SAFETY: per this function's contract.
    unsafe { clear_out(json_out) };
    run("zarr_store_versions_json", || {
        // SAFETY: per this function's contract.
        let store = unsafe { handle(store, "store") }?;
        let out = out_ptr(json_out, "json_out")?;
        let control = version_control(store)?;
        let json = control.versions_json().map_err(Error::from)?;
        let text = owned_c_string(json)?;
        // SAFETY: checked non-NULL above, writable per the contract.
        unsafe { write_out(out, text) };
        Ok(())
    })
}

/// The store's version control, or UNSUPPORTED naming the store.
fn version_control(store: &zarr_store) -> Result<&dyn crate::storage::VersionControl, FfiError> {
    store.storage.version_control().ok_or_else(|| {
        FfiError::Core(Error::Storage(StorageError::Unsupported {
            key: store.storage.location(),
            reason: "it is not an Icechunk repository: only icechunk+... URLs keep versions"
                .to_string(),
        }))
    })
}
