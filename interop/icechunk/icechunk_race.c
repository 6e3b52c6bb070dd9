/* icechunk_race.c -- two writers race to commit on one Icechunk branch (interop,
 * concurrency; icechunk_check.py race reads the outcome with icechunk-python).
 *
 * Usage: icechunk_race DATA_DIR MODE TRIALS
 *   MODE sequential  one process, two handles: both write, then A commits, then B
 *        threads     one process, two handles in two threads released by a barrier so
 *                    that both commit at the same moment
 *        processes   two forked processes, each with its own handle, released at the
 *                    same moment through pipes
 *        forked      no race: this process commits, then two children forked one after
 *                    the other commit; all must succeed with distinct snapshot ids (a
 *                    child must not repeat the ids its parent's random state would give)
 *
 * DATA_DIR was prepared by `icechunk_check.py init` (main holds /race and /race_retry,
 * int32 4x4). In each trial both writers open main, write their own value over the whole of
 * /race, wait for each other, and commit ("race <mode> <trial> writer <k>"). Exactly one
 * commit must succeed and the other must be ZARR_ERROR_CONFLICT with no snapshot id. Then a
 * new handle must read the winner's value in /race and the winner's snapshot as main's head
 * (nothing of the loser half-applied). The loser (in process mode the losing process
 * itself) opens main again, writes its value over /race_retry and commits
 * ("race <mode> <trial> retry <k>"), which must succeed.
 * Appends to DATA_DIR/race.txt one line per trial:
 *   <mode> <trial> <winner id> <winner message>|<retry id> <retry message>|<race value> <retry value>
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zarr.h"

static const char *dir;
static char url[4200], base_options[8192];
static int failures;

static void fail(const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "FAIL ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    failures++;
}

static void read_text(const char *file, char *buf, size_t cap) {
    char name[4300];
    FILE *f;
    size_t n;
    snprintf(name, sizeof name, "%s/%s", dir, file);
    f = fopen(name, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", name);
        exit(2);
    }
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) n--;
    buf[n] = '\0';
}

static zarr_status open_main(zarr_store **store) {
    char options[8400];
    size_t n = strlen(base_options);
    snprintf(options, sizeof options, "%.*s%s\"branch\":\"main\"}", (int)(n - 1), base_options,
             n <= 2 ? "" : ",");
    return zarr_store_open_url(url, options, store);
}

static zarr_status fill(zarr_store *store, const char *path, int32_t value) {
    zarr_array *array = NULL;
    int32_t values[16];
    uint64_t start[2] = {0, 0}, count[2] = {4, 4};
    zarr_status s;
    int i;
    for (i = 0; i < 16; i++) values[i] = value;
    s = zarr_array_open(store, path, &array);
    if (s == ZARR_OK) s = zarr_array_write(array, 2, start, count, values, sizeof values);
    zarr_array_free(array);
    return s;
}

static int32_t read_first(zarr_store *store, const char *path, int32_t *all_same) {
    zarr_array *array = NULL;
    int32_t values[16] = {0};
    uint64_t start[2] = {0, 0}, count[2] = {4, 4};
    int i;
    *all_same = 0;
    if (zarr_array_open(store, path, &array) != ZARR_OK ||
        zarr_array_read(array, 2, start, count, values, sizeof values) != ZARR_OK) {
        zarr_array_free(array);
        return INT32_MIN;
    }
    zarr_array_free(array);
    *all_same = 1;
    for (i = 1; i < 16; i++)
        if (values[i] != values[0]) *all_same = 0;
    return values[0];
}

/* One writer's part of a trial. */
struct writer {
    int k, trial;
    const char *mode;
    zarr_store *store;
    zarr_status write_status, commit_status;
    char *id;
    char message[200];
    pthread_barrier_t *barrier;
};

static void *commit_thread(void *arg) {
    struct writer *w = arg;
    pthread_barrier_wait(w->barrier);
    w->commit_status = zarr_store_commit(w->store, w->message, &w->id);
    return NULL;
}

/* The loser's retry: open main again, write /race_retry, commit. */
static zarr_status retry_commit(const char *mode, int t, int k, char **id) {
    char message[200];
    zarr_store *store = NULL;
    zarr_status s = open_main(&store);
    snprintf(message, sizeof message, "race %s %d retry %d", mode, t, k);
    if (s == ZARR_OK) s = fill(store, "/race_retry", 1000 + t * 10 + k);
    if (s == ZARR_OK) s = zarr_store_commit(store, message, id);
    if (s != ZARR_OK)
        fprintf(stderr, "retry of writer %d: %s: %s\n", k, zarr_status_str(s), zarr_last_error_message());
    zarr_store_free(store);
    return s;
}

