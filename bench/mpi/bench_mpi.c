/* Collective writes under MPI: one measurement of one implementation per mpirun.
 *
 *   mpirun -n N bench_mpi IMPL OUTDIR NX NY NZ [--verify]
 *
 * IMPL is one of
 *   zarr    libzarr's zarr_array_write_collective, each rank its own uneven box;
 *   gather  every rank sends its box to rank 0, which assembles the whole field and calls
 *           zarr_array_write once (the workaround without collective writes);
 *   hdf5    parallel HDF5, one chunked dataset (64^3 chunks, deflate 1), collective
 *           H5Dwrite of each rank's box (only when built with -DHAVE_HDF5);
 *   zlib    not a write: one process generates the whole field and times the system
 *           zlib's compress2 at level 1 (what HDF5's deflate 1 runs) on each 64^3 chunk,
 *           on one core; prints ZLIB version=... seconds=... ratio=... (only with
 *           -DHAVE_HDF5; OUTDIR is not used).
 * The Zarr variants write a v3 array of 256^3 shards of 64^3 inner chunks, gzip level 1,
 * at OUTDIR/field.zarr; HDF5 writes OUTDIR/field.h5. OUTDIR must not exist yet.
 *
 * The field is float32 NX x NY x NZ, C order: smooth waves plus a little noise (as
 * bench/peers.py gen, but each element computed from its global indices, so every rank
 * generates its own box and the field does not depend on the decomposition).
 * Decomposition: 2 ranks split dimension 0 unevenly; 4 ranks split dimensions 0 and 1
 * unevenly (2 x 2); any other count splits dimension 0 unevenly into N slabs. The cuts
 * fall on no chunk or shard boundary.
 *
 * Timed (the slowest rank: MPI_Barrier, start, the write, MPI_Barrier, stop): opening
 * the file or store, creating the array or dataset, the write, closing and freeing every
 * handle (for gather also the transfer to rank 0 and rank 0's assembly buffer). Not
 * timed: generating the box. Peak memory is getrusage's ru_maxrss of each rank taken
 * right after the timed part (so it includes the rank's own box); --verify then reads
 * each rank's box back (zarr_array_read / H5Dread) and compares it bit for bit with what
 * was written; a mismatch makes every rank exit 1.
 *
 * Prints one line on rank 0:
 *   RESULT impl=... ranks=N time_s=... bytes=... peak_rss_mib=... peak_rank=...
 *          mem_limit_ratio=... largest_box_mib=... verified=yes|no cpu_s=... others_cpu=...
 * where mem_limit_ratio is the largest over ranks of ru_maxrss / (1.5 x own box +
 * 128 MiB) (the bound: at most 1), cpu_s the CPU time of all ranks during the
 * timed part, and others_cpu the share of the machine other processes took meanwhile
 * (from /proc/stat; -1 when unknown); and for zarr also
 *   STATS rank=R slowest=1 {zarr_comm_last_write_json of the slowest rank}
 *   STATS rank=R slowest=0 {...of each other rank}
 * then each rank's peak RSS and its bound, in MiB:
 *   RSS rank0=PEAK/BOUND rank1=PEAK/BOUND ...
 * and for hdf5
 *   STATS rank=0 {"hdf5": version, "io_mode": ..., "chunk_opt_mode": ...,
 *                 "no_collective_cause_local": ..., "no_collective_cause_global": ...}
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zarr.h"
#include "zarr_mpi.h"

#ifdef HAVE_HDF5
#include <hdf5.h>
#include <zlib.h>
#endif

#define MIB (1024.0 * 1024.0)

static int g_rank, g_size;

static void die(const char *what) {
  fprintf(stderr, "bench_mpi: rank %d: %s\n", g_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

static void zcheck(zarr_status s, const char *what) {
  if (s != ZARR_OK) {
    fprintf(stderr, "bench_mpi: rank %d: %s failed: %d (%s): %s\n", g_rank, what, (int)s,
            zarr_status_str(s), zarr_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
  }
}

/* ---------------------------------------------------------------- decomposition */

typedef struct {
  uint64_t start[3], count[3];
} box;

