#!/usr/bin/env python3
"""Writes the seed corpora for fuzz_datasheet and fuzz_peaks into tests/fuzz/seeds_datasheet/
and tests/fuzz/seeds_peaks/: the real datasheet table (data/datasheet.csv) and variants of it,
and real peaks JSON (from `kbench peaks --quick --json`, kept as seeds_peaks/valid_real.json)
with its cache file form and variants, valid and broken near the rules of each format. Plain
Python, so that the seeds can be regenerated anywhere:

    python3 tests/fuzz/make_machine_seeds.py
"""

import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATASHEET_SEEDS = os.path.join(HERE, "seeds_datasheet")
PEAKS_SEEDS = os.path.join(HERE, "seeds_peaks")
REAL_PEAKS = os.path.join(PEAKS_SEEDS, "valid_real.json")
FUZZ_KEY = "fuzz"  # the key fuzz_peaks reads cache files with

HEADER = ("id,name,brand,x86_family,x86_models,arm_implementer,arm_parts,cores,base_mhz,"
          "boost_mhz,fma_units,vector_bits,memory_channels,memory_mts,source\n")


def table(*rows, header=HEADER):
    return (header + "".join(r + "\n" for r in rows)).encode()


def datasheet_seeds():
    with open(os.path.join(ROOT, "data", "datasheet.csv"), "rb") as f:
        real = f.read()
    lines = real.decode().splitlines(keepends=True)
    body = [l for l in lines if l.strip() and not l.startswith("#")]
    valid = {
        "real": real,
        "real_crlf": real.replace(b"\n", b"\r\n"),
        "real_uncommented": "".join(body).encode(),
        "header_only": HEADER.encode(),
        "minimal_x86": table("x,X,,25,,,,,,,,,,,s"),
        "minimal_arm": table("a,A,,,,0x41,0xd40 0xd4f,4,2000,2000,4,128,2,4266,src"),
        "minimal_brand": table("b,B,Brand,,,,,,,,,,,,s"),
        "quoted": table('q,"Q, with a ""quote""",,6,0x6a 106,,,"8", 2000 ,3000.5,2,512,8,'
                        '3200,"a, b"'),
        "limits": table("l.-_9,L,,4095,0 4095 1 2 3 4 5 6,,,100000,100,10000,16,2048,64,100000,"
                        "s", "m,M,,,,255,0xfff 0x0,1,1e2,0x1p13,1,64,1,1e5,s"),
        "comments_and_blanks": b"# c\n\n   \n\t# d\n" + table("x,X,,25,,,,,,,,,,,s") + b"\n# end",
        "leading_zeros": table("x,X,,025,010 011,,,,,,,,,,s"),
        "no_final_newline": table("x,X,,25,,,,,,,,,,,s")[:-1],
    }
    broken = {
        "bad_header": table("x,X,,25,,,,,,,,,,,s", header=HEADER.replace("cores", "core")),
        "short_header": table(header="id,name,brand\n"),
        "no_header": b"# only a comment\n",
        "bad_number": table("x,X,,abc,,,,,,,,,,,s"),
        "out_of_range": table("x,X,,25,,,,0,99,10001,17,4096,65,99,s"),
        "boost_below_base": table("x,X,,25,,,,,3000,2000,,,,,s"),
        "not_power_of_two": table("x,X,,25,,,,,,,,384,,,s"),
        "too_many_ids": table("x,X,,25,1 2 3 4 5 6 7 8 9,,,,,,,,,,s"),
        "both_signatures": table("x,X,,25,,0x41,,,,,,,,,s"),
        "nothing_to_match": table("x,X,,,,,,,,,,,,,s"),
        "duplicate_id": table("x,X,,25,,,,,,,,,,,s", "x,Y,,25,,,,,,,,,,,s"),
        "unterminated_quote": table('x,"X,,25,,,,,,,,,,,s'),
        "text_after_quote": table('x,"X"y,,25,,,,,,,,,,,s'),
        "quote_in_field": table('x,X"y,,25,,,,,,,,,,,s'),
        "too_many_fields": table("x,X,,25,,,,,,,,,,,s,extra"),
        "long_field": table("x," + "N" * 600 + ",,25,,,,,,,,,,,s"),
        "bad_id": table("X!,X,,25,,,,,,,,,,,s"),
        "nul": table("x,X,,25,,,,,,,,,,,s\0"),
        "nan_and_inf": table("x,X,,25,,,,,nan,inf,,,,,s"),
    }
    return valid, broken


