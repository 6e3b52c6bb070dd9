"""The table of bench/mpi/run.sh, from the lines it collected (bench/out/mpi/results.txt).

    python3 bench/mpi/report.py RESULTS REPS "NX NY NZ" ELAPSED_S "2 4 2:none"

Exits 1 when any read-back found a mismatch.
"""
import json
import re
import statistics
import sys

NAMES = {'hdf5': 'parallel HDF5', 'gather': 'gather + zarr_array_write',
         'zarr': 'zarr_array_write_collective'}


def label(config):
    n, _, bind = config.partition(':')
    return f"{n} --bind-to {bind}" if bind else n


def main(path, reps, shape, elapsed, configs):
    reps, configs = int(reps), configs.split()
    rows, stats, rss_ranks = {}, {}, {}
    for line in open(path):
        if line.startswith('RSS ') and ' rep=1 ' in line:
            kv = dict(re.findall(r'(\w+)=(\S+)', line))
            rss_ranks[(kv['config'], kv['impl'])] = ', '.join(
                f"rank {k[4:]} {float(v.split('/')[0]):.0f}/{float(v.split('/')[1]):.0f}"
                for k, v in kv.items() if k.startswith('rank'))
            continue
        kv = dict(re.findall(r'(\w+)=(\S+)', line.split(' {', 1)[0]))
        if line.startswith('RESULT '):
            rows.setdefault((kv['config'], kv['impl']), []).append(kv)
        elif line.startswith('STATS ') and kv.get('rep') == '1':
            st = stats.setdefault((kv['config'], kv['impl']), {'all': []})
            js = line[line.index('{'):].strip()
            if kv.get('slowest', '1') == '1':
                st['rank'], st['json'] = kv['rank'], js
            st['all'].append(json.loads(js))

    def med(c, impl):
        rs = rows.get((c, impl))
        return statistics.median(float(r['time_s']) for r in rs) if rs else None

    nx, ny, nz = map(int, shape.split())
    mib = nx * ny * nz * 4 / 2**20
    print(f"\nfield {nx} x {ny} x {nz} float32 ({mib:.0f} MiB); Zarr: 256^3 shards of 64^3 chunks, "
          f"gzip 1; HDF5: 64^3 chunks, deflate 1")
    print(f"median of {reps} repetitions of the slowest rank's time; peak RSS: the largest rank's, "
          f"largest over repetitions;")
    print("CPU s: CPU time of all ranks (all threads) in the timed part, median;")
    print("mem: peak / (1.5 x own box + 128 MiB), largest over ranks and repetitions (the bound: <= 1);")
    print("ranks: Open MPI's default binding (2 ranks: one core each; 4 ranks: oversubscribed, "
          "unbound) unless --bind-to is shown")
    hdr = (f"{'ranks':<17} {'implementation':<28} {'median s':>8} {'min-max s':>11} {'MiB/s':>6} "
           f"{'CPU s':>6} {'bytes on disk':>13} {'peak RSS MiB':>12} {'mem':>5} {'verified':>8} {'vs libzarr':>10}")
    print(hdr)
    print('-' * len(hdr))
    bad = False
    others = []
    for c in configs:
        zt = med(c, 'zarr')
        for impl in ['hdf5', 'gather', 'zarr']:
            rs = rows.get((c, impl))
            if not rs:
                continue
            ts = [float(r['time_s']) for r in rs]
            m = statistics.median(ts)
            size = int(statistics.median(int(r['bytes']) for r in rs))
            rss = max(float(r['peak_rss_mib']) for r in rs)
            mem = max(float(r['mem_limit_ratio']) for r in rs)
            ver = [r['verified'] for r in rs if r['verified'] != 'no']
            v = 'yes' if ver and all(x == 'yes' for x in ver) else ('MISMATCH' if ver else '-')
            bad |= v == 'MISMATCH'
            others += [float(r['others_cpu']) for r in rs if float(r['others_cpu']) >= 0]
            cpu = statistics.median(float(r['cpu_s']) for r in rs)
            ratio = f"{m / zt:.2f}x" if zt and impl != 'zarr' else '1'
            print(f"{label(c):<17} {NAMES[impl]:<28} {m:>8.2f} {min(ts):>5.2f}-{max(ts):<5.2f} "
                  f"{mib / m:>6.0f} {cpu:>6.1f} {size:>13,} {rss:>12.0f} {mem:>5.2f} {v:>8} {ratio:>10}")
    print()
    print("targets (from the issue): libzarr >= 2x parallel HDF5, >= 1x gather to rank 0, "
          "every rank <= 1.5 x own box + 128 MiB")
    for c in configs:
        z, h, g = med(c, 'zarr'), med(c, 'hdf5'), med(c, 'gather')
        if z is None:
            continue
        zm = max(float(r['mem_limit_ratio']) for r in rows[(c, 'zarr')])
        parts = []
        if h is not None:
            parts.append(f"HDF5/libzarr {h / z:.2f}x ({'met' if h / z >= 2 else 'NOT met'})")
        if g is not None:
            parts.append(f"gather/libzarr {g / z:.2f}x ({'met' if g / z >= 1 else 'NOT met'})")
        parts.append(f"libzarr memory {zm:.2f} of the bound ({'met' if zm <= 1 else 'NOT met'})")
        print(f"  {label(c) + ' ranks:':<24}" + "; ".join(parts))
    print()
    print("first repetition:")
    for c in configs:
        for impl in ['hdf5', 'zarr']:
            st = stats.get((c, impl))
            if not st:
                continue
            if impl == 'zarr':
                print(f"  {label(c)} ranks, zarr_comm_last_write_json of the slowest rank "
                      f"({st['rank']}): {st['json']}")
                tot = {k: sum(a[k] for a in st['all'])
                       for k in ('units_written', 'units_merged', 'bytes_sent')}
                print(f"  {label(c)} ranks, all ranks: units {st['all'][0]['units']}, written "
                      f"{tot['units_written']}, merged {tot['units_merged']}, bytes exchanged "
                      f"{tot['bytes_sent']:,}")
                if (c, impl) in rss_ranks:
                    print(f"  {label(c)} ranks, libzarr peak RSS / bound, MiB: {rss_ranks[(c, impl)]}")
            else:
                print(f"  {label(c)} ranks, HDF5 transfer mode (rank {st['rank']}): {st['json']}")
    for line in open(path):
        if line.startswith('ZLIB '):
            kv = dict(re.findall(r'(\w+)=(\S+)', line))
            print(f"\nthe system zlib {kv['version']} alone, level 1 on every 64^3 chunk of the field "
                  f"(what HDF5's deflate 1 runs): {kv['seconds']} s of one core, to {kv['ratio']} "
                  f"of the raw size")
    discarded = sum(1 for line in open(path) if line.startswith('DISCARDED '))
    if others:
        print(f"\nother processes' CPU during the kept measurements (share of the machine): "
              f"median {statistics.median(others):.0%}, max {max(others):.0%}; "
              f"{discarded} measurement(s) discarded and taken again (others above the limit)")
    print(f"whole run: {elapsed} s")
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:6]))
