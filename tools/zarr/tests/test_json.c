/* test_json.c -- unit tests of the zarr tool's JSON reader (tools/zarr/json.c). */
#include "ztest.h"

#include "json.h"

static json_value *parse(const char *s) { return json_parse(s, strlen(s), NULL, 0); }

/* Parsing fails, with a message naming the offset. */
static int rejects(const char *s) {
    char err[128];
    json_value *v = json_parse(s, strlen(s), err, sizeof err);
    if (v) {
        json_free(v);
        fprintf(stderr, "accepted: %s\n", s);
        return 0;
    }
    if (strncmp(err, "offset ", 7) != 0) {
        fprintf(stderr, "bad message for %s: %s\n", s, err);
        return 0;
    }
    return 1;
}

ZTEST(scalars) {
    json_value *v = parse(" true ");
    ZT_CHECK(v && v->type == JSON_BOOL && v->boolean == 1);
    json_free(v);
    v = parse("false");
    ZT_CHECK(v && v->type == JSON_BOOL && v->boolean == 0);
    json_free(v);
    v = parse("null");
    ZT_CHECK(v && v->type == JSON_NULL);
    json_free(v);
    v = parse("\"x\"");
    ZT_CHECK(v && v->type == JSON_STRING && !strcmp(json_string(v), "x"));
    json_free(v);
}

ZTEST(numbers) {
    const char *ok[] = {"0", "-0", "12", "-3.25", "1e3", "1E+3", "2.5e-3", "18446744073709551615", "1.5e308"};
    double values[] = {0, -0.0, 12, -3.25, 1000, 1000, 0.0025, 18446744073709551615.0, 1.5e308};
    unsigned long long u;
    size_t i;
    json_value *v;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        v = parse(ok[i]);
        ZT_CHECK(v && v->type == JSON_NUMBER && v->number == values[i] && !strcmp(v->text, ok[i]));
        json_free(v);
    }
    v = parse("18446744073709551615");
    ZT_CHECK(json_u64(v, &u) && u == 18446744073709551615ULL);
    json_free(v);
    v = parse("18446744073709551616");
    ZT_CHECK(v && !json_u64(v, &u));
    json_free(v);
    v = parse("-1");
    ZT_CHECK(v && !json_u64(v, &u));
    json_free(v);
    v = parse("1.0");
    ZT_CHECK(v && !json_u64(v, &u));
    json_free(v);
}

ZTEST(invalid_numbers) {
    ZT_CHECK(rejects("01"));
    ZT_CHECK(rejects("-"));
    ZT_CHECK(rejects("1."));
    ZT_CHECK(rejects(".5"));
    ZT_CHECK(rejects("1e"));
    ZT_CHECK(rejects("1e+"));
    ZT_CHECK(rejects("+1"));
    ZT_CHECK(rejects("NaN"));
    ZT_CHECK(rejects("Infinity"));
    ZT_CHECK(rejects("-Infinity"));
    ZT_CHECK(rejects("0x10"));
}

ZTEST(objects_and_arrays) {
    json_value *v = parse("{\"a\": [1, 2, {\"b\": null}], \"c\": {}, \"d\": [], \"a\": 5}");
    const json_value *a;
    ZT_CHECK(v && v->type == JSON_OBJECT && v->count == 4);
    ZT_CHECK(!strcmp(v->keys[0], "a") && v->items[0].type == JSON_ARRAY && v->items[0].count == 3);
    ZT_CHECK(json_get(&v->items[0].items[2], "b")->type == JSON_NULL);
    a = json_get(v, "a"); /* the last of repeated keys */
    ZT_CHECK(a && a->type == JSON_NUMBER && a->number == 5);
    ZT_CHECK(json_get(v, "c")->type == JSON_OBJECT && json_get(v, "c")->count == 0);
    ZT_CHECK(json_get(v, "d")->type == JSON_ARRAY && json_get(v, "d")->count == 0);
    ZT_CHECK(json_get(v, "zz") == NULL && json_get(NULL, "a") == NULL && json_get(&v->items[0], "a") == NULL);
    json_free(v);
}

