/* Stores of the caller's own (zarr_store_open_callbacks): a hash map store used for whole
 * array and group round trips, sharded arrays, consolidated metadata and listings; a store
 * that counts calls; injected faults (the k-th call fails) swept over a sharded write, a
 * consolidate and a delete, checking that every failure is a clean status with the
 * callback's message and that no chunk holds anything but its old or its new content. */
#include "ztest.h"

#include <pthread.h>

/* ---- a thread-safe hash map store ---------------------------------------------------- */

enum { OP_GET, OP_GET_RANGE, OP_SIZE, OP_SET, OP_ERASE, OP_LIST, OP_ERASE_PREFIX, OP_COUNT };

typedef struct entry {
    char *key;
    unsigned char *value;
    size_t len;
    struct entry *next;
} entry;

#define BUCKETS 64

typedef struct {
    pthread_mutex_t lock;
    entry *buckets[BUCKETS];
    long calls[OP_COUNT];
    /* Fault injection: the fail_at-th call after arming fails with fail_status. */
    long fail_at;
    long seen;
    zarr_status fail_status;
    const char *fail_message; /* NULL: fail without a message */
    /* Misbehaviours for the error tests. */
    int overlong_ranges;   /* get_range writes one byte more than asked */
    int junk_keys;         /* list adds keys that are not valid keys */
} mapstore;

static int freed_count;

static unsigned hash(const char *key) {
    unsigned h = 5381;
    while (*key) h = h * 33u + (unsigned char)*key++;
    return h % BUCKETS;
}

static entry *find(mapstore *m, const char *key) {
    entry *e;
    for (e = m->buckets[hash(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

/* Count the call and decide whether it is the injected fault; called under the lock. */
static int fault(mapstore *m, int op) {
    m->calls[op]++;
    if (m->fail_at > 0 && ++m->seen == m->fail_at) {
        if (m->fail_message) zarr_store_callback_set_error(m->fail_message);
        return 1;
    }
    return 0;
}

static zarr_status cb_get(void *user_data, const char *key, zarr_sink *value) {
    mapstore *m = (mapstore *)user_data;
    zarr_status s;
    entry *e;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_GET)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    e = find(m, key);
    s = e ? zarr_sink_write(value, e->value, e->len) : ZARR_ERROR_NOT_FOUND;
    pthread_mutex_unlock(&m->lock);
    return s;
}

static zarr_status cb_get_range(void *user_data, const char *key, uint64_t offset, uint64_t length,
                                bool from_end, zarr_sink *value) {
    mapstore *m = (mapstore *)user_data;
    zarr_status s = ZARR_OK;
    void *room = NULL;
    entry *e;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_GET_RANGE)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    e = find(m, key);
    if (e == NULL) {
        s = ZARR_ERROR_NOT_FOUND;
    } else if (length > e->len || (!from_end && offset > e->len - length)) {
        zarr_store_callback_set_error("range past the end");
        s = ZARR_ERROR_OUT_OF_BOUNDS;
    } else {
        size_t start = from_end ? e->len - (size_t)length : (size_t)offset;
        size_t n = (size_t)length + (m->overlong_ranges ? 1 : 0);
        /* Filled in place: no copy of our own. */
        s = zarr_sink_extend(value, n, &room);
        if (s == ZARR_OK) memcpy(room, e->value + start, (size_t)length);
    }
    pthread_mutex_unlock(&m->lock);
    return s;
}

static zarr_status cb_size(void *user_data, const char *key, uint64_t *size_out) {
    mapstore *m = (mapstore *)user_data;
    zarr_status s = ZARR_OK;
    entry *e;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_SIZE)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    e = find(m, key);
    if (e) *size_out = e->len;
    else s = ZARR_ERROR_NOT_FOUND;
    pthread_mutex_unlock(&m->lock);
    return s;
}

static zarr_status cb_set(void *user_data, const char *key, const void *value, size_t len) {
    mapstore *m = (mapstore *)user_data;
    unsigned char *copy = (unsigned char *)malloc(len ? len : 1);
    entry *e;
    if (copy == NULL) return ZARR_ERROR_OUT_OF_MEMORY;
    memcpy(copy, value, len);
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_SET)) {
        pthread_mutex_unlock(&m->lock);
        free(copy);
        return m->fail_status;
    }
    e = find(m, key);
    if (e == NULL) {
        unsigned h = hash(key);
        e = (entry *)calloc(1, sizeof *e);
        e->key = strdup(key);
        e->next = m->buckets[h];
        m->buckets[h] = e;
    } else {
        free(e->value);
    }
    e->value = copy; /* the old value or the new one, never a mixture */
    e->len = len;
    pthread_mutex_unlock(&m->lock);
    return ZARR_OK;
}

static void remove_where(mapstore *m, const char *key, int prefix) {
    int b;
    for (b = 0; b < BUCKETS; b++) {
        entry **p = &m->buckets[b];
        while (*p) {
            entry *e = *p;
            int match = prefix ? strncmp(e->key, key, strlen(key)) == 0 : strcmp(e->key, key) == 0;
            if (match) {
                *p = e->next;
                free(e->key);
                free(e->value);
                free(e);
            } else {
                p = &e->next;
            }
        }
    }
}