static uint64_t box_elems(const box *b) { return b->count[0] * b->count[1] * b->count[2]; }

/* An uneven cut of n into parts: part p gets a share weighted 1.3 : 1 : 1.3 : 1 ...
 * rounded to an odd multiple of 4 so that no cut lands on a 64 boundary. */
static void cuts(uint64_t n, int parts, uint64_t *starts /* parts + 1 */) {
  double total = 0, acc = 0;
  for (int p = 0; p < parts; p++) total += (p % 2 == 0) ? 1.3 : 1.0;
  starts[0] = 0;
  for (int p = 0; p < parts - 1; p++) {
    acc += (p % 2 == 0) ? 1.3 : 1.0;
    uint64_t c = (uint64_t)(acc / total * (double)n);
    c = c / 4 * 4;
    if (c % 64 == 0) c += 12;
    starts[p + 1] = c;
  }
  starts[parts] = n;
}

static box rank_box(int rank, int size, const uint64_t shape[3]) {
  box b;
  for (int d = 0; d < 3; d++) {
    b.start[d] = 0;
    b.count[d] = shape[d];
  }
  if (size == 4) {
    uint64_t c0[3], c1[3];
    cuts(shape[0], 2, c0);
    cuts(shape[1], 2, c1);
    int i = rank / 2, j = rank % 2;
    b.start[0] = c0[i];
    b.count[0] = c0[i + 1] - c0[i];
    b.start[1] = c1[j];
    b.count[1] = c1[j + 1] - c1[j];
  } else {
    uint64_t *c = malloc(sizeof(uint64_t) * (size_t)(size + 1));
    if (!c) die("out of memory");
    cuts(shape[0], size, c);
    b.start[0] = c[rank];
    b.count[0] = c[rank + 1] - c[rank];
    free(c);
  }
  return b;
}

/* ---------------------------------------------------------------- the field */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Smooth waves plus noise of standard deviation 0.01 (a sum of four uniforms), from the
 * global indices: sin(x) cos(y) + 0.5 sin(z + x / 2), x in [0, 4 pi], y in [0, 3 pi],
 * z in [0, 2 pi], as bench/peers.py gen. */
static void generate(const box *b, const uint64_t shape[3], float *out) {
  const double pi = 3.14159265358979323846;
  uint64_t nz = b->count[2];
  float *cy = malloc(sizeof(float) * b->count[1]);
  float *wave = malloc(sizeof(float) * nz);
  if (!cy || !wave) die("out of memory");
  for (uint64_t j = 0; j < b->count[1]; j++) {
    double y = 3 * pi * (double)(b->start[1] + j) / (double)(shape[1] - 1);
    cy[j] = (float)cos(y);
  }
  size_t o = 0;
  for (uint64_t i = 0; i < b->count[0]; i++) {
    double x = 4 * pi * (double)(b->start[0] + i) / (double)(shape[0] - 1);
    float sx = (float)sin(x);
    for (uint64_t k = 0; k < nz; k++) {
      double z = 2 * pi * (double)(b->start[2] + k) / (double)(shape[2] - 1);
      wave[k] = (float)(0.5 * sin(z + x / 2));
    }
    for (uint64_t j = 0; j < b->count[1]; j++) {
      uint64_t gi = b->start[0] + i, gj = b->start[1] + j;
      uint64_t row = (gi * shape[1] + gj) * shape[2] + b->start[2];
      float base = sx * cy[j];
      for (uint64_t k = 0; k < nz; k++) {
        uint64_t h = splitmix64(row + k);
        /* four 16-bit uniforms: mean 2, variance 1/3 */
        double u = ((double)(h & 0xffff) + (double)((h >> 16) & 0xffff) +
                    (double)((h >> 32) & 0xffff) + (double)(h >> 48)) / 65536.0;
        float noise = (float)((u - 2.0) * 1.7320508075688772 * 0.01);
        out[o++] = base + wave[k] + noise;
      }
    }
  }
  free(cy);
  free(wave);
}

/* ---------------------------------------------------------------- helpers */