/* Process mode: the child opens, writes, tells the parent, waits for "go", commits and
 * writes "<status> <id or ->" to its result pipe. A loser then waits for the parent's
 * 'r' (after the parent has checked the branch), retries and reports the same way. */
static void child(struct writer *w, int ready_fd, int go_fd, int result_fd) {
    char c = 'r', line[256];
    zarr_store *store = NULL;
    zarr_status s = open_main(&store);
    char *id = NULL;
    if (s == ZARR_OK) s = fill(store, "/race", w->trial * 10 + w->k + 1);
    if (write(ready_fd, &c, 1) != 1) _exit(3);
    if (read(go_fd, &c, 1) != 1) _exit(3);
    if (s == ZARR_OK) s = zarr_store_commit(store, w->message, &id);
    else fprintf(stderr, "writer %d: %s: %s\n", w->k, zarr_status_str(s), zarr_last_error_message());
    snprintf(line, sizeof line, "%d %s\n", (int)s, id ? id : "-");
    if (write(result_fd, line, strlen(line)) < 0) _exit(3);
    zarr_string_free(id);
    id = NULL;
    zarr_store_free(store);
    if (s == ZARR_ERROR_CONFLICT && read(go_fd, &c, 1) == 1 && c == 'r') {
        s = retry_commit(w->mode, w->trial, w->k, &id);
        snprintf(line, sizeof line, "%d %s\n", (int)s, id ? id : "-");
        if (write(result_fd, line, strlen(line)) < 0) _exit(3);
        zarr_string_free(id);
    }
    _exit(0);
}

/* Read one "<status> <id>" line from a child's result pipe (one byte at a time: the
 * pipe carries two lines and the second must stay for later). */
static zarr_status read_result(int fd, char **id) {
    char line[256], idbuf[200] = "";
    size_t n = 0;
    int st = ZARR_ERROR_INTERNAL;
    while (n + 1 < sizeof line && read(fd, &line[n], 1) == 1 && line[n] != '\n') n++;
    line[n] = '\0';
    *id = NULL;
    if (sscanf(line, "%d %199s", &st, idbuf) != 2) return ZARR_ERROR_INTERNAL;
    if (strcmp(idbuf, "-") != 0) *id = strdup(idbuf);
    return st;
}