static zarr_status cb_erase(void *user_data, const char *key) {
    mapstore *m = (mapstore *)user_data;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_ERASE)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    remove_where(m, key, 0);
    pthread_mutex_unlock(&m->lock);
    return ZARR_OK;
}

static zarr_status cb_erase_prefix(void *user_data, const char *prefix) {
    mapstore *m = (mapstore *)user_data;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_ERASE_PREFIX)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    remove_where(m, prefix, 1);
    pthread_mutex_unlock(&m->lock);
    return ZARR_OK;
}

static zarr_status cb_list(void *user_data, const char *prefix, zarr_sink *keys) {
    mapstore *m = (mapstore *)user_data;
    zarr_status s = ZARR_OK;
    size_t n = strlen(prefix);
    int b;
    pthread_mutex_lock(&m->lock);
    if (fault(m, OP_LIST)) {
        pthread_mutex_unlock(&m->lock);
        return m->fail_status;
    }
    for (b = 0; b < BUCKETS && s == ZARR_OK; b++) {
        entry *e;
        for (e = m->buckets[b]; e && s == ZARR_OK; e = e->next)
            if (strncmp(e->key, prefix, n) == 0) s = zarr_sink_write(keys, e->key, strlen(e->key) + 1);
    }
    if (s == ZARR_OK && m->junk_keys) {
        static const char junk[] = "../escape\0/abs\0\xff\xfe\0not-under-prefix-but-valid";
        s = zarr_sink_write(keys, junk, sizeof junk - 1);
    }
    pthread_mutex_unlock(&m->lock);
    return s;
}

static void cb_free(void *user_data) {
    mapstore *m = (mapstore *)user_data;
    int b;
    for (b = 0; b < BUCKETS; b++) {
        entry *e = m->buckets[b];
        while (e) {
            entry *next = e->next;
            free(e->key);
            free(e->value);
            free(e);
            e = next;
        }
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
    freed_count++;
}

static mapstore *new_mapstore(void) {
    mapstore *m = (mapstore *)calloc(1, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    m->fail_status = ZARR_ERROR_IO;
    m->fail_message = "injected fault: No space left on device";
    return m;
}

static zarr_store_callbacks full_table(mapstore *m) {
    zarr_store_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = m;
    cb.get = cb_get;
    cb.get_range = cb_get_range;
    cb.size = cb_size;
    cb.set = cb_set;
    cb.erase = cb_erase;
    cb.list = cb_list;
    cb.erase_prefix = cb_erase_prefix;
    cb.free_user_data = cb_free;
    return cb;
}

/* A store over a new map store; *map receives the map (owned by the store). */
static zarr_store *open_map(mapstore **map) {
    mapstore *m = new_mapstore();
    zarr_store_callbacks cb = full_table(m);
    zarr_store *store = NULL;
    if (zarr_store_open_callbacks(&cb, &store) != ZARR_OK) return NULL;
    *map = m;
    return store;
}

static long total_calls(mapstore *m) {
    long n = 0;
    int i;
    pthread_mutex_lock(&m->lock);
    for (i = 0; i < OP_COUNT; i++) n += m->calls[i];
    pthread_mutex_unlock(&m->lock);
    return n;
}

static void reset_calls(mapstore *m) {
    pthread_mutex_lock(&m->lock);
    memset(m->calls, 0, sizeof m->calls);
    pthread_mutex_unlock(&m->lock);
}

static void arm(mapstore *m, long k, zarr_status status) {
    pthread_mutex_lock(&m->lock);
    m->fail_at = k;
    m->seen = 0;
    m->fail_status = status;
    pthread_mutex_unlock(&m->lock);
}

/* ---- round trips ----------------------------------------------------------------------- */

static const char *const v3_f64 =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[10,7],\"data_type\":\"float64\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4,3]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":-1,"
    "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
    "{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":true}}],"
    "\"attributes\":{\"units\":\"m\"}}";

static const char *const v2_i32 =
    "{\"zarr_format\":2,\"shape\":[9],\"chunks\":[4],\"dtype\":\">i4\","
    "\"compressor\":{\"id\":\"zlib\",\"level\":3},\"fill_value\":0,\"filters\":null,"
    "\"order\":\"C\"}";