/* CPU time of this process (all its threads), in seconds. */
static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

/* CPU time the whole machine spent busy (user, nice, system, irq, softirq, steal), in
 * seconds, from /proc/stat; -1 when unreadable. */
static double machine_busy_seconds(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return -1;
  unsigned long long v[8] = {0};
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  if (n < 8) return -1;
  long hz = sysconf(_SC_CLK_TCK);
  return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)(hz > 0 ? hz : 100);
}

static uint64_t g_bytes;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path;
  (void)ftw;
  if (flag == FTW_F) g_bytes += (uint64_t)st->st_size;
  return 0;
}

static uint64_t tree_bytes(const char *path) {
  g_bytes = 0;
  if (nftw(path, add_size, 32, FTW_PHYS) != 0) die("cannot walk the output");
  return g_bytes;
}

static const char *METADATA =
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%llu,%llu,%llu],"
    "\"data_type\":\"float32\","
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[256,256,256]}},"
    "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
    "\"fill_value\":0,"
    "\"codecs\":[{\"name\":\"sharding_indexed\",\"configuration\":{"
    "\"chunk_shape\":[64,64,64],"
    "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
    "{\"name\":\"gzip\",\"configuration\":{\"level\":1}}],"
    "\"index_codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
    "{\"name\":\"crc32c\"}],"
    "\"index_location\":\"end\"}}]}";

static char g_metadata[2048];
static char g_store_path[4096];

/* Each rank reads its own box back through a fresh store and compares; returns the
 * number of ranks that found a mismatch. */
