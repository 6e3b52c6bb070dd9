//! Unit tests of the data types.

use super::*;
use serde_json::json;

#[test]
fn names_round_trip() {
    for name in [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "r8",
        "r24",
    ] {
        assert_eq!(DataType::from_name(name).unwrap().name(), name);
    }
    assert_eq!(DataType::from_name("r24").unwrap().size(), 3);
    for bad in ["r0", "r7", "r", "r08", "int128", "Float32", ""] {
        assert!(DataType::from_name(bad).is_err(), "{bad}");
    }
}

#[test]
fn float_fill_spellings() {
    let f32t = DataType::Float32;
    let nan = f32t.parse_fill_value(&json!("NaN")).unwrap();
    assert_eq!(nan.as_bytes(), 0x7fc0_0000u32.to_ne_bytes());
    let hex = f32t.parse_fill_value(&json!("0x7fc00001")).unwrap();
    assert_eq!(hex.as_bytes(), 0x7fc0_0001u32.to_ne_bytes());
    assert_eq!(f32t.fill_value_to_json(&hex), json!("0x7fc00001"));
    assert_eq!(f32t.fill_value_to_json(&nan), json!("NaN"));
    let inf = f32t.parse_fill_value(&json!("-Infinity")).unwrap();
    assert_eq!(f32t.fill_value_to_json(&inf), json!("-Infinity"));
    let v = f32t.parse_fill_value(&json!(1.5)).unwrap();
    assert_eq!(v.as_bytes(), 1.5f32.to_ne_bytes());
    assert!(f32t.parse_fill_value(&json!("0x123456789")).is_err());
    assert!(f32t.parse_fill_value(&json!("nan")).is_err());
    assert!(f32t.parse_fill_value(&json!(null)).is_err());
    let h = DataType::Float16.parse_fill_value(&json!("NaN")).unwrap();
    assert_eq!(h.as_bytes(), 0x7e00u16.to_ne_bytes());
    let d = DataType::Float64
        .parse_fill_value(&json!("0x7ff8000000000000"))
        .unwrap();
    assert_eq!(DataType::Float64.fill_value_to_json(&d), json!("NaN"));
}

#[test]
fn integer_fill_values() {
    let u64t = DataType::UInt64;
    let max = u64t
        .parse_fill_value(&json!(18446744073709551615u64))
        .unwrap();
    assert_eq!(max.as_bytes(), u64::MAX.to_ne_bytes());
    assert_eq!(
        u64t.fill_value_to_json(&max),
        json!(18446744073709551615u64)
    );
    assert!(DataType::Int8.parse_fill_value(&json!(128)).is_err());
    assert!(DataType::UInt8.parse_fill_value(&json!(-1)).is_err());
    assert!(DataType::Int32.parse_fill_value(&json!(1.5)).is_err());
    // Beyond the type's range, even where the nearest f64 is in range (-2^63 - 1 and
    // 2^64 arrive as floats).
    let text = |t: &str| serde_json::from_str::<Value>(t).unwrap();
    for (data_type, out_of_range) in [
        (DataType::Int64, "-9223372036854775809"),
        (DataType::Int64, "9223372036854775808"),
        (DataType::Int64, "-9223372036854775808.0"),
        (DataType::UInt64, "18446744073709551616"),
        (DataType::UInt64, "1e19"),
    ] {
        let error = data_type.parse_fill_value(&text(out_of_range)).unwrap_err();
        assert!(error.to_string().contains("fill_value"), "{error}");
    }
    let min = DataType::Int64.parse_fill_value(&text("-9223372036854775808"));
    assert_eq!(min.unwrap().as_bytes(), i64::MIN.to_ne_bytes());
    let intish = DataType::Int32.parse_fill_value(&json!(7.0)).unwrap();
    assert_eq!(intish.as_bytes(), 7i32.to_ne_bytes());
    assert!(DataType::Bool.parse_fill_value(&json!(1)).is_err());
}

#[test]
fn complex_and_raw_fill_values() {
    let c = DataType::Complex64
        .parse_fill_value(&json!(["-Infinity", "NaN"]))
        .unwrap();
    assert_eq!(
        DataType::Complex64.fill_value_to_json(&c),
        json!(["-Infinity", "NaN"])
    );
    let r = DataType::RawBits(3)
        .parse_fill_value(&json!([1, 2, 255]))
        .unwrap();
    assert_eq!(r.as_bytes(), &[1, 2, 255]);
    assert!(DataType::RawBits(3)
        .parse_fill_value(&json!([1, 2]))
        .is_err());
    assert!(DataType::RawBits(1)
        .parse_fill_value(&json!([256]))
        .is_err());
}