static void trial(const char *mode, int t, FILE *log) {
    struct writer w[2];
    pthread_barrier_t barrier;
    int k, winner = -1, ok = 0, conflicts = 0, processes = strcmp(mode, "processes") == 0;
    int ready[2][2], go[2][2], result[2][2];
    pid_t pid[2] = {-1, -1};
    char retry_message[200];
    char *retry_id = NULL, *json = NULL;
    zarr_store *check = NULL;
    int32_t same, value;

    memset(w, 0, sizeof w);
    for (k = 0; k < 2; k++) {
        w[k].k = k;
        w[k].trial = t;
        w[k].mode = mode;
        snprintf(w[k].message, sizeof w[k].message, "race %s %d writer %d", mode, t, k);
    }
    if (processes) {
        char c = 'g';
        fflush(NULL); /* nothing buffered is written twice */
        for (k = 0; k < 2; k++) {
            if (pipe(ready[k]) || pipe(go[k]) || pipe(result[k])) exit(2);
            pid[k] = fork();
            if (pid[k] < 0) exit(2);
            if (pid[k] == 0) child(&w[k], ready[k][1], go[k][0], result[k][1]);
            close(ready[k][1]);
            close(go[k][0]);
            close(result[k][1]);
        }
        for (k = 0; k < 2; k++)
            if (read(ready[k][0], &c, 1) != 1) fail("a writer did not get ready%s%s", "", "");
        c = 'g';
        for (k = 0; k < 2; k++)
            if (write(go[k][1], &c, 1) != 1) exit(2);
        for (k = 0; k < 2; k++) w[k].commit_status = read_result(result[k][0], &w[k].id);
    } else {
        for (k = 0; k < 2; k++) {
            if (open_main(&w[k].store) != ZARR_OK) {
                fail("cannot open main: %s%s", zarr_last_error_message(), "");
                goto done;
            }
            w[k].write_status = fill(w[k].store, "/race", t * 10 + k + 1);
            if (w[k].write_status != ZARR_OK)
                fail("write: %s: %s", zarr_status_str(w[k].write_status), zarr_last_error_message());
        }
        if (strcmp(mode, "threads") == 0) {
            pthread_t th[2];
            pthread_barrier_init(&barrier, NULL, 2);
            for (k = 0; k < 2; k++) {
                w[k].barrier = &barrier;
                pthread_create(&th[k], NULL, commit_thread, &w[k]);
            }
            for (k = 0; k < 2; k++) pthread_join(th[k], NULL);
            pthread_barrier_destroy(&barrier);
        } else {
            for (k = 0; k < 2; k++)
                w[k].commit_status = zarr_store_commit(w[k].store, w[k].message, &w[k].id);
        }
    }
    for (k = 0; k < 2; k++) {
        if (w[k].commit_status == ZARR_OK && w[k].id) {
            ok++;
            winner = k;
        } else if (w[k].commit_status == ZARR_ERROR_CONFLICT) {
            conflicts++;
            if (w[k].id) fail("the losing commit returned an id %s%s", w[k].id, "");
        } else {
            fail("commit: %s%s (expected OK or CONFLICT)", zarr_status_str(w[k].commit_status), "");
        }
    }
    if (ok != 1 || conflicts != 1) {
        char n[64];
        snprintf(n, sizeof n, "%d ok, %d conflicts", ok, conflicts);
        fail("trial: %s%s, expected exactly one of each", n, "");
        if (ok == 2 && strcmp(w[0].id, w[1].id) == 0)
            fail("both commits returned the same snapshot id %s%s", w[0].id, "");
        goto done;
    }
    if (strcmp(mode, "sequential") == 0 && winner != 0)
        fail("sequential: the second commit won%s%s", "", "");

    /* Nothing of the loser is visible: main's head is the winner's snapshot and /race
     * holds the winner's value everywhere. */
    if (open_main(&check) != ZARR_OK) {
        fail("cannot reopen main: %s%s", zarr_last_error_message(), "");
        goto done;
    }
    value = read_first(check, "/race", &same);
    if (!same || value != t * 10 + winner + 1) {
        char v[64];
        snprintf(v, sizeof v, "%d (uniform: %d)", value, same);
        fail("after the race /race holds %s, not the winner's value%s", v, "");
    }
    if (zarr_store_versions_json(check, &json) == ZARR_OK) {
        char want[256];
        snprintf(want, sizeof want, "\"snapshot\":\"%s\"", w[winner].id);
        if (!strstr(json, want)) fail("head is not the winner's snapshot: %s %s", want, json);
    } else {
        fail("zarr_store_versions_json: %s%s", zarr_last_error_message(), "");
    }

    /* The loser reopens, writes again and commits (in its own process in process mode). */
    snprintf(retry_message, sizeof retry_message, "race %s %d retry %d", mode, t, 1 - winner);
    {
        zarr_status s;
        if (processes) {
            char c = 'r';
            if (write(go[1 - winner][1], &c, 1) != 1) exit(2);
            s = read_result(result[1 - winner][0], &retry_id);
        } else {
            s = retry_commit(mode, t, 1 - winner, &retry_id);
        }
        if (s != ZARR_OK || retry_id == NULL) {
            fail("the loser's retry: %s%s", zarr_status_str(s), "");
            goto done;
        }
    }
    fprintf(log, "%s %d %s %s|%s %s|%d %d\n", mode, t, w[winner].id, w[winner].message, retry_id,
            retry_message, t * 10 + winner + 1, 1000 + t * 10 + (1 - winner));
    fflush(log);
    printf("ok   %s trial %d: writer %d won, writer %d got CONFLICT and committed on retry\n", mode,
           t, winner, 1 - winner);
done:
    if (processes) {
        for (k = 0; k < 2; k++) {
            int status = 0;
            close(go[k][1]); /* a loser still waiting for 'r' reads end of file and exits */
            if (pid[k] > 0) waitpid(pid[k], &status, 0);
            close(ready[k][0]);
            close(result[k][0]);
            free(w[k].id);
        }
        free(retry_id);
    } else {
        for (k = 0; k < 2; k++) {
            zarr_string_free(w[k].id);
            zarr_store_free(w[k].store);
        }
        zarr_string_free(retry_id);
    }
    zarr_string_free(json);
    zarr_store_free(check);
}