ZTEST(round_trips) {
    mapstore *m = NULL;
    zarr_store *store = open_map(&m), *view = NULL;
    zarr_group *root = NULL, *old = NULL, *again = NULL;
    zarr_array *a = NULL, *b = NULL, *reopened = NULL;
    double values[70], back[70];
    int32_t ints[9], iback[9];
    uint64_t s2[2] = {0, 0}, c2[2] = {10, 7}, s1[1] = {0}, c1[1] = {9}, chunk[2] = {1, 1};
    char *text = NULL;
    size_t n = 0;
    bool stored = false;
    uint64_t nbytes = 0;
    int i;
    ZT_CHECK(store != NULL);
    for (i = 0; i < 70; i++) values[i] = i * 0.5;
    for (i = 0; i < 9; i++) ints[i] = -i * 1000;
    ZT_OK(zarr_group_create(store, "/", "{\"title\": \"callbacks\"}", &root));
    ZT_OK(zarr_array_create(store, "/data/x", v3_f64, &a));
    ZT_OK(zarr_array_write(a, 2, s2, c2, values, sizeof values));
    ZT_OK(zarr_group_create_with_format(store, "/old", NULL, 2, &old));
    ZT_OK(zarr_array_create(store, "/old/y", v2_i32, &b));
    ZT_OK(zarr_array_write(b, 1, s1, c1, ints, sizeof ints));
    ZT_OK(zarr_array_set_attribute_string(b, "units", "mm"));
    /* New handles read everything back through the callbacks. */
    ZT_OK(zarr_array_open(store, "/data/x", &reopened));
    ZT_OK(zarr_array_read(reopened, 2, s2, c2, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    ZT_OK(zarr_array_attribute_string(reopened, "units", &text));
    ZT_CHECK(strcmp(text, "m") == 0);
    zarr_string_free(text);
    zarr_array_free(reopened);
    ZT_OK(zarr_array_open(store, "/old/y", &reopened));
    ZT_OK(zarr_array_read(reopened, 1, s1, c1, iback, sizeof iback));
    ZT_EQ_MEM(iback, ints, sizeof iback);
    zarr_array_free(reopened);
    ZT_OK(zarr_group_open(store, "/", &again));
    ZT_OK(zarr_group_attribute_string(again, "title", &text));
    ZT_CHECK(strcmp(text, "callbacks") == 0);
    zarr_string_free(text);
    /* Listing. */
    ZT_OK(zarr_group_child_count(again, &n));
    ZT_EQ_U64(n, 2);
    ZT_OK(zarr_group_descendants_json(again, &text));
    ZT_STR_CONTAINS(text, "\"/old/y\"");
    ZT_STR_CONTAINS(text, "\"/data/x\"");
    zarr_string_free(text);
    /* Chunk sizes come from the size callback, without a get. */
    reset_calls(m);
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, chunk, &stored, &nbytes));
    ZT_CHECK(stored && nbytes > 0);
    ZT_EQ_U64(m->calls[OP_SIZE], 1);
    ZT_EQ_U64(m->calls[OP_GET], 0);
    /* Consolidated metadata, then every node through the view. */
    ZT_OK(zarr_group_consolidate(again));
    ZT_OK(zarr_store_open_consolidated(store, &view));
    reset_calls(m);
    ZT_OK(zarr_array_open(view, "/data/x", &reopened));
    ZT_EQ_U64(total_calls(m), 0);
    ZT_OK(zarr_array_read(reopened, 2, s2, c2, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    zarr_array_free(reopened);
    /* Deleting (the callbacks' erase_prefix) and erasing chunks. */
    ZT_OK(zarr_array_erase_chunk(a, 2, chunk));
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, chunk, &stored, &nbytes));
    ZT_CHECK(!stored);
    ZT_OK(zarr_store_delete_node(view, "/old"));
    ZT_STATUS(zarr_array_open(store, "/old/y", &reopened), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_array_open(view, "/old/y", &reopened), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_group_child_count(again, &n));
    ZT_EQ_U64(n, 1);
    zarr_group_free(root);
    zarr_group_free(old);
    zarr_group_free(again);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(view);
    zarr_store_free(store);
}

/* A sharded array made with the builder: 16 x 16 uint16 in shards of 8 x 8 holding gzip
 * compressed chunks of 4 x 4. */
static zarr_array *sharded(zarr_store *store, const char *path) {
    zarr_array_builder *b = NULL;
    zarr_array *a = NULL;
    uint64_t shape[2] = {16, 16}, chunks[2] = {4, 4}, shards[2] = {8, 8};
    if (zarr_array_builder_new(ZARR_DATA_TYPE_UINT16, 2, shape, &b) != ZARR_OK) return NULL;
    if (zarr_array_builder_set_chunk_shape(b, 2, chunks) != ZARR_OK ||
        zarr_array_builder_set_shard_shape(b, 2, shards) != ZARR_OK ||
        zarr_array_builder_add_gzip(b, 1) != ZARR_OK ||
        zarr_array_builder_create(b, store, path, &a) != ZARR_OK) {
        fprintf(stderr, "sharded: %s\n", zarr_last_error_message());
    }
    zarr_array_builder_free(b);
    return a;
}

