//! The 2022 draft v3 layout: `zarr_implementations/examples/zarrita.zr3` (written by
//! zarrita in the layout the core-spec seed describes) must read identical to its Zarr v2
//! twin `zarr.zr` (written by zarr-python 2 from the same image), and its hierarchy must
//! list like any other. Both stores are vendored under `tests/data/corpus` (see its
//! README for source and licence).

use std::path::Path;
use std::sync::Arc;
use zarr::array::Array;
use zarr::group::Group;
use zarr::node::ZarrFormat;
use zarr::storage::{FilesystemStore, Storage};

fn store(name: &str) -> Arc<dyn Storage> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/corpus/zarr_implementations/examples")
        .join(name);
    Arc::new(FilesystemStore::new(root).expect("store"))
}

fn read_all(array: &Array) -> Vec<u8> {
    let shape = array.shape();
    let start = vec![0; shape.len()];
    let mut out = vec![0u8; array.selection_nbytes(&start, &shape).unwrap()];
    array.read_region(&start, &shape, &mut out).unwrap();
    out
}

#[test]
fn zarrita_zr3_reads_identical_to_its_v2_twin() {
    let draft = store("zarrita.zr3");
    let v2 = store("zarr.zr");
    for (draft_path, v2_path) in [
        ("/raw", "/raw"),
        ("/gzip", "/gzip"),
        ("/zlib", "/zlib"),
        ("/blosc/lz4", "/blosc"),
    ] {
        let a = Array::open(draft.clone(), draft_path).unwrap();
        let b = Array::open(v2.clone(), v2_path).unwrap();
        assert_eq!(a.format(), ZarrFormat::V3Draft2022);
        assert_eq!(b.format(), ZarrFormat::V2);
        assert_eq!(a.shape(), vec![512, 512, 3], "{draft_path}");
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.data_type(), b.data_type());
        let (x, y) = (read_all(&a), read_all(&b));
        // Not a blank image: the astronaut has many distinct byte values.
        assert!(x.iter().collect::<std::collections::BTreeSet<_>>().len() > 200);
        assert!(x == y, "{draft_path} differs from its v2 twin {v2_path}");
        // A sub-region crossing chunk edges (chunks are 100 x 100 x 1).
        let (start, count) = ([95, 199, 1], [10, 3, 2]);
        let n = 10 * 3 * 2;
        let (mut p, mut q) = (vec![0u8; n], vec![0u8; n]);
        a.read_region(&start, &count, &mut p).unwrap();
        b.read_region(&start, &count, &mut q).unwrap();
        assert_eq!(p, q);
    }
}

#[test]
fn zarrita_zr3_hierarchy() {
    let root = Group::open(store("zarrita.zr3"), "/").unwrap();
    assert_eq!(root.format(), ZarrFormat::V3Draft2022);
    let listed: Vec<(String, &str)> = root
        .descendants()
        .unwrap()
        .into_iter()
        .map(|c| (c.path, c.node_type.as_str()))
        .collect();
    let want = [
        ("/blosc", "group"),
        ("/blosc/lz4", "array"),
        ("/gzip", "array"),
        ("/raw", "array"),
        ("/zlib", "array"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|(p, t)| (p.to_string(), *t)).collect();
    assert_eq!(listed, want);
    // The implicit group /blosc opens.
    Group::open(store("zarrita.zr3"), "/blosc").unwrap();
}