static int verify_zarr(const box *b, const float *data, size_t nbytes) {
  zarr_store *store = NULL;
  zarr_array *array = NULL;
  zcheck(zarr_store_open_filesystem(g_store_path, &store), "verify: zarr_store_open_filesystem");
  zcheck(zarr_array_open(store, "/", &array), "verify: zarr_array_open");
  float *back = malloc(nbytes ? nbytes : 1);
  if (!back) die("out of memory");
  zcheck(zarr_array_read(array, 3, b->start, b->count, back, nbytes), "verify: zarr_array_read");
  int bad = memcmp(back, data, nbytes) != 0;
  if (bad) fprintf(stderr, "bench_mpi: rank %d: MISMATCH reading back its box\n", g_rank);
  free(back);
  zarr_array_free(array);
  zarr_store_free(store);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/* ---------------------------------------------------------------- (c) libzarr collective */

static zarr_comm *g_comm;

static void write_zarr(const box *b, const float *data, size_t nbytes) {
  zarr_store *store = NULL;
  zarr_array *array = NULL;
  zcheck(zarr_store_open_filesystem(g_store_path, &store), "zarr_store_open_filesystem");
  zcheck(zarr_array_create_collective(g_comm, store, "/", g_metadata, &array),
         "zarr_array_create_collective");
  zcheck(zarr_array_write_collective(g_comm, array, 3, b->start, b->count, data, nbytes),
         "zarr_array_write_collective");
  zarr_array_free(array);
  zarr_store_free(store);
}

/* ---------------------------------------------------------------- (b) gather to rank 0 */

static void write_gather(const box *b, const float *data, size_t nbytes,
                         const uint64_t shape[3]) {
  if (g_rank != 0) {
    if (box_elems(b) > 0)
      MPI_Send(data, (int)(nbytes / sizeof(float)), MPI_FLOAT, 0, 7, MPI_COMM_WORLD);
    return;
  }
  size_t total = (size_t)(shape[0] * shape[1] * shape[2]);
  float *field = malloc(total * sizeof(float));
  if (!field) die("out of memory for the whole field");
  /* Receive each rank's box straight into its place: a subarray datatype per rank (so
   * rank 0 holds the field and its own box, nothing more). */
  int sizes[3] = {(int)shape[0], (int)shape[1], (int)shape[2]};
  for (int r = 1; r < g_size; r++) {
    box rb = rank_box(r, g_size, shape);
    if (box_elems(&rb) == 0) continue;
    int subs[3] = {(int)rb.count[0], (int)rb.count[1], (int)rb.count[2]};
    int starts[3] = {(int)rb.start[0], (int)rb.start[1], (int)rb.start[2]};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &t);
    MPI_Type_commit(&t);
    MPI_Recv(field, 1, t, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
  }
  /* Rank 0's own box, row by row. */
  size_t row = (size_t)b->count[2];
  for (uint64_t i = 0; i < b->count[0]; i++)
    for (uint64_t j = 0; j < b->count[1]; j++)
      memcpy(field + ((b->start[0] + i) * shape[1] + b->start[1] + j) * shape[2] + b->start[2],
             data + (i * b->count[1] + j) * row, row * sizeof(float));
  zarr_store *store = NULL;
  zarr_array *array = NULL;
  uint64_t zero[3] = {0, 0, 0};
  zcheck(zarr_store_open_filesystem(g_store_path, &store), "zarr_store_open_filesystem");
  zcheck(zarr_array_create(store, "/", g_metadata, &array), "zarr_array_create");
  zcheck(zarr_array_write(array, 3, zero, shape, field, total * sizeof(float)),
         "zarr_array_write");
  zarr_array_free(array);
  zarr_store_free(store);
  free(field);
}

/* ---------------------------------------------------------------- (a) parallel HDF5 */

#ifdef HAVE_HDF5
static char g_h5_path[4096];
static char g_h5_stats[512];

static void h5check(herr_t s, const char *what) {
  if (s < 0) die(what);
}
static hid_t h5id(hid_t id, const char *what) {
  if (id < 0) die(what);
  return id;
}

static void write_hdf5(const box *b, const float *data, const uint64_t shape[3]) {
  hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate fapl");
  h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  hid_t file = h5id(H5Fcreate(g_h5_path, H5F_ACC_EXCL, H5P_DEFAULT, fapl), "H5Fcreate");
  hsize_t dims[3] = {shape[0], shape[1], shape[2]};
  hid_t fspace = h5id(H5Screate_simple(3, dims, NULL), "H5Screate_simple");
  hid_t dcpl = h5id(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate dcpl");
  hsize_t chunk[3] = {64, 64, 64};
  h5check(H5Pset_chunk(dcpl, 3, chunk), "H5Pset_chunk");
  h5check(H5Pset_deflate(dcpl, 1), "H5Pset_deflate");
  /* Parallel HDF5 allocates chunks early anyway; writing no fill values first is what
   * any parallel user of filters does (the Zarr writers write no fill either). */
  h5check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
  h5check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  hid_t dset = h5id(H5Dcreate2(file, "field", H5T_NATIVE_FLOAT, fspace, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT),
                    "H5Dcreate2");
  hsize_t start[3], count[3];
  for (int d = 0; d < 3; d++) {
    start[d] = b->start[d];
    count[d] = b->count[d];
  }
  hid_t mspace = h5id(H5Screate_simple(3, count, NULL), "H5Screate_simple mem");
  if (box_elems(b) > 0) {
    h5check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL),
            "H5Sselect_hyperslab");
  } else {
    H5Sselect_none(fspace);
    H5Sselect_none(mspace);
  }
  hid_t dxpl = h5id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate dxpl");
  h5check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  h5check(H5Dwrite(dset, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, data), "H5Dwrite");
  H5D_mpio_actual_io_mode_t io_mode;
  H5D_mpio_actual_chunk_opt_mode_t chunk_mode;
  uint32_t local_cause = 0, global_cause = 0;
  H5Pget_mpio_actual_io_mode(dxpl, &io_mode);
  H5Pget_mpio_actual_chunk_opt_mode(dxpl, &chunk_mode);
  H5Pget_mpio_no_collective_cause(dxpl, &local_cause, &global_cause);
  const char *io = io_mode == H5D_MPIO_NO_COLLECTIVE           ? "no_collective"
                   : io_mode == H5D_MPIO_CHUNK_INDEPENDENT     ? "chunk_independent"
                   : io_mode == H5D_MPIO_CHUNK_COLLECTIVE      ? "chunk_collective"
                   : io_mode == H5D_MPIO_CHUNK_MIXED           ? "chunk_mixed"
                   : io_mode == H5D_MPIO_CONTIGUOUS_COLLECTIVE ? "contiguous_collective"
                                                                : "?";
  const char *cm = chunk_mode == H5D_MPIO_NO_CHUNK_OPTIMIZATION ? "none"
                   : chunk_mode == H5D_MPIO_LINK_CHUNK           ? "link_chunk"
                   : chunk_mode == H5D_MPIO_MULTI_CHUNK          ? "multi_chunk"
                                                                 : "?";
  snprintf(g_h5_stats, sizeof g_h5_stats,
           "{\"hdf5\": \"%u.%u.%u\", \"io_mode\": \"%s\", \"chunk_opt_mode\": \"%s\", "
           "\"no_collective_cause_local\": %u, \"no_collective_cause_global\": %u}",
           H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, io, cm, local_cause, global_cause);
  H5Pclose(dxpl);
  H5Sclose(mspace);
  H5Sclose(fspace);
  H5Pclose(dcpl);
  h5check(H5Dclose(dset), "H5Dclose");
  h5check(H5Fclose(file), "H5Fclose");
  H5Pclose(fapl);
}

