/* test_comm.c -- communicators (zarr_comm_create) and the collective calls, without MPI:
 * the ranks are threads of this process, joined by a table of collective operations built
 * on a mutex and condition variable (so these cases also run under the sanitizers and
 * valgrind). The MPI glue and the same calls under mpirun are tested in mpi/tests. */
#include "ztest.h"

#include <pthread.h>
#include <stdbool.h>

#define MAX_RANKS 8

/* ---- a communicator of threads ------------------------------------------------------ */

/* Every operation is two meetings: each rank leaves its contribution, meets the others,
 * takes what it needs from theirs, and meets them again before the slots are reused. */
struct group {
    int size;
    pthread_mutex_t lock;
    pthread_cond_t moved_on;
    int arrived;
    unsigned long generation;
    const void *data[MAX_RANKS];
    const size_t *lens[MAX_RANKS];
    const size_t *displs[MAX_RANKS];
    int fail_rank; /* a rank whose all_to_all_v fails (-1: none) */
};

struct rank_data {
    struct group *group;
    int rank;
};

static void meet(struct group *g) {
    unsigned long generation;
    pthread_mutex_lock(&g->lock);
    generation = g->generation;
    if (++g->arrived == g->size) {
        g->arrived = 0;
        g->generation++;
        pthread_cond_broadcast(&g->moved_on);
    } else {
        while (g->generation == generation) pthread_cond_wait(&g->moved_on, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
}

static zarr_status t_barrier(void *user_data) {
    struct rank_data *me = user_data;
    meet(me->group);
    meet(me->group);
    return ZARR_OK;
}

static zarr_status t_broadcast(void *user_data, void *buf, size_t len, size_t root) {
    struct rank_data *me = user_data;
    struct group *g = me->group;
    g->data[me->rank] = buf;
    meet(g);
    if ((size_t)me->rank != root && len) memcpy(buf, g->data[root], len);
    meet(g);
    return ZARR_OK;
}

static zarr_status t_all_gather(void *user_data, const void *send, size_t len, void *recv) {
    struct rank_data *me = user_data;
    struct group *g = me->group;
    int r;
    g->data[me->rank] = send;
    meet(g);
    for (r = 0; r < g->size; r++)
        if (len) memcpy((char *)recv + (size_t)r * len, g->data[r], len);
    meet(g);
    return ZARR_OK;
}

static zarr_status t_all_gather_v(void *user_data, const void *send, size_t send_len,
                                  void *recv, const size_t *recv_lens,
                                  const size_t *recv_displs) {
    struct rank_data *me = user_data;
    struct group *g = me->group;
    int r;
    (void)send_len;
    g->data[me->rank] = send;
    meet(g);
    for (r = 0; r < g->size; r++)
        if (recv_lens[r]) memcpy((char *)recv + recv_displs[r], g->data[r], recv_lens[r]);
    meet(g);
    return ZARR_OK;
}

static zarr_status t_all_to_all_v(void *user_data, const void *send, const size_t *send_lens,
                                  const size_t *send_displs, void *recv,
                                  const size_t *recv_lens, const size_t *recv_displs) {
    struct rank_data *me = user_data;
    struct group *g = me->group;
    int r, failed = g->fail_rank >= 0;
    g->data[me->rank] = send;
    g->lens[me->rank] = send_lens;
    g->displs[me->rank] = send_displs;
    meet(g);
    for (r = 0; r < g->size && !failed; r++) {
        size_t len = recv_lens[r];
        if (len != g->lens[r][me->rank]) return ZARR_ERROR_INTERNAL;
        if (len)
            memcpy((char *)recv + recv_displs[r],
                   (const char *)g->data[r] + g->displs[r][me->rank], len);
    }
    meet(g);
    if (failed && me->rank == g->fail_rank) {
        zarr_comm_callback_set_error("the network cable of rank 1 is unplugged (injected)");
        return ZARR_ERROR_IO;
    }
    if (failed) {
        zarr_comm_callback_set_error("another rank failed the exchange (injected)");
        return ZARR_ERROR_IO;
    }
    return ZARR_OK;
}

static zarr_status t_all_reduce_i64(void *user_data, int64_t *values, size_t count,
                                    zarr_reduce_op op) {
    struct rank_data *me = user_data;
    struct group *g = me->group;
    int64_t result[16];
    size_t i;
    int r;
    if (count > 16) return ZARR_ERROR_INTERNAL;
    g->data[me->rank] = values;
    meet(g);
    for (i = 0; i < count; i++) {
        result[i] = ((const int64_t *)g->data[0])[i];
        for (r = 1; r < g->size; r++) {
            int64_t v = ((const int64_t *)g->data[r])[i];
            if (op == ZARR_REDUCE_MIN && v < result[i]) result[i] = v;
            if (op == ZARR_REDUCE_MAX && v > result[i]) result[i] = v;
            if (op == ZARR_REDUCE_SUM) result[i] += v;
        }
    }
    meet(g);
    for (i = 0; i < count; i++) values[i] = result[i];
    return ZARR_OK;
}

static int freed_user_data;

static void t_free(void *user_data) {
    (void)user_data;
    __atomic_fetch_add(&freed_user_data, 1, __ATOMIC_SEQ_CST);
}

static zarr_comm_ops thread_ops(struct rank_data *me) {
    zarr_comm_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.version = ZARR_COMM_OPS_VERSION;
    ops.user_data = me;
    ops.barrier = t_barrier;
    ops.broadcast = t_broadcast;
    ops.all_gather = t_all_gather;
    ops.all_gather_v = t_all_gather_v;
    ops.all_to_all_v = t_all_to_all_v;
    ops.all_reduce_i64 = t_all_reduce_i64;
    ops.free_user_data = t_free;
    return ops;
}

/* Run `work(comm, rank, size, store)` on `size` threads, each a rank with its own
 * communicator and store handle (a directory shared by all); each thread's failures are
 * counted in ztest_failures. */
typedef void (*rank_work)(zarr_comm *comm, int rank, int size, zarr_store *store);

struct thread_args {
    struct rank_data me;
    rank_work work;
    const char *dir;
};

static void *run_rank(void *arg) {
    struct thread_args *a = arg;
    zarr_comm *comm = NULL;
    zarr_store *store = NULL;
    zarr_comm_ops ops = thread_ops(&a->me);
    if (zarr_comm_create(&ops, (size_t)a->me.rank, (size_t)a->me.group->size, &comm) != ZARR_OK ||
        zarr_store_open_filesystem(a->dir, &store) != ZARR_OK) {
        fprintf(stderr, "rank %d: %s\n", a->me.rank, zarr_last_error_message());
        __atomic_fetch_add(&ztest_failures, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    a->work(comm, a->me.rank, a->me.group->size, store);
    zarr_store_free(store);
    zarr_comm_free(comm);
    return NULL;
}

static void run_ranks(int size, rank_work work, const char *dir, int fail_rank) {
    static struct group g;
    pthread_t threads[MAX_RANKS];
    struct thread_args args[MAX_RANKS];
    int r;
    memset(&g, 0, sizeof g);
    g.size = size;
    g.fail_rank = fail_rank;
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.moved_on, NULL);
    for (r = 0; r < size; r++) {
        args[r].me.group = &g;
        args[r].me.rank = r;
        args[r].work = work;
        args[r].dir = dir;
        pthread_create(&threads[r], NULL, run_rank, &args[r]);
    }
    for (r = 0; r < size; r++) pthread_join(threads[r], NULL);
    pthread_cond_destroy(&g.moved_on);
    pthread_mutex_destroy(&g.lock);
}

/* ---- the arrays ---------------------------------------------------------------------- */

#define ROWS 30
#define COLS 10

/* A 30 x 10 int32 array: shards of 8 x 10 cut into inner chunks of 4 x 5, zstd. */
static const char *const SHARDED =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [30, 10],"
    " \"data_type\": \"int32\", \"fill_value\": 0,"
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [8, 10]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [4, 5],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                    {\"name\": \"crc32c\"}]}}]}";

static int32_t value_at(uint64_t r, uint64_t c) { return (int32_t)(r * 100 + c + 1); }

/* Rank r's rows of ROWS in `size` uneven slabs (rank size - 1 gets nothing when size > 2). */
static void slab(int rank, int size, uint64_t *start, uint64_t *count) {
    static const uint64_t cuts3[] = {0, 7, 30, 30};
    static const uint64_t cuts2[] = {0, 13, 30};
    const uint64_t *cuts = size == 3 ? cuts3 : cuts2;
    start[0] = cuts[rank];
    count[0] = cuts[rank + 1] - cuts[rank];
    start[1] = 0;
    count[1] = COLS;
}

static int32_t *slab_values(const uint64_t *start, const uint64_t *count) {
    int32_t *values = malloc((size_t)(count[0] * count[1] + 1) * sizeof(int32_t));
    uint64_t r, c;
    for (r = 0; r < count[0]; r++)
        for (c = 0; c < count[1]; c++)
            values[r * count[1] + c] = value_at(start[0] + r, start[1] + c);
    return values;
}

/* ---- the cases ----------------------------------------------------------------------- */

/* zarr_comm_create checks its table and its ranks; zarr_comm_free accepts NULL and frees
 * the caller's user_data once. */
ZTEST(comm_create_errors) {
    struct group g;
    struct rank_data me;
    zarr_comm_ops ops;
    zarr_comm *comm = NULL;
    size_t value = 0;
    memset(&g, 0, sizeof g);
    g.size = 1;
    me.group = &g;
    me.rank = 0;
    ops = thread_ops(&me);
    ZT_STATUS(zarr_comm_create(NULL, 0, 1, &comm), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "ops");
    ZT_STATUS(zarr_comm_create(&ops, 0, 1, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_comm_create(&ops, 1, 1, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "rank 1 of 1");
    ZT_STATUS(zarr_comm_create(&ops, 0, 0, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    ops.version = 99;
    ZT_STATUS(zarr_comm_create(&ops, 0, 1, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "version is 99");
    ops = thread_ops(&me);
    ops.all_to_all_v = NULL;
    ZT_STATUS(zarr_comm_create(&ops, 0, 1, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "all_to_all_v");
    ZT_CHECK(comm == NULL);
    ops = thread_ops(&me);
    freed_user_data = 0;
    ZT_OK(zarr_comm_create(&ops, 0, 1, &comm));
    ZT_OK(zarr_comm_rank(comm, &value));
    ZT_EQ_U64(value, 0);
    ZT_OK(zarr_comm_size(comm, &value));
    ZT_EQ_U64(value, 1);
    ZT_STATUS(zarr_comm_rank(NULL, &value), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_comm_size(comm, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_comm_free(comm);
    zarr_comm_free(NULL);
    ZT_EQ_U64(freed_user_data, 1);
    ZT_CHECK(ZARR_ERROR_COMMUNICATION == -25);
}

/* Collective calls with a NULL communicator fail only the calling rank: it cannot reach
 * the others. */
ZTEST(null_communicator) {
    zarr_store *store = NULL;
    zarr_array *array = NULL, *created = NULL;
    zarr_group *group = NULL;
    uint64_t start[2] = {0, 0}, count[2] = {1, 1};
    int32_t v = 0;
    char *json = NULL;
    ZT_OK(zarr_store_open_filesystem(ztest_tmp_dir(), &store));
    ZT_OK(zarr_array_create(store, "/a", SHARDED, &array));
    ZT_STATUS(zarr_array_create_collective(NULL, store, "/b", SHARDED, &created),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "comm");
    ZT_CHECK(created == NULL);
    ZT_STATUS(zarr_array_write_collective(NULL, array, 2, start, count, &v, sizeof v),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_collective(NULL, array, 2, start, count, &v, sizeof v),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_resize_collective(NULL, array, 2, count), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_append_collective(NULL, array, 0, 1, 2, start, count, &v, sizeof v),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attributes_json_collective(NULL, array, "{}"),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_collective(NULL, store, "/g", NULL, &group),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_set_attributes_json_collective(NULL, group, "{}"),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_consolidate_collective(NULL, group), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_comm_last_write_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(array);
    zarr_store_free(store);
}

/* Three ranks write uneven slabs (one empty) of a sharded array whose shards and inner
 * chunks they cut, in two steps; every rank then reads the whole array collectively. */
static void write_slabs(zarr_comm *comm, int rank, int size, zarr_store *store) {
    zarr_array *array = NULL;
    uint64_t start[2], count[2], all_start[2] = {0, 0}, all[2] = {ROWS, COLS}, r, c;
    int32_t *values, back[ROWS * COLS];
    char *json = NULL;
    ZT_OK(zarr_comm_last_write_json(comm, &json));
    ZT_CHECK(strcmp(json, "null") == 0);
    zarr_string_free(json);
    ZT_OK(zarr_array_create_collective(comm, store, "/field", SHARDED, &array));
    slab(rank, size, start, count);
    values = slab_values(start, count);
    ZT_OK(zarr_array_write_collective(comm, array, 2, start, count, values,
                                      (size_t)(count[0] * count[1]) * sizeof(int32_t)));
    ZT_OK(zarr_array_read_collective(comm, array, 2, all_start, all, back, sizeof back));
    for (r = 0; r < ROWS; r++)
        for (c = 0; c < COLS; c++)
            if (back[r * COLS + c] != value_at(r, c))
                ZT_FAIL_("rank %d: (%d, %d) holds %d", rank, (int)r, (int)c,
                         (int)back[r * COLS + c]);
    ZT_OK(zarr_comm_last_write_json(comm, &json));
    {
        char *compact = ztest_json_compact(json);
        ZT_STR_CONTAINS(compact, "\"ranks\":");
        ZT_STR_CONTAINS(compact, "\"units\":4");
        ZT_STR_CONTAINS(compact, "\"rounds\":1");
        free(compact);
    }
    zarr_string_free(json);
    free(values);
    zarr_array_free(array);
}

ZTEST(three_ranks_write_uneven_slabs_of_a_sharded_array) {
    run_ranks(3, write_slabs, ztest_tmp_dir(), -1);
}

ZTEST(two_ranks_write_uneven_slabs_of_a_sharded_array) {
    run_ranks(2, write_slabs, ztest_tmp_dir(), -1);
}

/* One rank's bad arguments fail every rank with the same status, before anything is
 * written. */
static void bad_arguments(zarr_comm *comm, int rank, int size, zarr_store *store) {
    zarr_array *array = NULL;
    uint64_t start[2], count[2], shape[2] = {ROWS, COLS};
    int32_t *values;
    size_t len;
    ZT_OK(zarr_array_create_collective(comm, store, "/field", SHARDED, &array));
    slab(rank, size, start, count);
    values = slab_values(start, count);
    len = (size_t)(count[0] * count[1]) * sizeof(int32_t);
    /* A NULL buffer on rank 1. */
    ZT_STATUS(zarr_array_write_collective(comm, array, 2, start, count,
                                          rank == 1 ? NULL : values, len),
              ZARR_ERROR_NULL_ARGUMENT);
    if (rank != 1) ZT_STR_CONTAINS(zarr_last_error_message(), "rank 1: argument 'buf' is NULL");
    /* A wrong rank on rank 0. */
    ZT_STATUS(zarr_array_write_collective(comm, array, rank == 0 ? 3 : 2, start, count, values,
                                          len),
              ZARR_ERROR_INVALID_ARGUMENT);
    /* A box past the array on rank 1. */
    if (rank == 1) count[0] += 40;
    ZT_STATUS(zarr_array_write_collective(comm, array, 2, start, count, values, len),
              ZARR_ERROR_OUT_OF_BOUNDS);
    if (rank == 1) count[0] -= 40;
    /* Overlapping boxes: rank 1 starts one row early. */
    if (rank == 1) start[0] -= 1;
    ZT_STATUS(zarr_array_write_collective(comm, array, 2, start, count, values, len),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "overlap");
    /* Different shapes to resize to. */
    shape[0] += (uint64_t)rank;
    ZT_STATUS(zarr_array_resize_collective(comm, array, 2, shape), ZARR_ERROR_INVALID_ARGUMENT);
    /* Nothing was written. */
    {
        uint64_t shard[2] = {0, 0}, nbytes = 1;
        bool stored = true;
        for (shard[0] = 0; shard[0] < 4; shard[0]++) {
            ZT_OK(zarr_array_chunk_stored_nbytes(array, 2, shard, &stored, &nbytes));
            ZT_CHECK(!stored);
        }
    }
    free(values);
    zarr_array_free(array);
}

ZTEST(bad_arguments_on_one_rank_fail_every_rank) {
    run_ranks(3, bad_arguments, ztest_tmp_dir(), -1);
}

/* A communication failure (the table's all_to_all_v fails on rank 1) is
 * ZARR_ERROR_COMMUNICATION with the table's explanation. */
static void failing_exchange(zarr_comm *comm, int rank, int size, zarr_store *store) {
    zarr_array *array = NULL;
    uint64_t start[2], count[2];
    int32_t *values;
    ZT_OK(zarr_array_create_collective(comm, store, "/field", SHARDED, &array));
    slab(rank, size, start, count);
    values = slab_values(start, count);
    ZT_STATUS(zarr_array_write_collective(comm, array, 2, start, count, values,
                                          (size_t)(count[0] * count[1]) * sizeof(int32_t)),
              ZARR_ERROR_COMMUNICATION);
    ZT_STR_CONTAINS(zarr_last_error_message(), "all_to_all_v returned -12");
    ZT_STR_CONTAINS(zarr_last_error_message(), "(injected)");
    free(values);
    zarr_array_free(array);
}

ZTEST(a_failing_communicator_is_a_communication_error) {
    run_ranks(2, failing_exchange, ztest_tmp_dir(), 1);
}

/* Appends along time, attributes, groups and consolidated metadata, collectively. */
static void time_steps(zarr_comm *comm, int rank, int size, zarr_store *store) {
    zarr_group *root = NULL;
    zarr_array *series = NULL;
    const char *meta =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0, 6],"
        " \"data_type\": \"float64\", \"fill_value\": \"NaN\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"},"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        "              {\"name\": \"gzip\", \"configuration\": {\"level\": 1}}],"
        " \"dimension_names\": [\"time\", \"x\"]}";
    uint64_t step, start[2], count[2], shape[2];
    double values[6], back[5 * 6];
    char *json = NULL;
    /* Rank r owns columns [6r/size, 6(r+1)/size). */
    uint64_t first = (uint64_t)(6 * rank / size), last = (uint64_t)(6 * (rank + 1) / size);
    ZT_OK(zarr_group_create_collective(comm, store, "/", "{\"title\": \"run\"}", &root));
    ZT_OK(zarr_array_create_collective(comm, store, "/series", meta, &series));
    for (step = 0; step < 5; step++) {
        uint64_t c;
        for (c = first; c < last; c++) values[c - first] = (double)(step * 10 + c);
        start[0] = 0;
        start[1] = first;
        count[0] = 1;
        count[1] = last - first;
        ZT_OK(zarr_array_append_collective(comm, series, 0, 1, 2, start, count, values,
                                           (size_t)count[1] * sizeof(double)));
    }
    ZT_OK(zarr_array_shape(series, 2, shape));
    ZT_EQ_U64(shape[0], 5);
    start[0] = start[1] = 0;
    count[0] = 5;
    count[1] = 6;
    ZT_OK(zarr_array_read_collective(comm, series, 2, start, count, back, sizeof back));
    for (step = 0; step < 5; step++) {
        uint64_t c;
        for (c = 0; c < 6; c++)
            if (back[step * 6 + c] != (double)(step * 10 + c))
                ZT_FAIL_("rank %d: step %d column %d holds %g", rank, (int)step, (int)c,
                         back[step * 6 + c]);
    }
    /* An append past the appended block on one rank fails every rank. */
    count[0] = rank == 0 ? 2 : 1;
    count[1] = last - first;
    start[1] = first;
    ZT_STATUS(zarr_array_append_collective(comm, series, 0, 1, 2, start, count, values,
                                           (size_t)(count[0] * count[1]) * sizeof(double)),
              ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_OK(zarr_array_set_attributes_json_collective(comm, series, "{\"units\": \"K\"}"));
    ZT_OK(zarr_array_attributes_json(series, &json));
    ZT_STR_CONTAINS(json, "\"units\"");
    zarr_string_free(json);
    ZT_OK(zarr_group_set_attributes_json_collective(comm, root, "{\"steps\": 5}"));
    ZT_STATUS(zarr_group_set_attributes_json_collective(comm, root, rank ? "{}" : "[1]"),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_OK(zarr_group_consolidate_collective(comm, root));
    shape[0] = 8;
    ZT_OK(zarr_array_resize_collective(comm, series, 2, shape));
    ZT_OK(zarr_array_shape(series, 2, shape));
    ZT_EQ_U64(shape[0], 8);
    zarr_array_free(series);
    zarr_group_free(root);
}

ZTEST(appends_attributes_groups_and_consolidation) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL, *view = NULL;
    zarr_array *array = NULL;
    run_ranks(3, time_steps, dir, -1);
    /* Another process (here: a serial handle) sees every node through the consolidated
     * metadata. */
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_OK(zarr_array_open(view, "/series", &array));
    zarr_array_free(array);
    zarr_store_free(view);
    zarr_store_free(store);
}

/* zarr_comm_agree: every rank gets the status of the lowest failing rank. */
static void agreeing(zarr_comm *comm, int rank, int size, zarr_store *store) {
    (void)size;
    (void)store;
    ZT_OK(zarr_comm_agree(comm, ZARR_OK, NULL));
    ZT_STATUS(zarr_comm_agree(comm, rank >= 1 ? ZARR_ERROR_IO - rank : ZARR_OK,
                              rank == 1 ? "a file is missing on this node" : "later rank"),
              ZARR_ERROR_IO - 1);
    ZT_STR_CONTAINS(zarr_last_error_message(), "rank 1: a file is missing on this node");
    /* Every rank reads the same message, the rank named once. */
    ZT_CHECK(strstr(zarr_last_error_message(), "rank 1: rank 1") == NULL);
    ZT_CHECK(strcmp(zarr_last_error_message(),
                    "zarr_comm_agree: rank 1: a file is missing on this node") == 0);
}

ZTEST(agree_on_an_outcome) {
    run_ranks(3, agreeing, ztest_tmp_dir(), -1);
    ZT_STATUS(zarr_comm_agree(NULL, ZARR_OK, NULL), ZARR_ERROR_NULL_ARGUMENT);
}

static const ztest_case ztest_cases[] = {
    ZCASE(comm_create_errors),
    ZCASE(null_communicator),
    ZCASE(three_ranks_write_uneven_slabs_of_a_sharded_array),
    ZCASE(two_ranks_write_uneven_slabs_of_a_sharded_array),
    ZCASE(bad_arguments_on_one_rank_fail_every_rank),
    ZCASE(a_failing_communicator_is_a_communication_error),
    ZCASE(appends_attributes_groups_and_consolidation),
    ZCASE(agree_on_an_outcome),
};

ZTEST_MAIN()