def peaks_seeds():
    with open(REAL_PEAKS) as f:
        real = json.load(f)

    def variant(change, base=None):
        p = copy.deepcopy(base or real)
        change(p)
        return p

    def one_set(p):
        p["sets"][1] = copy.deepcopy(p["sets"][0])

    def empty_sets(p):
        for s in p["sets"]:
            s["bandwidth"], s["flops"] = [], []

    def nulls(p):
        p["load_average"], p["clock_mhz"] = None, None

    def first_rate(p):
        return p["sets"][0]["flops"][0]["gflops_per_s"]

    def set_first_rate(**values):
        return lambda p: first_rate(p).update(values)

    def huge(p):
        first_rate(p).update(best=1e300, max=1e300, median=1e300, min=1e300)

    def tiny(p):
        first_rate(p).update(best=5e-324, max=5e-324, median=0.0, min=0.0)

    def cache(peaks, key=FUZZ_KEY, fmt="kbench-peaks-cache/1"):
        return {"format": fmt, "key": key, "peaks": peaks}

    def dump(obj):
        """Compact, unlike valid_real.json: small seeds make for fast fuzzing."""
        return json.dumps(obj, separators=(",", ":")).encode()

    def small(p):
        for s in p["sets"]:
            s["bandwidth"], s["flops"] = s["bandwidth"][-1:], s["flops"][-1:]

    def point(ws, gbytes):
        rate = {"best": gbytes, "median": gbytes * 0.9, "min": gbytes * 0.8, "max": gbytes}
        return {"working_set_bytes": ws, "repetitions": 2, "gbytes_per_s": rate,
                "history": [{"at": real["measured_at"], "value": gbytes}]}

    def curves(p):
        """kbench-peaks/3: a curve per kernel, under "curves"."""
        p["format"] = "kbench-peaks/3"
        for s in p["sets"]:
            s["curves"] = {"load": [point(4096, 150.5), point(1 << 30, 25.0)],
                           "triad": [point(4608, 200.25), point(6144, 190.0)]}

    def load_curve(p):
        """kbench-peaks/2: the load curve alone, as "load_curve"."""
        p["format"] = "kbench-peaks/2"
        for s in p["sets"]:
            s["load_curve"] = [point(4096, 150.5), point(8192, 140.0)]

    valid = {
        "real_compact": dump(real),
        "small": dump(variant(small)),
        "cache_small": dump(cache(variant(small))),
        "one_set": dump(variant(one_set)),
        "empty_sets": dump(variant(empty_sets)),
        "nulls": dump(variant(nulls)),
        "leap_day": dump(variant(lambda p: p.update(measured_at="2024-02-29T23:59:60Z"))),
        "tiny_rate": dump(variant(tiny)),
        "cache_real": dump(cache(real)),
        "cache_nulls": dump(cache(variant(nulls))),
        "cache_other_key": dump(cache(variant(small), key="another machine")),
        "curves": dump(variant(curves, variant(small))),
        "load_curve": dump(variant(load_curve, variant(small))),
    }
    small_real = variant(small)

    def svariant(change):
        return variant(change, small_real)

    broken = {
        "format": dump(svariant(lambda p: p.update(format="kbench-peaks/9"))),
        "rate_overflow": dump(svariant(huge)),
        "measured_at": dump(svariant(lambda p: p.update(measured_at="yesterday"))),
        "negative_load": dump(svariant(lambda p: p.update(load_average=-0.5))),
        "negative_clock": dump(svariant(lambda p: p.update(clock_mhz=-1.0))),
        "unknown_simd": dump(svariant(lambda p: p.update(bandwidth_simd="avx9"))),
        "first_set_threads": dump(svariant(lambda p: p["sets"][0].update(threads=2))),
        "three_sets": dump(svariant(lambda p: p["sets"].append(p["sets"][0]))),
        "rate_order": dump(svariant(set_first_rate(min=1e6))),
        "extra_key": dump(svariant(lambda p: p.update(extra=1))),
        "missing_cache": dump(svariant(lambda p: p["caches"].pop("L2"))),
        "duplicate_key": dump(small_real).replace(b'"quick"', b'"quick":true,"quick"', 1),
        "truncated": dump(real)[:1200],
        "not_an_object": b"[1, 2, 3]",
        "cache_format": dump(cache(small_real, fmt="kbench-peaks-cache/0")),
        "cache_bad_peaks": dump(cache(variant(lambda p: p.pop("sets")))),
        "cache_no_key": dump({"format": "kbench-peaks-cache/1", "peaks": small_real}),
        "curves_in_v2": dump(variant(lambda p: p.update(format="kbench-peaks/2"),
                                     variant(curves, small_real))),
        "load_curve_in_v3": dump(variant(lambda p: p.update(format="kbench-peaks/3"),
                                         variant(load_curve, small_real))),
        "curve_descending": dump(variant(lambda p: p["sets"][1]["curves"]["triad"].reverse(),
                                         variant(curves, small_real))),
        "curve_unknown_kernel": dump(variant(
            lambda p: p["sets"][0]["curves"].update(stream=[]), variant(curves, small_real))),
    }
    return valid, broken


def write(directory, ext, valid, broken, keep=()):
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name not in keep:
            os.remove(os.path.join(directory, name))
    for prefix, group in (("valid", valid), ("broken", broken)):
        for name, data in group.items():
            path = os.path.join(directory, f"{prefix}_{name}.{ext}")
            if os.path.basename(path) in keep:
                continue
            with open(path, "wb") as f:
                f.write(data)
    print(f"make_machine_seeds: {len(valid)} valid and {len(broken)} broken seeds in {directory}")


def main():
    write(DATASHEET_SEEDS, "csv", *datasheet_seeds())
    write(PEAKS_SEEDS, "json", *peaks_seeds(), keep=(os.path.basename(REAL_PEAKS),))


if __name__ == "__main__":
    main()