ZTEST(sharded_arrays_and_call_counts) {
    mapstore *m = NULL;
    zarr_store *store = open_map(&m);
    zarr_array *a = NULL;
    uint16_t values[256], back[256], one = 0;
    uint64_t start[2] = {0, 0}, count[2] = {16, 16}, at[2] = {9, 13}, single[2] = {1, 1};
    int i;
    ZT_CHECK(store != NULL);
    a = sharded(store, "/s");
    ZT_CHECK(a != NULL);
    for (i = 0; i < 256; i++) values[i] = (uint16_t)(i * 7);
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    /* One element of a sharded array: the shard's index and one inner chunk, as ranges. */
    reset_calls(m);
    ZT_OK(zarr_array_read(a, 2, at, single, &one, sizeof one));
    ZT_EQ_U64(one, values[9 * 16 + 13]);
    ZT_EQ_U64(m->calls[OP_GET_RANGE], 2);
    ZT_EQ_U64(total_calls(m), 2);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Without get_range and size, ranges are cut from whole values. */
ZTEST(optional_callbacks_absent) {
    mapstore *m = new_mapstore();
    zarr_store_callbacks cb = full_table(m);
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint16_t values[256], one = 0;
    uint64_t start[2] = {0, 0}, count[2] = {16, 16}, at[2] = {3, 4}, single[2] = {1, 1};
    uint64_t shard[2] = {0, 0}, nbytes = 0;
    bool stored = false;
    int i;
    cb.get_range = NULL;
    cb.size = NULL;
    cb.erase_prefix = NULL;
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    a = sharded(store, "/s");
    ZT_CHECK(a != NULL);
    for (i = 0; i < 256; i++) values[i] = (uint16_t)(1000 + i);
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    reset_calls(m);
    ZT_OK(zarr_array_read(a, 2, at, single, &one, sizeof one));
    ZT_EQ_U64(one, 1000 + 3 * 16 + 4);
    ZT_EQ_U64(m->calls[OP_GET_RANGE], 0);
    ZT_CHECK(m->calls[OP_GET] >= 1);
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 2, shard, &stored, &nbytes));
    ZT_CHECK(stored && nbytes > 0);
    /* Deleting lists and erases key by key. */
    reset_calls(m);
    ZT_OK(zarr_store_delete_node(store, "/s"));
    ZT_CHECK(m->calls[OP_LIST] >= 1 && m->calls[OP_ERASE] >= 5);
    ZT_STATUS(zarr_array_read(a, 2, at, single, &one, sizeof one), ZARR_OK);
    ZT_EQ_U64(one, 0); /* the node is gone: the old handle reads the fill value */
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(free_user_data_exactly_once) {
    mapstore *m;
    zarr_store_callbacks cb;
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    int before = freed_count;
    /* Freed when the last handle goes, in any order. */
    m = new_mapstore();
    cb = full_table(m);
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    cb.user_data = NULL; /* the library copied the table */
    ZT_OK(zarr_group_create(store, "/", NULL, &g));
    ZT_OK(zarr_array_create(store, "/a", v2_i32, &a));
    zarr_store_free(store);
    ZT_EQ_U64(freed_count, before);
    zarr_group_free(g);
    ZT_EQ_U64(freed_count, before);
    zarr_array_free(a);
    ZT_EQ_U64(freed_count, before + 1);
    /* Freed before returning when opening fails after taking ownership. */
    m = new_mapstore();
    cb = full_table(m);
    cb.version = ZARR_STORE_CALLBACKS_VERSION + 1;
    store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_callbacks(&cb, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_EQ_U64(freed_count, before + 2);
    m = new_mapstore();
    cb = full_table(m);
    cb.get = NULL;
    ZT_STATUS(zarr_store_open_callbacks(&cb, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_U64(freed_count, before + 3);
    m = new_mapstore();
    cb = full_table(m);
    cb.list = NULL;
    ZT_STATUS(zarr_store_open_callbacks(&cb, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_U64(freed_count, before + 4);
    m = new_mapstore();
    cb = full_table(m);
    cb.erase = NULL; /* set without erase */
    ZT_STATUS(zarr_store_open_callbacks(&cb, &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_U64(freed_count, before + 5);
    m = new_mapstore();
    cb = full_table(m);
    ZT_STATUS(zarr_store_open_callbacks(&cb, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_EQ_U64(freed_count, before + 6);
    /* No table: nothing to free. */
    ZT_STATUS(zarr_store_open_callbacks(NULL, &store), ZARR_ERROR_NULL_ARGUMENT);
    ZT_EQ_U64(freed_count, before + 6);
    /* free_user_data may be NULL: the caller keeps ownership. */
    m = new_mapstore();
    cb = full_table(m);
    cb.free_user_data = NULL;
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    zarr_store_free(store);
    ZT_EQ_U64(freed_count, before + 6);
    cb_free(m);
}

ZTEST(read_only_store) {
    mapstore *m = NULL;
    zarr_store *writable = open_map(&m), *ro = NULL;
    zarr_store_callbacks cb;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    int32_t ints[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint64_t s1[1] = {0}, c1[1] = {9}, chunk[1] = {0};
    ZT_CHECK(writable != NULL);
    ZT_OK(zarr_array_create(writable, "/a", v2_i32, &a));
    ZT_OK(zarr_array_write(a, 1, s1, c1, ints, sizeof ints));
    zarr_array_free(a);
    cb = full_table(m);
    cb.set = NULL;
    cb.erase = NULL;
    cb.erase_prefix = NULL;
    cb.free_user_data = NULL; /* the writable store owns the map */
    ZT_OK(zarr_store_open_callbacks(&cb, &ro));
    ZT_OK(zarr_array_open(ro, "/a", &a));
    ZT_OK(zarr_array_read(a, 1, s1, c1, ints, sizeof ints));
    ZT_EQ_U64(ints[8], 9);
    ZT_STATUS(zarr_array_write(a, 1, s1, c1, ints, sizeof ints), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_array_set_attribute_int64(a, "k", 1), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_array_erase_chunk(a, 1, chunk), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_store_delete_node(ro, "/a"), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_group_create(ro, "/g", NULL, &g), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_group_create_with_format(ro, "/g", NULL, 3, &g), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_array_delete_attribute(a, "k"), ZARR_ERROR_NOT_FOUND);
    {
        zarr_array_builder *b = NULL;
        zarr_array *made = NULL;
        zarr_group *root = NULL;
        uint64_t shape[1] = {4};
        ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 1, shape, &b));
        ZT_STATUS(zarr_array_builder_create(b, ro, "/made", &made), ZARR_ERROR_READ_ONLY);
        zarr_array_builder_free(b);
        ZT_OK(zarr_group_open(writable, "/", &root));
        ZT_OK(zarr_group_set_attribute_int64(root, "n", 1));
        zarr_group_free(root);
        ZT_OK(zarr_group_open(ro, "/", &root));
        ZT_STATUS(zarr_group_set_attribute_int64(root, "n", 2), ZARR_ERROR_READ_ONLY);
        ZT_STATUS(zarr_group_delete_attribute(root, "n"), ZARR_ERROR_READ_ONLY);
        zarr_group_free(root);
    }
    zarr_array_free(a);
    zarr_store_free(ro);
    zarr_store_free(writable);
}

/* A get callback that fails with the status in *user_data, with or without a message. */
typedef struct {
    zarr_status status;
    int with_message;
} failing;

static zarr_status fail_get(void *user_data, const char *key, zarr_sink *value) {
    failing *f = (failing *)user_data;
    (void)key;
    (void)value;
    if (f->with_message) zarr_store_callback_set_error("disk on fire (EIO)");
    return f->status;
}

static zarr_status empty_list(void *user_data, const char *prefix, zarr_sink *keys) {
    (void)user_data;
    (void)prefix;
    (void)keys;
    return ZARR_OK;
}

/* What opening an array reports when every get fails with `status`. */
static zarr_status open_with_failing_get(zarr_status status, int with_message) {
    failing f;
    zarr_store_callbacks cb;
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_status s;
    f.status = status;
    f.with_message = with_message;
    memset(&cb, 0, sizeof cb);
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = &f;
    cb.get = fail_get;
    cb.list = empty_list;
    if (zarr_store_open_callbacks(&cb, &store) != ZARR_OK) return 12345;
    s = zarr_array_open(store, "/a", &a);
    zarr_store_free(store);
    return s;
}

ZTEST(callback_errors_become_statuses) {
    mapstore *m = NULL;
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    uint16_t values[256], one;
    uint64_t start[2] = {0, 0}, count[2] = {16, 16}, at[2] = {1, 1}, single[2] = {1, 1};
    size_t n = 0;
    void *room = (void *)1;
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_IO, 1), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_open");
    ZT_STR_CONTAINS(zarr_last_error_message(), "get of 'a/zarr.json'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "disk on fire (EIO)");
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_IO, 0), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "without a message");
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_OUT_OF_MEMORY, 1), ZARR_ERROR_OUT_OF_MEMORY);
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_READ_ONLY, 1), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_CORRUPT_DATA, 1), ZARR_ERROR_CORRUPT_DATA);
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_UNSUPPORTED, 1), ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_INVALID_PATH, 1), ZARR_ERROR_INVALID_PATH);
    /* Statuses a store cannot mean, and values that are not statuses: I/O errors. */
    ZT_STATUS(open_with_failing_get(ZARR_ERROR_NODE_TYPE_MISMATCH, 1), ZARR_ERROR_IO);
    ZT_STATUS(open_with_failing_get(42, 1), ZARR_ERROR_IO);
    ZT_STATUS(open_with_failing_get(-12345, 0), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "-12345");
    /* A range callback that writes more than asked, or reports a range past the end. */
    store = open_map(&m);
    ZT_CHECK(store != NULL);
    a = sharded(store, "/s");
    ZT_CHECK(a != NULL);
    memset(values, 1, sizeof values);
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    m->overlong_ranges = 1;
    ZT_STATUS(zarr_array_read(a, 2, at, single, &one, sizeof one), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "byte range");
    m->overlong_ranges = 0;
    ZT_OK(zarr_array_read(a, 2, at, single, &one, sizeof one));
    /* Junk keys from a listing are skipped. */
    m->junk_keys = 1;
    ZT_OK(zarr_group_open(store, "/", &g));
    ZT_OK(zarr_group_child_count(g, &n));
    ZT_EQ_U64(n, 1);
    m->junk_keys = 0;
    /* The sink and message functions outside a callback, or with NULL. */
    ZT_STATUS(zarr_sink_write(NULL, "x", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_sink_extend(NULL, 1, &room), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(room == NULL);
    zarr_store_callback_set_error(NULL);
    zarr_store_callback_set_error("not in a callback: ignored");
    ZT_OK(zarr_array_read(a, 2, at, single, &one, sizeof one));
    zarr_group_free(g);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Sink misuse inside callbacks: NULL data with a length, a NULL out pointer. */
static zarr_status misuse_get(void *user_data, const char *key, zarr_sink *value) {
    int *results = (int *)user_data;
    (void)key;
    results[0] = zarr_sink_write(value, NULL, 4);
    results[1] = zarr_sink_extend(value, 4, NULL);
    results[2] = zarr_sink_write(value, NULL, 0);
    results[3] = zarr_sink_write(value, "{}", (size_t)-1);
    return ZARR_ERROR_NOT_FOUND;
}

ZTEST(sink_argument_errors) {
    int results[4] = {0, 0, 0, 0};
    zarr_store_callbacks cb;
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    memset(&cb, 0, sizeof cb);
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = results;
    cb.get = misuse_get;
    cb.list = empty_list;
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    ZT_STATUS(zarr_group_open(store, "/", &g), ZARR_ERROR_NOT_FOUND);
    ZT_EQ_U64(results[0], (uint64_t)(int64_t)ZARR_ERROR_NULL_ARGUMENT);
    ZT_EQ_U64(results[1], (uint64_t)(int64_t)ZARR_ERROR_NULL_ARGUMENT);
    ZT_EQ_U64(results[2], ZARR_OK);
    ZT_EQ_U64(results[3], (uint64_t)(int64_t)ZARR_ERROR_INVALID_ARGUMENT);
    zarr_store_free(store);
}

/* Every new function that reaches the store reports the store's failure as its status. */
ZTEST(store_failures_become_statuses) {
    mapstore *m = NULL;
    zarr_store *store = open_map(&m);
    zarr_array *a = NULL, *made = NULL;
    zarr_group *root = NULL, *fresh = NULL, *made_group = NULL;
    zarr_array_builder *b = NULL;
    uint64_t chunk[1] = {0}, nbytes = 0, shape[1] = {4};
    bool stored = false;
    size_t n = 0;
    zarr_node_type type = 0;
    char *name = NULL;
    int32_t ints[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint64_t s1[1] = {0}, c1[1] = {9};
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_group_create(store, "/", NULL, &root));
    ZT_OK(zarr_array_create(store, "/a", v2_i32, &a));
    ZT_OK(zarr_array_write(a, 1, s1, c1, ints, sizeof ints));
    ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 1, shape, &b));
#define FAILS(call)                                                                        \
    do {                                                                                   \
        arm(m, 1, ZARR_ERROR_IO);                                                          \
        ZT_STATUS(call, ZARR_ERROR_IO);                                                    \
        ZT_STR_CONTAINS(zarr_last_error_message(), "No space left on device");            \
        arm(m, 0, ZARR_ERROR_IO);                                                          \
    } while (0)
    FAILS(zarr_array_chunk_stored_nbytes(a, 1, chunk, &stored, &nbytes));
    FAILS(zarr_array_erase_chunk(a, 1, chunk));
    FAILS(zarr_array_set_attribute_string(a, "k", "v"));
    FAILS(zarr_array_set_attribute_double(a, "k", 1));
    FAILS(zarr_array_set_attribute_int64(a, "k", 1));
    FAILS(zarr_array_set_attribute_double_array(a, "k", NULL, 0));
    FAILS(zarr_array_set_attribute_int64_array(a, "k", NULL, 0));
    FAILS(zarr_group_set_attribute_string(root, "k", "v"));
    FAILS(zarr_group_set_attribute_double(root, "k", 1));
    FAILS(zarr_group_set_attribute_int64(root, "k", 1));
    FAILS(zarr_group_set_attribute_double_array(root, "k", NULL, 0));
    FAILS(zarr_group_set_attribute_int64_array(root, "k", NULL, 0));
    FAILS(zarr_group_child_count(root, &n));
    ZT_OK(zarr_group_open(store, "/", &fresh));
    FAILS(zarr_group_child_name(fresh, 0, &name));
    FAILS(zarr_group_child_node_type(fresh, 0, &type));
    FAILS(zarr_array_builder_create(b, store, "/made", &made));
    FAILS(zarr_group_create_with_format(store, "/g", NULL, 2, &made_group));
    ZT_CHECK(made_group == NULL);
    FAILS(zarr_store_delete_node(store, "/a"));
    FAILS(zarr_array_set_attributes_json(a, "{}"));
    /* Failed setters changed nothing; with the fault lifted everything works. */
    ZT_STATUS(zarr_array_attribute_string(a, "k", &name), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_array_set_attribute_string(a, "k", "v"));
    FAILS(zarr_array_delete_attribute(a, "k"));
    ZT_OK(zarr_array_delete_attribute(a, "k"));
    ZT_OK(zarr_group_set_attribute_int64(root, "k", 1));
    FAILS(zarr_group_delete_attribute(root, "k"));
    ZT_OK(zarr_array_chunk_stored_nbytes(a, 1, chunk, &stored, &nbytes));
    ZT_CHECK(stored);
#undef FAILS
    zarr_array_builder_free(b);
    zarr_group_free(fresh);
    zarr_group_free(root);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A read callback whose sink cannot grow: the read fails with OUT_OF_MEMORY even though
 * the callback returns ZARR_OK. */
static zarr_status greedy_get(void *user_data, const char *key, zarr_sink *value) {
    zarr_status *seen = (zarr_status *)user_data;
    void *room = (void *)1;
    (void)key;
    *seen = zarr_sink_extend(value, (size_t)1 << 62, &room);
    if (room != NULL) *seen = 12345;
    return ZARR_OK;
}

ZTEST(sink_cannot_grow) {
    zarr_status seen = 0;
    zarr_store_callbacks cb;
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    memset(&cb, 0, sizeof cb);
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = &seen;
    cb.get = greedy_get;
    cb.list = empty_list;
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    ZT_STATUS(zarr_group_open(store, "/", &g), ZARR_ERROR_OUT_OF_MEMORY);
    ZT_EQ_U64(seen, (uint64_t)(int64_t)ZARR_ERROR_OUT_OF_MEMORY);
    zarr_store_free(store);
}

/* ---- injected faults ------------------------------------------------------------------- */

/* Whether every shard (8 x 8 block) of the 16 x 16 array `got` equals the same block of
 * `old` or of `new_` entirely. */
static int shards_old_or_new(const uint16_t *got, const uint16_t *old, const uint16_t *new_) {
    int sr, sc, r, c;
    for (sr = 0; sr < 2; sr++) {
        for (sc = 0; sc < 2; sc++) {
            int is_old = 1, is_new = 1;
            for (r = sr * 8; r < sr * 8 + 8; r++) {
                for (c = sc * 8; c < sc * 8 + 8; c++) {
                    is_old &= got[r * 16 + c] == old[r * 16 + c];
                    is_new &= got[r * 16 + c] == new_[r * 16 + c];
                }
            }
            if (!is_old && !is_new) {
                fprintf(stderr, "shard (%d, %d) is neither old nor new\n", sr, sc);
                return 0;
            }
        }
    }
    return 1;
}

/* Sweep k over a write of `count` at `start`: the k-th store call fails; then the fault
 * is lifted, the array checked, and the same handle writes again. */
static void sweep_sharded_write(uint64_t r0, uint64_t c0, uint64_t rows, uint64_t cols) {
    mapstore *m = NULL;
    zarr_store *store = open_map(&m);
    zarr_array *a = NULL;
    static uint16_t old[256], new_[256], got[256], patch[256];
    uint64_t all_start[2] = {0, 0}, all[2] = {16, 16}, start[2], count[2];
    long k, failures = 0;
    uint64_t r, c;
    ZT_CHECK(store != NULL);
    a = sharded(store, "/s");
    ZT_CHECK(a != NULL);
    start[0] = r0;
    start[1] = c0;
    count[0] = rows;
    count[1] = cols;
    for (r = 0; r < 256; r++) {
        old[r] = (uint16_t)(r + 1);
        new_[r] = old[r];
    }
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) {
            new_[(r0 + r) * 16 + c0 + c] = (uint16_t)(50000 + r * cols + c);
            patch[r * cols + c] = (uint16_t)(50000 + r * cols + c);
        }
    ZT_OK(zarr_thread_pool_set_size(2));
    for (k = 1; k < 1000; k++) {
        zarr_status s;
        arm(m, 0, ZARR_ERROR_IO);
        ZT_OK(zarr_array_write(a, 2, all_start, all, old, sizeof old));
        /* Odd k: an ENOSPC-like failure with a message; even k: a bare EIO-like one. */
        m->fail_message = (k % 2) ? "injected fault: No space left on device" : NULL;
        arm(m, k, ZARR_ERROR_IO);
        s = zarr_array_write(a, 2, start, count, patch, (size_t)(rows * cols * 2));
        arm(m, 0, ZARR_ERROR_IO);
        if (s == ZARR_OK) break; /* k is past the write's last call */
        failures++;
        ZT_STATUS(s, ZARR_ERROR_IO);
        ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write");
        if (k % 2) ZT_STR_CONTAINS(zarr_last_error_message(), "No space left on device");
        ZT_OK(zarr_array_read(a, 2, all_start, all, got, sizeof got));
        ZT_CHECK(shards_old_or_new(got, old, new_));
        /* The handle stays usable. */
        ZT_OK(zarr_array_write(a, 2, start, count, patch, (size_t)(rows * cols * 2)));
        ZT_OK(zarr_array_read(a, 2, all_start, all, got, sizeof got));
        ZT_EQ_MEM(got, new_, sizeof got);
    }
    ZT_CHECK(k < 1000);
    ZT_CHECK(failures >= 4);
    printf("  %ld faults injected (store calls 1 to %ld of the write), each a clean status\n",
           failures, k - 1);
    ZT_OK(zarr_array_read(a, 2, all_start, all, got, sizeof got));
    ZT_EQ_MEM(got, new_, sizeof got);
    ZT_OK(zarr_thread_pool_set_size(0));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(faults_during_whole_sharded_write) { sweep_sharded_write(0, 0, 16, 16); }
ZTEST(faults_during_partial_sharded_write) { sweep_sharded_write(5, 3, 6, 10); }

/* Four arrays under /g, consolidated at the root, with the k-th call of a new
 * consolidation failing: the old consolidated metadata or the new one is there, every
 * array opens through it, and consolidating again succeeds. */
ZTEST(faults_during_consolidate) {
    mapstore *m = NULL;
    zarr_store *store = open_map(&m), *view = NULL;
    zarr_group *root = NULL;
    zarr_array *a = NULL;
    char path[32];
    long k, failures = 0;
    int i;
    ZT_CHECK(store != NULL);
    ZT_OK(zarr_group_create(store, "/", NULL, &root));
    for (i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "/g/a%d", i);
        ZT_OK(zarr_array_create(store, path, v3_f64, &a));
        zarr_array_free(a);
    }
    ZT_OK(zarr_group_consolidate(root));
    ZT_OK(zarr_array_create(store, "/g/late", v3_f64, &a));
    zarr_array_free(a);
    for (k = 1; k < 1000; k++) {
        zarr_status s;
        m->fail_message = (k % 2) ? "injected fault: Input/output error" : NULL;
        arm(m, k, ZARR_ERROR_IO);
        s = zarr_group_consolidate(root);
        arm(m, 0, ZARR_ERROR_IO);
        ZT_OK(zarr_store_open_consolidated(store, &view));
        for (i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "/g/a%d", i);
            ZT_OK(zarr_array_open(view, path, &a));
            zarr_array_free(a);
        }
        zarr_store_free(view);
        view = NULL;
        if (s == ZARR_OK) break;
        failures++;
        ZT_STATUS(s, ZARR_ERROR_IO);
        if (k % 2) ZT_STR_CONTAINS(zarr_last_error_message(), "Input/output error");
    }
    ZT_CHECK(k < 1000 && failures >= 3);
    printf("  %ld faults injected (store calls 1 to %ld of consolidate), each a clean status\n",
           failures, k - 1);
    ZT_OK(zarr_group_consolidate(root));
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_OK(zarr_array_open(view, "/g/late", &a));
    zarr_array_free(a);
    zarr_store_free(view);
    zarr_group_free(root);
    zarr_store_free(store);
}