static int verify_hdf5(const box *b, const float *data, size_t nbytes) {
  hid_t fapl = h5id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate fapl");
  h5check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
  hid_t file = h5id(H5Fopen(g_h5_path, H5F_ACC_RDONLY, fapl), "verify: H5Fopen");
  hid_t dset = h5id(H5Dopen2(file, "field", H5P_DEFAULT), "verify: H5Dopen2");
  hid_t fspace = h5id(H5Dget_space(dset), "H5Dget_space");
  hsize_t start[3], count[3];
  for (int d = 0; d < 3; d++) {
    start[d] = b->start[d];
    count[d] = b->count[d];
  }
  hid_t mspace = h5id(H5Screate_simple(3, count, NULL), "H5Screate_simple mem");
  if (box_elems(b) > 0) {
    h5check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL),
            "H5Sselect_hyperslab");
  } else {
    H5Sselect_none(fspace);
    H5Sselect_none(mspace);
  }
  float *back = malloc(nbytes ? nbytes : 1);
  if (!back) die("out of memory");
  hid_t dxpl = h5id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate dxpl");
  h5check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  h5check(H5Dread(dset, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, back), "verify: H5Dread");
  int bad = memcmp(back, data, nbytes) != 0;
  if (bad) fprintf(stderr, "bench_mpi: rank %d: MISMATCH reading back its box (HDF5)\n", g_rank);
  free(back);
  H5Pclose(dxpl);
  H5Sclose(mspace);
  H5Sclose(fspace);
  H5Dclose(dset);
  H5Fclose(file);
  H5Pclose(fapl);
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return total;
}
#endif

#ifdef HAVE_HDF5
/* The compressor HDF5's deflate filter runs, alone: every 64^3 chunk of the field copied
 * out and compressed with compress2 at level 1, one after the other. */
