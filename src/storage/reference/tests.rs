use super::*;
use std::path::PathBuf;
use std::sync::Arc;

/// A directory of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("libzarr-ref-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// No remote target may be opened in these tests.
fn no_remote() -> Box<OpenTargetStore> {
    Box::new(|name: &str| {
        Err(StorageError::Unsupported {
            key: name.to_string(),
            reason: "no remote stores in unit tests".into(),
        })
    })
}

fn open(json: &str) -> Result<ReferenceStore, OpenError> {
    ReferenceStore::from_json("test.json", json.as_bytes(), no_remote(), 4)
}

fn message(e: OpenError) -> String {
    match e {
        OpenError::InvalidArgument(m) | OpenError::NotFound(m) => m,
        OpenError::Storage(e) => e.to_string(),
    }
}

#[test]
fn version_0_inline_base64_objects_ranges_and_whole_files() {
    let dir = scratch("v0");
    let data = dir.join("data.bin");
    std::fs::write(&data, b"0123456789abcdef").unwrap();
    let json = serde_json::json!({
        ".zgroup": "{\"zarr_format\": 2}",
        "a/.zarray": {"zarr_format": 2, "shape": [4]},
        "a/0": ["file://".to_string() + data.to_str().unwrap(), 2, 4],
        "a/1": [data.to_str().unwrap()],
        "b64": "base64:aGVsbG8=",
        "b/c/d": "deep",
    })
    .to_string();
    let store = open(&json).unwrap();
    assert_eq!(
        store.get(".zgroup").unwrap().unwrap(),
        b"{\"zarr_format\": 2}"
    );
    let zarray: serde_json::Value =
        serde_json::from_slice(&store.get("a/.zarray").unwrap().unwrap()).unwrap();
    assert_eq!(zarray["shape"], serde_json::json!([4]));
    assert_eq!(store.get("a/0").unwrap().unwrap(), b"2345");
    assert_eq!(store.get("a/1").unwrap().unwrap(), b"0123456789abcdef");
    assert_eq!(store.get("b64").unwrap().unwrap(), b"hello");
    assert_eq!(store.get("missing").unwrap(), None);
    // Ranges within a ranged reference stay inside it.
    let r = store
        .get_range(
            "a/0",
            ByteRange::FromStart {
                offset: 1,
                length: 2,
            },
        )
        .unwrap();
    assert_eq!(r.unwrap(), b"34");
    assert_eq!(
        store
            .get_range("a/0", ByteRange::Suffix { length: 1 })
            .unwrap()
            .unwrap(),
        b"5"
    );
    assert!(matches!(
        store.get_range(
            "a/0",
            ByteRange::FromStart {
                offset: 3,
                length: 2
            }
        ),
        Err(StorageError::RangeOutOfBounds { .. })
    ));
    let (size, bytes) = store
        .read_ranges(
            "a/1",
            &[
                ByteRange::FromStart {
                    offset: 0,
                    length: 1,
                },
                ByteRange::Suffix { length: 2 },
            ],
        )
        .unwrap()
        .unwrap();
    assert_eq!((size, bytes.as_slice()), (Some(16), &b"0ef"[..]));
    assert_eq!(store.value_size("a/0").unwrap(), Some(4));
    assert_eq!(store.value_size("a/1").unwrap(), Some(16));
    // Listing.
    let root = store.list_dir("").unwrap();
    assert_eq!(root.keys, vec![".zgroup", "b64"]);
    assert_eq!(root.prefixes, vec!["a", "b"]);
    assert_eq!(
        store.list_dir("a/").unwrap().keys,
        vec![".zarray", "0", "1"]
    );
    assert_eq!(store.list_dir("b/").unwrap().prefixes, vec!["c"]);
    // Read-only.
    assert!(matches!(store.set("x", b"1"), Err(StorageError::ReadOnly)));
    assert!(matches!(store.erase("a/0"), Err(StorageError::ReadOnly)));
    assert!(store
        .location()
        .contains("Kerchunk references at test.json"));
    assert!(store.key_location("a/0").contains("(bytes 2 to 6)"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn version_1_templates_and_gen_as_the_spec_example() {
    // The example of the reference spec (kerchunk docs, "version 1"), with local
    // targets instead of http ones so that nothing is opened.
    let json = r#"{
      "version": 1,
      "templates": {"u": "/data/server", "f": "file"},
      "gen": [
        {"key": "gen_key{{ i }}", "url": "/{{ u }}_{{ i }}",
         "offset": "{{ (i + 1) * 1000 }}", "length": "1000",
         "dimensions": {"i": {"stop": 5}}},
        {"key": "g/{{a}}.{{b}}", "url": "/x/{{ f }}{{ a }}", "dimensions":
           {"a": [3, 5], "b": {"start": 10, "stop": 4, "step": -3}}}
      ],
      "refs": {
        "key0": "data",
        "key1": ["/target_url", 10000, 100],
        "key2": ["{{u}}/{{ f }}.nc", 10000, 100],
        "key3": ["/{{ u + '/' + f }}"]
      }
    }"#;
    let Ok(store) = open(json) else {
        panic!("{}", message(open(json).unwrap_err()))
    };
    let Refs::Json(map) = &store.refs else {
        unreachable!()
    };
    let url = |key: &str| match &map[key] {
        Entry::Target { url, range, .. } => (url.clone(), *range),
        Entry::Inline(_) => panic!("{key} is inline"),
    };
    assert_eq!(
        url("key2"),
        ("/data/server/file.nc".into(), Some((10000, 100)))
    );
    assert_eq!(url("key3"), ("//data/server/file".into(), None));
    assert_eq!(
        url("gen_key0"),
        ("//data/server_0".into(), Some((1000, 1000)))
    );
    assert_eq!(
        url("gen_key4"),
        ("//data/server_4".into(), Some((5000, 1000)))
    );
    assert!(!map.contains_key("gen_key5"));
    // The product of a list and a descending range.
    let gen: Vec<&String> = map.keys().filter(|k| k.starts_with("g/")).collect();
    assert_eq!(gen, vec!["g/3.10", "g/3.7", "g/5.10", "g/5.7"]);
    assert_eq!(url("g/5.7"), ("/x/file5".into(), None));
    assert_eq!(map.len(), 4 + 5 + 4);
}

#[test]
fn template_expressions() {
    use json::{render, Scalar};
    let vars: std::collections::HashMap<String, Scalar> = [
        ("i".to_string(), Scalar::Int(7)),
        ("s".to_string(), Scalar::Str("ab".into())),
    ]
    .into();
    assert_eq!(
        render("{{ i // 2 }}-{{ i % 3 }}-{{-i // 2}}", &vars).unwrap(),
        "3-1--4"
    );
    assert_eq!(render("{{(i+1)*2}}{{ s }}", &vars).unwrap(), "16ab");
    assert_eq!(render("{{ -7 % 3 }}", &vars).unwrap(), "2");
    assert_eq!(render("no template", &vars).unwrap(), "no template");
    for (bad, expected) in [
        ("{{ i ", "never closes"),
        ("{{ j }}", "'j' is neither a template nor a dimension"),
        ("{{ i / 2 }}", "use //"),
        ("{{ i // 0 }}", "division by zero"),
        ("{{ f(1) }}", "not supported"),
        ("{{ i | string }}", "not supported"),
        ("{% for x in y %}", "not supported"),
        ("{{ 9223372036854775807 + 1 }}", "overflows"),
        ("{{ (((i }}", "never closes"),
        ("{{ i i }}", "not an expression"),
        ("{{ s * 2 }}", "integers expected"),
    ] {
        let e = render(bad, &vars).unwrap_err().to_string();
        assert!(e.contains(expected), "{bad}: {e}");
    }
    let deep = format!("{{{{ {}1{} }}}}", "(".repeat(100), ")".repeat(100));
    assert!(render(&deep, &vars)
        .unwrap_err()
        .to_string()
        .contains("too deep"));
}

#[test]
fn bad_input_is_reported_naming_the_key() {
    let corrupt = |json: &str, expected: &str| match open(json) {
        Err(OpenError::Storage(StorageError::Corrupt { key, reason })) => {
            assert!(key.contains("test.json"), "{key}");
            assert!(reason.contains(expected), "{json}: {reason}");
        }
        other => panic!("{json}: {:?}", other.map(|_| ())),
    };
    corrupt("{", "not valid JSON");
    corrupt("[1]", "a reference set is a JSON object");
    corrupt(r#"{"k": 3}"#, "key 'k' is a number");
    corrupt(r#"{"k": null}"#, "key 'k' is null");
    corrupt(
        r#"{"k": [1, 2, 3]}"#,
        "key 'k' must start with a target URL",
    );
    corrupt(r#"{"k": ["/f", 1]}"#, "key 'k' has 2 elements");
    corrupt(
        r#"{"k": ["/f", -1, 2]}"#,
        "offset of the reference at key 'k' is -1",
    );
    corrupt(
        r#"{"k": ["/f", 1, 2.5]}"#,
        "length of the reference at key 'k'",
    );
    corrupt(
        r#"{"k": ["/f", 18446744073709551615, 2]}"#,
        "key 'k': offset 18446744073709551615 + length 2 overflows",
    );
    corrupt(r#"{"k": ["/f", 1, 18446744073709551616]}"#, "length");
    corrupt(r#"{"k": "base64:!!"}"#, "key 'k' starts with 'base64:'");
    corrupt(r#"{"../x": "v"}"#, "hostile or malformed key '../x'");
    corrupt(r#"{"/abs": "v"}"#, "hostile or malformed key '/abs'");
    corrupt(r#"{"a//b": "v"}"#, "key 'a//b'");
    corrupt(
        r#"{"version": 1, "refs": {"k": ["{{ u }}/x"]}}"#,
        "'u' is neither a template nor a dimension",
    );
    corrupt(
        r#"{"version": 1, "templates": {"u": "/d"}, "refs": {"k": ["{{ u /x"]}}"#,
        "never closes",
    );
    corrupt(
        r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "/u", "dimensions":
            {"i": {"stop": 100000}, "j": {"stop": 100000}}}]}"#,
        "expands to 10000000000 keys",
    );
    corrupt(
        r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "/u", "dimensions":
            {"i": {"start": -9223372036854775808, "stop": 9223372036854775807}}}]}"#,
        "more than the 4194304 keys",
    );
    corrupt(
        r#"{"version": 1, "gen": [{"key": "k", "url": "/u", "offset": "1",
            "dimensions": {"i": [1]}}]}"#,
        "both 'offset' and 'length'",
    );
    corrupt(
        r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "/u", "offset": "{{i - 5}}",
            "length": "1", "dimensions": {"i": [1]}}]}"#,
        "renders to '-4'",
    );
    corrupt(
        r#"{"version": 1, "gen": [{"key": "k", "url": "/u", "dimensions": {"i": {"stop": 3, "step": 0}}}]}"#,
        "step 0",
    );
    // A relative target: INVALID_ARGUMENT naming the key.
    match open(r#"{"a/0": ["data/file.h5", 0, 10]}"#) {
        Err(OpenError::InvalidArgument(m)) => {
            assert!(
                m.contains("key 'a/0'") && m.contains("relative path"),
                "{m}"
            )
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    match open(r#"{"version": 2}"#) {
        Err(OpenError::Storage(StorageError::Unsupported { reason, .. })) => {
            assert!(reason.contains("version 2"), "{reason}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    match open(r#"{"k": ["ftp://h/x"]}"#) {
        Err(OpenError::Storage(StorageError::Unsupported { reason, .. })) => {
            assert!(reason.contains("scheme 'ftp'"), "{reason}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn missing_targets_and_ranges_past_the_end() {
    let dir = scratch("bad-targets");
    let data = dir.join("short.bin");
    std::fs::write(&data, b"0123").unwrap();
    let json = serde_json::json!({
        "past": [data.to_str().unwrap(), 2, 10],
        "gone": [dir.join("nothing").to_str().unwrap(), 0, 1],
        "gone_whole": [dir.join("nothing").to_str().unwrap()],
    })
    .to_string();
    let store = open(&json).unwrap();
    match store.get("past") {
        Err(StorageError::Corrupt { key, reason }) => {
            assert!(key.contains("past") && key.contains("test.json"), "{key}");
            assert!(
                reason.contains("reaches past the end of the target (4 bytes)"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    for key in ["gone", "gone_whole"] {
        match store.get(key) {
            Err(StorageError::Io { key: k, source }) => {
                assert_eq!(k, key);
                assert!(source.to_string().contains("does not exist"), "{source}");
            }
            other => panic!("{other:?}"),
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn remote_targets_share_one_store_per_bucket() {
    let opened = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = opened.clone();
    let open_target: Box<OpenTargetStore> = Box::new(move |name: &str| {
        log.lock().unwrap().push(name.to_string());
        let store = crate::storage::MemoryStore::new();
        store.set("dir/file.nc", b"abcdefgh").unwrap();
        store.set("data/f.nc", b"ABCDEFGH").unwrap();
        Ok(Arc::new(store) as Arc<dyn ReadableStorage>)
    });
    let json = r#"{"a": ["s3://bkt/dir/file.nc", 1, 3], "b": ["s3://bkt/dir/file.nc", 4, 2],
                   "c": ["https://host/data/f.nc", 0, 2], "d": ["s3://other/x"],
                   "e": ["https://host/data/%66.nc", 2, 2]}"#;
    let store = ReferenceStore::from_json("r.json", json.as_bytes(), open_target, 8).unwrap();
    assert_eq!(store.max_concurrency(), Some(8));
    assert_eq!(store.get("a").unwrap().unwrap(), b"bcd");
    assert_eq!(store.get("b").unwrap().unwrap(), b"ef");
    assert_eq!(store.get("c").unwrap().unwrap(), b"AB");
    assert_eq!(store.get("e").unwrap().unwrap(), b"CD");
    assert!(matches!(store.get("d"), Err(StorageError::Io { .. })));
    assert_eq!(
        *opened.lock().unwrap(),
        vec!["s3://bkt", "https://host/", "s3://other"]
    );
}

/// A row of a record file: `path`, `offset`, `size`, `raw`.
type Row<'a> = (Option<&'a str>, i64, i64, Option<&'a [u8]>);

/// A Parquet record file with the columns fsspec writes.
fn record_file(rows: &[Row<'_>]) -> Vec<u8> {
    use ::parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
    use ::parquet::file::properties::WriterProperties;
    use ::parquet::file::writer::SerializedFileWriter;
    let schema = ::parquet::schema::parser::parse_message_type(
        "message schema { OPTIONAL BYTE_ARRAY path (UTF8); REQUIRED INT64 offset; \
         REQUIRED INT64 size; OPTIONAL BYTE_ARRAY raw; }",
    )
    .unwrap();
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(
        &mut out,
        Arc::new(schema),
        Arc::new(WriterProperties::builder().build()),
    )
    .unwrap();
    let mut group = writer.next_row_group().unwrap();
    let optional = |values: Vec<Option<&[u8]>>| {
        let levels: Vec<i16> = values.iter().map(|v| i16::from(v.is_some())).collect();
        let data: Vec<ByteArray> = values
            .into_iter()
            .flatten()
            .map(|v| ByteArray::from(v.to_vec()))
            .collect();
        (data, levels)
    };
    let (paths, path_levels) = optional(rows.iter().map(|r| r.0.map(str::as_bytes)).collect());
    let mut col = group.next_column().unwrap().unwrap();
    col.typed::<ByteArrayType>()
        .write_batch(&paths, Some(&path_levels), None)
        .unwrap();
    col.close().unwrap();
    for values in [
        rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        rows.iter().map(|r| r.2).collect::<Vec<_>>(),
    ] {
        let mut col = group.next_column().unwrap().unwrap();
        col.typed::<Int64Type>()
            .write_batch(&values, None, None)
            .unwrap();
        col.close().unwrap();
    }
    let (raws, raw_levels) = optional(rows.iter().map(|r| r.3).collect());
    let mut col = group.next_column().unwrap().unwrap();
    col.typed::<ByteArrayType>()
        .write_batch(&raws, Some(&raw_levels), None)
        .unwrap();
    col.close().unwrap();
    group.close().unwrap();
    writer.close().unwrap();
    out
}

#[test]
fn parquet_references_read_lazily() {
    let dir = scratch("parquet");
    let data = dir.join("data.bin");
    std::fs::write(&data, b"0123456789").unwrap();
    let path = data.to_str().unwrap();
    let zmetadata = serde_json::json!({
        "record_size": 2,
        "metadata": {
            ".zgroup": {"zarr_format": 2},
            "v/.zarray": {"zarr_format": 2, "shape": [3, 4], "chunks": [2, 2], "dtype": "|u1",
                          "compressor": null, "filters": null, "fill_value": 0, "order": "C"},
            "v/.zattrs": {"units": "m"},
        }
    });
    let source = crate::storage::MemoryStore::new();
    source
        .set(".zmetadata", zmetadata.to_string().as_bytes())
        .unwrap();
    // Chunks 0.0 0.1 | 1.0 1.1: record 0 holds 0.0 (range) and 0.1 (inline); record 1
    // holds 1.0 (whole file) and 1.1 (missing).
    source
        .set(
            "v/refs.0.parq",
            &record_file(&[(Some(path), 2, 3, None), (None, 0, 0, Some(b"raw!"))]),
        )
        .unwrap();
    source
        .set(
            "v/refs.1.parq",
            &record_file(&[(Some(path), 0, 0, None), (None, 0, 0, None)]),
        )
        .unwrap();
    let store =
        ReferenceStore::from_parquet("refs.parq", Arc::new(source), no_remote(), false, 4).unwrap();
    assert_eq!(store.get("v/0.0").unwrap().unwrap(), b"234");
    assert_eq!(store.get("v/0.1").unwrap().unwrap(), b"raw!");
    assert_eq!(store.get("v/1.0").unwrap().unwrap(), b"0123456789");
    assert_eq!(store.get("v/1.1").unwrap(), None);
    assert_eq!(store.get("v/2.0").unwrap(), None);
    assert_eq!(store.get("v/0").unwrap(), None);
    let zattrs: serde_json::Value =
        serde_json::from_slice(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
    assert_eq!(zattrs["units"], "m");
    let consolidated: serde_json::Value =
        serde_json::from_slice(&store.get(".zmetadata").unwrap().unwrap()).unwrap();
    assert_eq!(consolidated["zarr_consolidated_format"], 1);
    assert_eq!(
        consolidated["metadata"]["v/.zarray"]["shape"],
        serde_json::json!([3, 4])
    );
    let root = store.list_dir("").unwrap();
    assert_eq!(root.keys, vec![".zgroup", ".zmetadata"]);
    assert_eq!(root.prefixes, vec!["v"]);
    assert_eq!(
        store.list_dir("v/").unwrap().keys,
        vec![".zarray", ".zattrs"]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn parquet_bad_input() {
    let source = |zmetadata: &str, record: Option<Vec<u8>>| {
        let s = crate::storage::MemoryStore::new();
        s.set(".zmetadata", zmetadata.as_bytes()).unwrap();
        if let Some(r) = record {
            s.set("v/refs.0.parq", &r).unwrap();
        }
        Arc::new(s) as Arc<dyn ReadableStorage>
    };
    let meta = r#"{"record_size": 4, "metadata": {"v/.zarray": {"shape": [4], "chunks": [1]}}}"#;
    let open_err = |zmetadata: &str| {
        let e = ReferenceStore::from_parquet("p", source(zmetadata, None), no_remote(), false, 1)
            .unwrap_err();
        message(e)
    };
    assert!(open_err("{").contains("'.zmetadata' is not valid JSON"));
    assert!(open_err(r#"{"metadata": {}}"#).contains("record_size"));
    assert!(open_err(r#"{"record_size": 0, "metadata": {}}"#).contains("record_size' 0"));
    assert!(open_err(r#"{"record_size": 1, "metadata": {"../x": {}}}"#).contains("'../x'"));
    assert!(
        open_err(r#"{"record_size": 1, "metadata": {"v/.zarray": {"shape": [1]}}}"#)
            .contains("'chunks'")
    );
    let empty = crate::storage::MemoryStore::new();
    assert!(matches!(
        ReferenceStore::from_parquet("p", Arc::new(empty), no_remote(), false, 1),
        Err(OpenError::NotFound(_))
    ));

    let good = record_file(&[(Some("/x"), 0, 4, None)]);
    let read_err = |record: Vec<u8>| {
        let store =
            ReferenceStore::from_parquet("p", source(meta, Some(record)), no_remote(), false, 1)
                .unwrap();
        store.get("v/0").unwrap_err()
    };
    // Truncated files, at every length.
    for cut in [0, 4, 8, good.len() / 2, good.len() - 9, good.len() - 1] {
        let e = read_err(good[..cut].to_vec());
        assert!(
            matches!(&e, StorageError::Corrupt { key, reason }
                if key.contains("v/0") && reason.contains("refs.0.parq")),
            "{cut}: {e}"
        );
    }
    // Wrong column types: an integer path; and a file without the record columns.
    let int64_columns = |schema: &str, columns: usize| {
        use ::parquet::data_type::{ByteArrayType, Int64Type};
        let mut out = Vec::new();
        let mut w = ::parquet::file::writer::SerializedFileWriter::new(
            &mut out,
            Arc::new(::parquet::schema::parser::parse_message_type(schema).unwrap()),
            Default::default(),
        )
        .unwrap();
        let mut g = w.next_row_group().unwrap();
        for _ in 0..columns {
            let mut c = g.next_column().unwrap().unwrap();
            c.typed::<Int64Type>()
                .write_batch(&[5], None, None)
                .unwrap();
            c.close().unwrap();
        }
        if let Some(mut c) = g.next_column().unwrap() {
            c.typed::<ByteArrayType>()
                .write_batch(&[], Some(&[0]), None)
                .unwrap();
            c.close().unwrap();
        }
        g.close().unwrap();
        w.close().unwrap();
        out
    };
    let e = read_err(int64_columns(
        "message schema { REQUIRED INT64 path; REQUIRED INT64 offset; REQUIRED INT64 size; \
         OPTIONAL BYTE_ARRAY raw; }",
        3,
    ));
    assert!(e.to_string().contains("column 'path' holds Long(5)"), "{e}");
    let e = read_err(int64_columns("message schema { REQUIRED INT64 path; }", 1));
    assert!(e.to_string().contains("no column 'offset'"), "{e}");
    // Negative offsets, relative paths, too many rows.
    let e = read_err(record_file(&[(Some("/x"), -1, 4, None)]));
    assert!(e.to_string().contains("non-negative"), "{e}");
    let e = read_err(record_file(&[(Some("rel/x"), 0, 4, None)]));
    assert!(e.to_string().contains("relative path"), "{e}");
    let rows: Vec<_> = (0..5).map(|_| (Some("/x"), 0, 1, None)).collect();
    let e = read_err(record_file(&rows));
    assert!(e.to_string().contains("at most record_size"), "{e}");
}

#[test]
fn special_files_are_refused_without_opening_them() {
    let dir = scratch("fifo");
    let fifo = dir.join("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let json =
        serde_json::json!({"k": [fifo.to_str().unwrap(), 0, 4], "d": [dir.to_str().unwrap()]})
            .to_string();
    let store = open(&json).unwrap();
    // Opening the FIFO would block this test forever.
    assert!(matches!(
        store.get("k"),
        Err(StorageError::NotRegularFile { .. })
    ));
    assert!(matches!(
        store.get("d"),
        Err(StorageError::NotRegularFile { .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A crash the fuzz target `reference_parquet` found: a record file whose column chunk
/// starts at a negative offset made the parquet crate assert. The input is the fuzz
/// target's container (`[key length u8][key][value length u32 LE][value]`); every record
/// file in it must read as a clean error or as rows, never a panic (read without the
/// `catch_unwind` guard, so that a panic fails this test).
#[test]
fn fuzz_regression_negative_column_start() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reference/bad/fuzz-negative-column-start.container"
    );
    let mut data = &std::fs::read(path).unwrap()[..];
    let mut errors = Vec::new();
    while let Some((&key_len, rest)) = data.split_first() {
        let (key, rest) = rest.split_at(usize::from(key_len).min(rest.len()));
        let (len, rest) = rest.split_at(4.min(rest.len()));
        let mut len_bytes = [0u8; 4];
        len_bytes[..len.len()].copy_from_slice(len);
        let (value, rest) = rest.split_at((u32::from_le_bytes(len_bytes) as usize).min(rest.len()));
        data = rest;
        if String::from_utf8_lossy(key).ends_with(".parq") {
            if let Err(e) = parquet::read_record_unguarded(value.to_vec(), 3) {
                errors.push(e.to_string());
            }
        }
    }
    assert!(
        errors.iter().any(|e| e.contains("outside the file")),
        "{errors:?}"
    );
}