ZTEST(string_escapes) {
    json_value *v = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"");
    ZT_CHECK(v && v->type == JSON_STRING);
    ZT_CHECK(v && !strcmp(v->text, "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
    json_free(v);
    v = parse("\"nul\\u0000inside\"");
    ZT_CHECK(v && v->text_len == 10 && v->text[3] == '\0' && !strcmp(v->text + 4, "inside"));
    json_free(v);
    v = parse("\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
    ZT_CHECK(v && !strcmp(v->text, "caf\xc3\xa9 \xf0\x9f\x98\x80"));
    json_free(v);
}

ZTEST(bad_escapes) {
    ZT_CHECK(rejects("\"\\x\""));
    ZT_CHECK(rejects("\"\\u12\""));
    ZT_CHECK(rejects("\"\\u12G4\""));
    ZT_CHECK(rejects("\"\\ud83d\""));        /* high surrogate alone */
    ZT_CHECK(rejects("\"\\ud83dx\""));       /* high surrogate, no escape after */
    ZT_CHECK(rejects("\"\\ud83d\\u0041\"")); /* high surrogate + non-surrogate */
    ZT_CHECK(rejects("\"\\ude00\""));        /* lone low surrogate */
    ZT_CHECK(rejects("\"\\"));
    ZT_CHECK(rejects("\"tab\there\""));      /* raw control character */
    ZT_CHECK(rejects("\"\xff\""));           /* not UTF-8 */
    ZT_CHECK(rejects("\"\xc3\""));           /* truncated UTF-8 */
    ZT_CHECK(rejects("\"\xed\xa0\x80\""));   /* UTF-8 encoded surrogate */
    ZT_CHECK(rejects("\"\xc0\xaf\""));       /* overlong */
}

ZTEST(invalid_structure) {
    const char *bad[] = {"", " ", "[", "]", "{", "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
                         "{\"a\":}", "{1:2}", "[1]]", "{} {}", "tru", "nul", "falsey", "'a'", "[1,2", "{\"a\":1"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) ZT_CHECK(rejects(bad[i]));
    ZT_CHECK(json_parse(NULL, 0, NULL, 0) == NULL);
}

ZTEST(truncated) {
    /* Every proper prefix of a valid document is rejected, and reading stays within the
     * given length: the prefix is copied into a buffer of exactly that size. */
    const char *doc = "{\"shape\": [10, 20], \"name\": \"a\\u00e9\\ud83d\\ude00\", \"x\": [true, false, null, -1.5e3]}";
    size_t n = strlen(doc), len;
    json_value *v = parse(doc);
    ZT_CHECK(v != NULL);
    json_free(v);
    for (len = 0; len < n; len++) {
        char *copy = malloc(len ? len : 1);
        memcpy(copy, doc, len);
        v = json_parse(copy, len, NULL, 0);
        free(copy);
        if (v) {
            json_free(v);
            ZT_FAIL_("prefix of length %lu accepted", (unsigned long)len);
        }
    }
}

ZTEST(deep_nesting) {
    char buf[2 * (JSON_MAX_DEPTH + 10) + 1];
    int depth;
    json_value *v;
    /* JSON_MAX_DEPTH nested arrays are fine, one more is refused */
    for (depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
        memset(buf, '[', (size_t)depth);
        memset(buf + depth, ']', (size_t)depth);
        v = json_parse(buf, 2 * (size_t)depth, NULL, 0);
        ZT_CHECK((v != NULL) == (depth == JSON_MAX_DEPTH));
        json_free(v);
    }
    /* a very deep unterminated document fails without recursing deeply */
    {
        size_t n = 1000000;
        char *deep = malloc(n), err[128];
        memset(deep, '[', n);
        v = json_parse(deep, n, err, sizeof err);
        ZT_CHECK(v == NULL);
        ZT_STR_CONTAINS(err, "nesting too deep");
        free(deep);
    }
}

ZTEST(error_offsets) {
    char err[128];
    ZT_CHECK(json_parse("[1, 2, x]", 9, err, sizeof err) == NULL);
    ZT_STR_CONTAINS(err, "offset 7");
    ZT_CHECK(json_parse("{\"a\": 1} x", 10, err, sizeof err) == NULL);
    ZT_STR_CONTAINS(err, "trailing");
    /* a zero-sized message buffer is fine */
    ZT_CHECK(json_parse("[", 1, err, 0) == NULL);
}

ZTEST(print_round_trip) {
    const char *doc = "{\"a\":[1,-2.5e3,true,false,null],\"s\":\"q\\\"\\\\\\n\\u0001\xc3\xa9\",\"o\":{}}";
    json_value *v = parse(doc);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ZT_CHECK(v && f);
    json_print(v, f);
    fclose(f);
    ZT_CHECK(!strcmp(out, doc));
    free(out);
    json_free(v);
}

static const ztest_case ztest_cases[] = {
    ZCASE(scalars),
    ZCASE(numbers),
    ZCASE(invalid_numbers),
    ZCASE(objects_and_arrays),
    ZCASE(string_escapes),
    ZCASE(bad_escapes),
    ZCASE(invalid_structure),
    ZCASE(truncated),
    ZCASE(deep_nesting),
    ZCASE(error_offsets),
    ZCASE(print_round_trip),
};

ZTEST_MAIN()