static int zlib_alone(const uint64_t shape[3]) {
  box whole = {{0, 0, 0}, {shape[0], shape[1], shape[2]}};
  size_t total = (size_t)box_elems(&whole);
  float *field = malloc(total * sizeof(float));
  float *chunk = malloc(64 * 64 * 64 * sizeof(float));
  uLong bound = compressBound(64 * 64 * 64 * sizeof(float));
  unsigned char *packed = malloc(bound);
  if (!field || !chunk || !packed) die("out of memory");
  generate(&whole, shape, field);
  uint64_t stored = 0;
  double t0 = MPI_Wtime();
  for (uint64_t a = 0; a < shape[0]; a += 64)
    for (uint64_t b = 0; b < shape[1]; b += 64)
      for (uint64_t c = 0; c < shape[2]; c += 64) {
        uint64_t na = shape[0] - a < 64 ? shape[0] - a : 64;
        uint64_t nb = shape[1] - b < 64 ? shape[1] - b : 64;
        uint64_t nc = shape[2] - c < 64 ? shape[2] - c : 64;
        size_t n = 0;
        for (uint64_t i = 0; i < na; i++)
          for (uint64_t j = 0; j < nb; j++) {
            memcpy(chunk + n, field + ((a + i) * shape[1] + b + j) * shape[2] + c,
                   nc * sizeof(float));
            n += nc;
          }
        uLongf len = bound;
        if (compress2(packed, &len, (const Bytef *)chunk, n * sizeof(float), 1) != Z_OK)
          die("compress2 failed");
        stored += len;
      }
  double seconds = MPI_Wtime() - t0;
  printf("ZLIB version=%s seconds=%.2f ratio=%.3f\n", zlibVersion(), seconds,
         (double)stored / (double)(total * sizeof(float)));
  free(field);
  free(chunk);
  free(packed);
  return 0;
}
#endif

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (argc < 6) {
    if (g_rank == 0)
      fprintf(stderr, "usage: bench_mpi zarr|gather|hdf5|zlib OUTDIR NX NY NZ [--verify]\n");
    MPI_Finalize();
    return 2;
  }
  const char *impl = argv[1], *outdir = argv[2];
  uint64_t shape[3] = {strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                       strtoull(argv[5], NULL, 10)};
  int verify = argc > 6 && strcmp(argv[6], "--verify") == 0;
  int is_zarr = strcmp(impl, "zarr") == 0, is_gather = strcmp(impl, "gather") == 0;
  int is_hdf5 = strcmp(impl, "hdf5") == 0, is_zlib = strcmp(impl, "zlib") == 0;
  if (!is_zarr && !is_gather && !is_hdf5 && !is_zlib) die("IMPL must be zarr, gather, hdf5 or zlib");
#ifndef HAVE_HDF5
  if (is_hdf5 || is_zlib) die("built without HDF5 (install libhdf5-openmpi-dev and rebuild)");
#endif
  if (shape[0] < 2 || shape[1] < 2 || shape[2] < 2) die("each dimension must be at least 2");
  if (shape[0] > INT32_MAX || shape[1] > INT32_MAX || shape[2] > INT32_MAX ||
      shape[0] * shape[1] * shape[2] > INT32_MAX)
    die("at most 2^31 - 1 elements (MPI int counts in the gather variant)");

#ifdef HAVE_HDF5
  if (is_zlib) {
    if (g_rank == 0) zlib_alone(shape);
    MPI_Finalize();
    return 0;
  }
#endif
  if (g_rank == 0 && mkdir(outdir, 0777) != 0) {
    perror(outdir);
    die("cannot create OUTDIR (it must not exist)");
  }
  snprintf(g_store_path, sizeof g_store_path, "%s/field.zarr", outdir);
  snprintf(g_metadata, sizeof g_metadata, METADATA, (unsigned long long)shape[0],
           (unsigned long long)shape[1], (unsigned long long)shape[2]);
#ifdef HAVE_HDF5
  snprintf(g_h5_path, sizeof g_h5_path, "%s/field.h5", outdir);
  if (is_hdf5) H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
#endif
  if (is_zarr) {
    zcheck(zarr_comm_create_mpi(MPI_COMM_WORLD, &g_comm), "zarr_comm_create_mpi");
  }

  box b = rank_box(g_rank, g_size, shape);
  size_t nbytes = (size_t)box_elems(&b) * sizeof(float);
  float *data = malloc(nbytes ? nbytes : 1);
  if (!data) die("out of memory for the box");
  generate(&b, shape, data);

  /* ---- timed */
  double cpu0 = cpu_seconds();
  MPI_Barrier(MPI_COMM_WORLD);
  double busy0 = g_rank == 0 ? machine_busy_seconds() : 0;
  double t0 = MPI_Wtime();
  if (is_zarr) write_zarr(&b, data, nbytes);
  else if (is_gather) write_gather(&b, data, nbytes, shape);
#ifdef HAVE_HDF5
  else write_hdf5(&b, data, shape);