#[test]
fn fill_pattern_and_comparison() {
    let fill = FillValue::new(1.0f32.to_ne_bytes().to_vec());
    let mut buf = vec![0u8; 16];
    fill.fill(&mut buf);
    assert!(fill.equals_all(&buf));
    buf[5] ^= 1;
    assert!(!fill.equals_all(&buf));
}

#[test]
fn numpy_dtype_strings() {
    use super::{numpy_dtype_str, parse_numpy_dtype, ByteOrder as B};
    let native = B::native();
    for (text, dt, order) in [
        ("<f8", DataType::Float64, Some(B::Little)),
        (">i2", DataType::Int16, Some(B::Big)),
        ("|u1", DataType::UInt8, None),
        ("<u1", DataType::UInt8, None),
        ("b1", DataType::Bool, None),
        ("|b1", DataType::Bool, None),
        ("f4", DataType::Float32, Some(native)),
        ("=i8", DataType::Int64, Some(native)),
        ("|u4", DataType::UInt32, Some(native)),
        (">c8", DataType::Complex64, Some(B::Big)),
        ("<c16", DataType::Complex128, Some(B::Little)),
        ("<f2", DataType::Float16, Some(B::Little)),
        ("|V3", DataType::RawBits(3), None),
        (">u8", DataType::UInt64, Some(B::Big)),
        ("i1", DataType::Int8, None),
    ] {
        assert_eq!(parse_numpy_dtype(text), Some((dt, order)), "{text}");
    }
    for bad in [
        "", "<", "f", "<f3", "<i16", "<U0", "|S04", "<M8[xs]", "<M8[]", "O", "<f8 ", "<<f8", "|V0",
        "|V", "|V03", "float64", "?",
    ] {
        assert_eq!(parse_numpy_dtype(bad), None, "{bad}");
    }
    assert_eq!(
        numpy_dtype_str(&DataType::Float64, Some(B::Little)).unwrap(),
        "<f8"
    );
    assert_eq!(
        numpy_dtype_str(&DataType::Int16, Some(B::Big)).unwrap(),
        ">i2"
    );
    assert_eq!(
        numpy_dtype_str(&DataType::UInt8, Some(B::Little)).unwrap(),
        "|u1"
    );
    assert_eq!(
        numpy_dtype_str(&DataType::Complex128, Some(B::Big)).unwrap(),
        ">c16"
    );
    assert_eq!(numpy_dtype_str(&DataType::RawBits(5), None).unwrap(), "|V5");
}

#[test]
fn extension_names_and_documents() {
    for (json, size, unit) in [
        (json!("bfloat16"), 2, 2),
        (json!("float8_e4m3"), 1, 1),
        (json!("float8_e5m2fnuz"), 1, 1),
        (
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 16}}),
            16,
            4,
        ),
        (
            json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}),
            5,
            1,
        ),
        (
            json!({"name": "raw_bytes", "configuration": {"length_bytes": 3}}),
            3,
            1,
        ),
        (
            json!({"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 10}}),
            8,
            8,
        ),
        (
            json!({"name": "numpy.timedelta64", "configuration": {"unit": "generic", "scale_factor": 1}}),
            8,
            8,
        ),
        (
            json!({"name": "struct", "configuration": {"fields": [
                {"name": "a", "data_type": "uint8"},
                {"name": "b", "data_type": {"name": "struct", "configuration": {"fields": [
                    {"name": "c", "data_type": "float64"}]}}}]}}),
            9,
            8,
        ),
    ] {
        let dt = DataType::from_json(&json).unwrap();
        assert_eq!(dt.size(), size, "{json}");
        assert_eq!(dt.endian_unit(), unit, "{json}");
        assert_eq!(dt.to_json(), json, "written back as read");
    }
    // The legacy form is read and written back as it was.
    let legacy = json!({"name": "structured", "configuration": {"fields": [["x", "int16"], ["y", "uint8"]]}});
    let dt = DataType::from_json(&legacy).unwrap();
    assert_eq!(dt.size(), 3);
    assert_eq!(dt.to_json(), legacy);
    for bad in [
        json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}}),
        json!({"name": "fixed_length_utf32"}),
        json!({"name": "numpy.datetime64", "configuration": {"unit": "fortnight", "scale_factor": 1}}),
        json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 0}}),
        json!({"name": "numpy.datetime64", "configuration": {"unit": "s"}}),
        json!({"name": "struct", "configuration": {"fields": []}}),
        json!({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int8"}]}}),
        json!({"name": "struct", "configuration": {"fields": [{"name": "a", "data_type": "string"}]}}),
        json!({"name": "raw_bytes", "configuration": {"length_bytes": 0}}),
        json!({"name": "float32", "configuration": {"x": 1}}),
        json!(7),
    ] {
        assert!(DataType::from_json(&bad).is_err(), "{bad}");
    }
}