/* The k-th call of a delete fails: the array is either whole (every value right) or gone
 * for every reader, and deleting again finishes it. Without erase_prefix, so that the
 * deletion goes key by key. */
ZTEST(faults_during_delete) {
    mapstore *m = new_mapstore();
    zarr_store_callbacks cb = full_table(m);
    zarr_store *store = NULL;
    zarr_group *root = NULL;
    zarr_array *a = NULL;
    int32_t ints[9] = {9, 8, 7, 6, 5, 4, 3, 2, 1}, back[9];
    uint64_t s1[1] = {0}, c1[1] = {9};
    long k, failures = 0;
    cb.erase_prefix = NULL;
    ZT_OK(zarr_store_open_callbacks(&cb, &store));
    ZT_OK(zarr_group_create(store, "/", NULL, &root));
    for (k = 1; k < 1000; k++) {
        zarr_status s;
        ZT_OK(zarr_array_create(store, "/g/x", v2_i32, &a));
        ZT_OK(zarr_array_write(a, 1, s1, c1, ints, sizeof ints));
        zarr_array_free(a);
        a = NULL;
        ZT_OK(zarr_group_consolidate(root));
        arm(m, k, ZARR_ERROR_IO);
        s = zarr_store_delete_node(store, "/g");
        arm(m, 0, ZARR_ERROR_IO);
        if (s == ZARR_OK) break;
        failures++;
        ZT_STATUS(s, ZARR_ERROR_IO);
        s = zarr_array_open(store, "/g/x", &a);
        if (s == ZARR_OK) {
            ZT_OK(zarr_array_read(a, 1, s1, c1, back, sizeof back));
            ZT_EQ_MEM(back, ints, sizeof back);
            zarr_array_free(a);
            a = NULL;
        } else {
            ZT_STATUS(s, ZARR_ERROR_NOT_FOUND);
        }
        ZT_OK(zarr_store_delete_node(store, "/g"));
        ZT_STATUS(zarr_array_open(store, "/g/x", &a), ZARR_ERROR_NOT_FOUND);
    }
    ZT_CHECK(k < 1000 && failures >= 4);
    printf("  %ld faults injected (store calls 1 to %ld of the delete), each a clean status\n",
           failures, k - 1);
    zarr_group_free(root);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(round_trips),
    ZCASE(sharded_arrays_and_call_counts),
    ZCASE(optional_callbacks_absent),
    ZCASE(free_user_data_exactly_once),
    ZCASE(read_only_store),
    ZCASE(callback_errors_become_statuses),
    ZCASE(sink_argument_errors),
    ZCASE(store_failures_become_statuses),
    ZCASE(sink_cannot_grow),
    ZCASE(faults_during_whole_sharded_write),
    ZCASE(faults_during_partial_sharded_write),
    ZCASE(faults_during_consolidate),
    ZCASE(faults_during_delete),
};

ZTEST_MAIN()