#endif
  double t_own = MPI_Wtime() - t0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t_all = MPI_Wtime() - t0;
  double busy1 = g_rank == 0 ? machine_busy_seconds() : 0;
  /* ---- */
  double cpu_own = cpu_seconds() - cpu0, cpu_all = 0;
  MPI_Reduce(&cpu_own, &cpu_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  /* What other processes took of the machine meanwhile (the machine's busy time less all
   * ranks' CPU time, over the wall time times the cores), as a share. */
  double others = -1;
  if (g_rank == 0 && busy0 >= 0 && busy1 >= 0 && t_all > 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    others = (busy1 - busy0 - cpu_all) / (t_all * (double)(cores > 0 ? cores : 1));
    if (others < 0) others = 0;
  }

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mib = (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
  double own_box_mib = (double)nbytes / MIB;
  double ratio = rss_mib / (1.5 * own_box_mib + 128.0);

  double mine[2] = {rss_mib, own_box_mib}, *every = NULL;
  if (g_rank == 0) {
    every = malloc(sizeof(double) * 2 * (size_t)g_size);
    if (!every) die("out of memory");
  }
  MPI_Gather(mine, 2, MPI_DOUBLE, every, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double time_max = 0, ratio_max = 0, box_max = 0;
  MPI_Reduce(&t_all, &time_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&ratio, &ratio_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&own_box_mib, &box_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  struct {
    double v;
    int r;
  } rss_in = {rss_mib, g_rank}, rss_out, slow_in = {t_own, g_rank}, slow_out;
  MPI_Allreduce(&rss_in, &rss_out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  MPI_Allreduce(&slow_in, &slow_out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);

  /* Every rank's collective-write statistics, to rank 0 (the slowest rank's first). */
  enum { STATS_LEN = 1024 };
  char stats[STATS_LEN] = "";
  char *all_stats = NULL;
  if (is_zarr) {
    char *json = NULL;
    zcheck(zarr_comm_last_write_json(g_comm, &json), "zarr_comm_last_write_json");
    snprintf(stats, sizeof stats, "%s", json);
    zarr_string_free(json);
    if (g_rank == 0) {
      all_stats = calloc((size_t)g_size, STATS_LEN);
      if (!all_stats) die("out of memory");
    }
    MPI_Gather(stats, STATS_LEN, MPI_CHAR, all_stats, STATS_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
#ifdef HAVE_HDF5
  if (is_hdf5) snprintf(stats, sizeof stats, "%s", g_h5_stats);
#endif

  uint64_t bytes = 0;
  if (g_rank == 0) bytes = tree_bytes(outdir);

  int bad = 0;
  if (verify) {
    if (is_hdf5) {
#ifdef HAVE_HDF5
      bad = verify_hdf5(&b, data, nbytes);
#endif
    } else {
      bad = verify_zarr(&b, data, nbytes);
    }
  }

  if (g_rank == 0) {
    printf("RESULT impl=%s ranks=%d time_s=%.4f bytes=%llu peak_rss_mib=%.1f peak_rank=%d "
           "mem_limit_ratio=%.3f largest_box_mib=%.1f verified=%s cpu_s=%.2f others_cpu=%.3f\n",
           impl, g_size, time_max, (unsigned long long)bytes, rss_out.v, rss_out.r, ratio_max,
           box_max, verify ? (bad ? "MISMATCH" : "yes") : "no", cpu_all, others);
    printf("RSS");
    for (int r = 0; r < g_size; r++)
      printf(" rank%d=%.1f/%.1f", r, every[2 * r], 1.5 * every[2 * r + 1] + 128.0);
    printf("\n");
    if (is_zarr) {
      printf("STATS rank=%d slowest=1 %s\n", slow_out.r, all_stats + (size_t)slow_out.r * STATS_LEN);
      for (int r = 0; r < g_size; r++)
        if (r != slow_out.r) printf("STATS rank=%d slowest=0 %s\n", r, all_stats + (size_t)r * STATS_LEN);
    } else if (stats[0]) {
      printf("STATS rank=0 %s\n", stats);
    }
    fflush(stdout);
  }
  free(data);
  free(all_stats);
  free(every);
  if (g_comm) zarr_comm_free(g_comm);
  MPI_Finalize();
  return bad ? 1 : 0;
}