/* Mode "forked": this process commits, then forks two children one after the other, each
 * of which opens main, writes /race and commits. Every commit must succeed with a snapshot
 * id of its own (a forked child must not repeat its parent's or its sibling's ids), and
 * main's history must hold the three commits, newest first. */
static void forked(int t) {
    char message[3][100], *ids[3] = {NULL, NULL, NULL}, *json = NULL;
    zarr_store *store = NULL;
    int k;
    for (k = 0; k < 3; k++) {
        snprintf(message[k], sizeof message[k], "forked %d %s", t, k == 0 ? "parent" : k == 1 ? "child 0" : "child 1");
    }
    if (open_main(&store) != ZARR_OK || fill(store, "/race", 500 + t) != ZARR_OK ||
        zarr_store_commit(store, message[0], &ids[0]) != ZARR_OK) {
        fail("the parent's commit: %s%s", zarr_last_error_message(), "");
        goto done;
    }
    zarr_store_free(store);
    store = NULL;
    for (k = 1; k < 3; k++) {
        int fds[2], status = 0;
        char line[256] = "";
        pid_t pid;
        if (pipe(fds)) exit(2);
        fflush(NULL);
        pid = fork();
        if (pid < 0) exit(2);
        if (pid == 0) {
            zarr_store *mine = NULL;
            char *id = NULL;
            zarr_status s = open_main(&mine);
            if (s == ZARR_OK) s = fill(mine, "/race", 600 + t * 10 + k);
            if (s == ZARR_OK) s = zarr_store_commit(mine, message[k], &id);
            snprintf(line, sizeof line, "%d %s\n", (int)s, s == ZARR_OK ? id : zarr_last_error_message());
            if (write(fds[1], line, strlen(line)) < 0) _exit(3);
            _exit(0);
        }
        close(fds[1]);
        {
            ssize_t n = read(fds[0], line, sizeof line - 1);
            line[n > 0 ? n : 0] = '\0';
        }
        close(fds[0]);
        waitpid(pid, &status, 0);
        line[strcspn(line, "\n")] = '\0';
        if (atoi(line) != ZARR_OK) {
            fail("a forked child's commit failed: %s%s", line, "");
            goto done;
        }
        ids[k] = strdup(strchr(line, ' ') + 1);
    }
    if (strcmp(ids[0], ids[1]) == 0 || strcmp(ids[1], ids[2]) == 0 || strcmp(ids[0], ids[2]) == 0)
        fail("repeated snapshot ids across fork: %s %s", ids[1], ids[2]);
    if (open_main(&store) != ZARR_OK || zarr_store_versions_json(store, &json) != ZARR_OK) {
        fail("versions: %s%s", zarr_last_error_message(), "");
        goto done;
    }
    {
        const char *h = strstr(json, "\"history\"");
        const char *m2 = h ? strstr(h, message[2]) : NULL, *m1 = h ? strstr(h, message[1]) : NULL;
        const char *m0 = h ? strstr(h, message[0]) : NULL;
        if (!m0 || !m1 || !m2 || !(m2 < m1 && m1 < m0)) fail("history lacks the three commits: %s%s", json, "");
    }
    printf("ok   forked trial %d: parent and two forked children committed %s %s %s\n", t, ids[0],
           ids[1], ids[2]);
done:
    zarr_string_free(ids[0]);
    free(ids[1]);
    free(ids[2]);
    zarr_string_free(json);
    zarr_store_free(store);
}

int main(int argc, char **argv) {
    char name[4300];
    FILE *log;
    int t, trials;
    if (argc != 4) {
        fprintf(stderr, "usage: %s DATA_DIR sequential|threads|processes|forked TRIALS\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    trials = atoi(argv[3]);
    read_text("store.url", url, sizeof url);
    read_text("store.options", base_options, sizeof base_options);
    snprintf(name, sizeof name, "%s/race.txt", dir);
    log = fopen(name, "a");
    if (!log) return 2;
    for (t = 0; t < trials; t++) {
        if (strcmp(argv[2], "forked") == 0) forked(t);
        else trial(argv[2], t, log);
    }
    fclose(log);
    printf("%s: %d trials, %d failures\n", argv[2], trials, failures);
    return failures ? 1 : 0;
}