#[test]
fn extension_fill_values() {
    let utf32 = DataType::FixedLengthUtf32(8);
    let f = utf32.parse_fill_value(&json!("é")).unwrap();
    assert_eq!(f.as_bytes()[..4], ('é' as u32).to_ne_bytes());
    assert_eq!(f.as_bytes()[4..], [0; 4]);
    assert_eq!(utf32.fill_value_to_json(&f), json!("é"));
    assert!(
        utf32.parse_fill_value(&json!("abc")).is_err(),
        "3 code points in 2"
    );
    let s = DataType::NullTerminatedBytes(4);
    let f = s.parse_fill_value(&json!("aGk=")).unwrap();
    assert_eq!(f.as_bytes(), b"hi\0\0");
    assert_eq!(s.fill_value_to_json(&f), json!("aGkAAA=="));
    assert!(
        s.parse_fill_value(&json!("aGVsbG8=")).is_err(),
        "5 bytes in 4"
    );
    let t = DataType::DateTime64(TimeUnit {
        unit: TimeUnitName::Seconds,
        scale_factor: 1,
    });
    let nat = t.parse_fill_value(&json!("NaT")).unwrap();
    assert_eq!(nat.as_bytes(), i64::MIN.to_ne_bytes());
    assert_eq!(t.fill_value_to_json(&nat), json!(i64::MIN));
    assert_eq!(
        t.parse_fill_value(&json!(-9223372036854775808i64)).unwrap(),
        nat
    );
    let bf = DataType::BFloat16;
    assert_eq!(
        bf.parse_fill_value(&json!("NaN")).unwrap().as_bytes(),
        0x7fc0u16.to_ne_bytes()
    );
    assert_eq!(
        bf.fill_value_to_json(&bf.parse_fill_value(&json!(1.5)).unwrap()),
        json!(1.5)
    );
    let e4 = DataType::Float8(Float8Format::E4M3FNUZ);
    assert!(
        e4.parse_fill_value(&json!("Infinity")).is_err(),
        "fnuz has no infinity"
    );
    assert_eq!(
        e4.parse_fill_value(&json!("0x7f")).unwrap().as_bytes(),
        &[0x7f]
    );
    assert_eq!(
        e4.fill_value_to_json(&FillValue::new(vec![0x80])),
        json!("NaN")
    );
    assert_eq!(
        e4.fill_value_to_json(&FillValue::new(vec![0x40])),
        json!(1.0)
    );
}

#[test]
fn struct_fill_values_and_swapping() {
    let dt = DataType::from_json(&json!({"name": "struct", "configuration": {"fields": [
        {"name": "a", "data_type": "uint16"}, {"name": "b", "data_type": "int8"},
        {"name": "c", "data_type": "float32"}]}}))
    .unwrap();
    let fill = dt
        .parse_fill_value(&json!({"a": 258, "b": -1, "c": 1.5}))
        .unwrap();
    let mut want = 258u16.to_ne_bytes().to_vec();
    want.push(0xff);
    want.extend(1.5f32.to_ne_bytes());
    assert_eq!(fill.as_bytes(), &want);
    assert_eq!(
        dt.fill_value_to_json(&fill),
        json!({"a": 258, "b": -1, "c": 1.5})
    );
    // Missing fields are zero; unknown ones, the wrong shape, wrong sizes are errors.
    assert_eq!(
        dt.parse_fill_value(&json!({"b": 0})).unwrap(),
        dt.zero_fill_value()
    );
    assert!(dt.parse_fill_value(&json!({"d": 0})).is_err());
    assert!(dt.parse_fill_value(&json!([1, 2, 3])).is_err());
    assert!(
        dt.parse_fill_value(&json!("AAAA")).is_err(),
        "3 bytes for a 7-byte element"
    );
    // base64 of the little-endian element.
    let le = dt.parse_fill_value(&json!("AgH/AADAPw==")).unwrap();
    assert_eq!(le, fill);
    // Swapping to big endian reverses each field, not the element.
    let mut data = want.clone();
    dt.swap_stored(&mut data, ByteOrder::Big);
    let mut be = 258u16.to_be_bytes().to_vec();
    be.push(0xff);
    be.extend(1.5f32.to_be_bytes());
    assert_eq!(data, be);
    assert!(dt.needs_swap(ByteOrder::Big) != dt.needs_swap(ByteOrder::Little));
    // v2: every field in its own order, sub-arrays swapped element by element.
    let v2 = StructType::from_numpy_v2(
        json!([
            ["x", ">u2"],
            ["y", "<u2"],
            ["z", ">i2", [2]],
            ["n", [["p", ">u4"]]]
        ])
        .as_array()
        .unwrap(),
    )
    .unwrap();
    let v2 = DataType::Struct(std::sync::Arc::new(v2));
    assert_eq!(v2.size(), 12);
    let host: Vec<u8> = [1u16, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .chain(5u32.to_ne_bytes())
        .collect();
    let mut stored = host.clone();
    v2.swap_stored(&mut stored, ByteOrder::Little);
    assert_eq!(stored, [0, 1, 2, 0, 0, 3, 0, 4, 0, 0, 0, 5]);
    v2.swap_stored(&mut stored, ByteOrder::Little);
    assert_eq!(stored, host);
    let DataType::Struct(s) = &v2 else {
        unreachable!()
    };
    assert_eq!(
        s.to_numpy_v2(ByteOrder::Little).unwrap(),
        json!([
            ["x", ">u2"],
            ["y", "<u2"],
            ["z", ">i2", [2]],
            ["n", [["p", ">u4"]]]
        ])
    );
}

#[test]
fn numpy_strings_and_times() {
    use super::{numpy_dtype_str, parse_numpy_dtype, ByteOrder as B};
    let ms10 = TimeUnit {
        unit: TimeUnitName::Milliseconds,
        scale_factor: 10,
    };
    for (text, dt, order) in [
        ("<U4", DataType::FixedLengthUtf32(16), Some(B::Little)),
        (">U1", DataType::FixedLengthUtf32(4), Some(B::Big)),
        ("|S7", DataType::NullTerminatedBytes(7), None),
        ("<M8[10ms]", DataType::DateTime64(ms10), Some(B::Little)),
        (">m8[10ms]", DataType::TimeDelta64(ms10), Some(B::Big)),
    ] {
        assert_eq!(parse_numpy_dtype(text), Some((dt.clone(), order)), "{text}");
        assert_eq!(numpy_dtype_str(&dt, order).unwrap(), text);
    }
    let generic = parse_numpy_dtype("<M8").unwrap().0;
    assert_eq!(numpy_dtype_str(&generic, Some(B::Little)).unwrap(), "<M8");
    assert_eq!(parse_numpy_dtype("<m8[ns]").unwrap().0.size(), 8);
}

#[test]
fn numpy_dtypes_with_a_non_ascii_kind_are_refused() {
    // Found by the codec_chain fuzz target: a kind of more than one byte used to be cut off
    // at byte 1, inside the character, which panicked.
    for text in [
        "<\u{e9}5",
        "\u{e9}",
        "|\u{20ac}12",
        "<\u{80}",
        "=\u{1F600}4",
        "V\u{e9}",
    ] {
        assert_eq!(parse_numpy_dtype(text), None, "{text}");
    }
}

#[test]
fn base64_round_trip() {
    for bytes in [&b""[..], b"a", b"ab", b"abc", b"abcd", &[0xff, 0, 0x80]] {
        assert_eq!(decode_base64(&encode_base64(bytes)).unwrap(), bytes);
    }
    assert_eq!(encode_base64(b"hi\0"), "aGkA");
    assert!(decode_base64("a").is_none());
}

/// Every registry name of the sub-byte and complex types parses, has the contract's size
/// and endian unit, and is written back as it was read.
#[test]
fn registry_sub_byte_and_complex_names() {
    let expected: [(&str, usize, usize, Option<u32>); 21] = [
        ("int2", 1, 1, Some(2)),
        ("int4", 1, 1, Some(4)),
        ("uint2", 1, 1, Some(2)),
        ("uint4", 1, 1, Some(4)),
        ("float4_e2m1fn", 1, 1, Some(4)),
        ("float6_e2m3fn", 1, 1, Some(6)),
        ("float6_e3m2fn", 1, 1, Some(6)),
        ("complex_bfloat16", 4, 2, None),
        ("complex_float16", 4, 2, None),
        ("complex_float32", 8, 4, None),
        ("complex_float64", 16, 8, None),
        ("complex_float4_e2m1fn", 2, 1, Some(4)),
        ("complex_float6_e2m3fn", 2, 1, Some(6)),
        ("complex_float6_e3m2fn", 2, 1, Some(6)),
        ("complex_float8_e3m4", 2, 1, None),
        ("complex_float8_e4m3", 2, 1, None),
        ("complex_float8_e4m3b11fnuz", 2, 1, None),
        ("complex_float8_e4m3fnuz", 2, 1, None),
        ("complex_float8_e5m2", 2, 1, None),
        ("complex_float8_e5m2fnuz", 2, 1, None),
        ("complex_float8_e8m0fnu", 2, 1, None),
    ];
    for (name, size, unit, bits) in expected {
        let t = DataType::from_name(name).unwrap();
        assert_eq!(t.name(), name);
        assert_eq!(t.to_json(), json!(name));
        assert_eq!(t.size(), size, "{name}");
        assert_eq!(t.endian_unit(), unit, "{name}");
        assert_eq!(t.code_bits(), bits, "{name}");
        assert_eq!(t.zero_fill_value().as_bytes(), vec![0; size]);
    }
    // The registry has no complex_float8_e4m3fn, and no configuration for these types.
    for bad in [
        "complex_float8_e4m3fn",
        "complex_int4",
        "complex_",
        "int3",
        "float4",
    ] {
        assert!(
            matches!(DataType::from_name(bad), Err(MetadataError::Unsupported(_))),
            "{bad}"
        );
    }
    assert!(DataType::from_json(&json!({"name": "int4", "configuration": {"x": 1}})).is_err());
}

/// Fill values of the sub-byte types in every spelling the registry allows, written back
/// canonically; the errors name the type.
#[test]
fn registry_sub_byte_fill_values() {
    let parse = |name: &str, value: Value| {
        DataType::from_name(name)
            .unwrap()
            .parse_fill_value(&value)
            .map(|f| f.as_bytes().to_vec())
    };
    let canonical = |name: &str, value: Value| {
        let t = DataType::from_name(name).unwrap();
        t.fill_value_to_json(&t.parse_fill_value(&value).unwrap())
    };
    // Integers: in range, as the core integer types (also the "intish" spellings).
    assert_eq!(parse("int4", json!(-1)).unwrap(), [0x0f]);
    assert_eq!(parse("int4", json!(-8)).unwrap(), [0x08]);
    assert_eq!(parse("int4", json!(7.0)).unwrap(), [0x07]);
    assert_eq!(parse("int2", json!(-2)).unwrap(), [0x02]);
    assert_eq!(parse("uint2", json!(3)).unwrap(), [0x03]);
    assert_eq!(parse("uint4", json!(15)).unwrap(), [0x0f]);
    for (name, value) in [
        ("int4", json!(8)),
        ("int4", json!(-9)),
        ("int2", json!(2)),
        ("uint2", json!(4)),
        ("uint4", json!(-1)),
        ("int4", json!(1.5)),
        ("int4", json!("NaN")),
    ] {
        let error = parse(name, value.clone()).unwrap_err().to_string();
        assert!(error.contains(name), "{name} {value}: {error}");
    }
    assert_eq!(canonical("int4", json!(-1)), json!(-1));
    assert_eq!(canonical("int2", json!(-2)), json!(-2));
    assert_eq!(canonical("uint4", json!(15)), json!(15));

    // Floats: numbers (rounded, ties to even; saturating as ml_dtypes), hex codes.
    assert_eq!(parse("float4_e2m1fn", json!(1.5)).unwrap(), [0x03]);
    assert_eq!(parse("float4_e2m1fn", json!(-6)).unwrap(), [0x0f]);
    assert_eq!(
        parse("float4_e2m1fn", json!(5)).unwrap(),
        [0x06],
        "tie to even: 4"
    );
    assert_eq!(parse("float4_e2m1fn", json!(1e10)).unwrap(), [0x07]);
    assert_eq!(parse("float4_e2m1fn", json!(-0.0)).unwrap(), [0x08]);
    assert_eq!(parse("float4_e2m1fn", json!("0x0f")).unwrap(), [0x0f]);
    assert_eq!(parse("float4_e2m1fn", json!("0xF")).unwrap(), [0x0f]);
    assert_eq!(parse("float6_e2m3fn", json!(7.5)).unwrap(), [0x1f]);
    assert_eq!(parse("float6_e2m3fn", json!("0x3f")).unwrap(), [0x3f]);
    assert_eq!(parse("float6_e3m2fn", json!(28)).unwrap(), [0x1f]);
    assert_eq!(parse("float6_e3m2fn", json!(0.0625)).unwrap(), [0x01]);
    for (name, value, why) in [
        ("float4_e2m1fn", json!("NaN"), "no NaN and no infinities"),
        (
            "float4_e2m1fn",
            json!("Infinity"),
            "no NaN and no infinities",
        ),
        (
            "float6_e2m3fn",
            json!("-Infinity"),
            "no NaN and no infinities",
        ),
        ("float4_e2m1fn", json!("0x10"), "below 0x10"),
        ("float6_e3m2fn", json!("0x40"), "below 0x40"),
        ("float6_e3m2fn", json!("0x001"), "below 0x40"),
        ("float6_e3m2fn", json!(true), "expected a number"),
    ] {
        let error = parse(name, value.clone()).unwrap_err().to_string();
        assert!(
            error.contains(name) && error.contains(why),
            "{value}: {error}"
        );
    }
    assert_eq!(canonical("float4_e2m1fn", json!("0x0f")), json!(-6.0));
    assert_eq!(canonical("float6_e3m2fn", json!(100)), json!(28.0));
    assert_eq!(canonical("float4_e2m1fn", json!(-0.0)), json!(-0.0));
}

/// Complex fill values: `[re, im]` in the component's spellings, hex per component.
#[test]
fn registry_complex_fill_values() {
    let t = DataType::from_name("complex_float4_e2m1fn").unwrap();
    let f = t.parse_fill_value(&json!([-0.5, "0x07"])).unwrap();
    assert_eq!(f.as_bytes(), [0x09, 0x07]);
    assert_eq!(t.fill_value_to_json(&f), json!([-0.5, 6.0]));
    let error = t
        .parse_fill_value(&json!([1.0, "NaN"]))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("imaginary part") && error.contains("no NaN"),
        "{error}"
    );
    assert!(t.parse_fill_value(&json!(1.0)).is_err());
    assert!(t.parse_fill_value(&json!([1.0, 2.0, 3.0])).is_err());

    let t = DataType::from_name("complex_bfloat16").unwrap();
    let f = t.parse_fill_value(&json!(["NaN", "0xc040"])).unwrap();
    let expected: Vec<u8> = [0x7fc0u16, 0xc040]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    assert_eq!(f.as_bytes(), expected);
    assert_eq!(t.fill_value_to_json(&f), json!(["NaN", -3.0]));

    let t = DataType::from_name("complex_float32").unwrap();
    let f = t.parse_fill_value(&json!([1.5, "-Infinity"])).unwrap();
    let expected: Vec<u8> = [1.5f32, f32::NEG_INFINITY]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    assert_eq!(f.as_bytes(), expected);
    assert_eq!(t.fill_value_to_json(&f), json!([1.5, "-Infinity"]));

    let t = DataType::from_name("complex_float8_e4m3fnuz").unwrap();
    let f = t.parse_fill_value(&json!(["NaN", "0x01"])).unwrap();
    assert_eq!(f.as_bytes(), [0x80, 0x01]);
    // e4m3fnuz has no infinity.
    assert!(t.parse_fill_value(&json!(["Infinity", 0])).is_err());
}

/// Host bytes with bits above the code are found; the bytes codec's clearing leaves codes.
#[test]
fn registry_upper_bits() {
    let int4 = DataType::from_name("int4").unwrap();
    assert_eq!(
        int4.first_byte_above_code(&[0x0f, 0x07, 0x1f]),
        Some((2, 0x1f))
    );
    assert_eq!(int4.first_byte_above_code(&[0x0f, 0x08]), None);
    let mut stored = [0xff, 0x17, 0xf8];
    int4.clear_upper_bits(&mut stored);
    assert_eq!(stored, [0x0f, 0x07, 0x08]);
    let c6 = DataType::from_name("complex_float6_e2m3fn").unwrap();
    assert_eq!(c6.first_byte_above_code(&[0x3f, 0x40]), Some((1, 0x40)));
    assert_eq!(DataType::Int8.first_byte_above_code(&[0xff]), None);
    let mut bytes = [0xff];
    DataType::Int8.clear_upper_bits(&mut bytes);
    assert_eq!(bytes, [0xff]);
}
