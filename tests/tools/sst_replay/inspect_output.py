#!/usr/bin/env python3
"""Checks sst_replay's machine outputs for the end-to-end test.

  inspect_output.py json FILE   parses the JSON report; prints key=value lines
  inspect_output.py svg FILE    parses the SVG as XML; prints key=value lines

Exit status 1 (with the parser's message) if the file does not parse.
"""
import json
import sys
import xml.etree.ElementTree as ET


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "json":
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        print(f"exit_code={doc['exit_code']}")
        print(f"default_workload={str(doc['default_workload']).lower()}")
        print(f"inputs={len(doc['inputs'])}")
        print(f"allocator={doc['allocator']}")
        print(f"allocator_notes={len(doc['allocator_notes'])}")
        sp = doc["stock_pattern"]
        for key in ("header", "pattern", "rocksdb_version", "source"):
            print(f"stock_pattern.{key}={sp[key]}")
        print(f"stock_pattern.compression_managers={len(sp['compression_managers'])}")
        for i, note in enumerate(sp["notes"]):
            print(f"stock_pattern.note.{i}={note}")
        for i, inp in enumerate(doc["inputs"]):
            print(f"input.{i}.codec={inp['codec']}")
            print(f"input.{i}.kind={inp['kind']}")
            print(f"input.{i}.blocks_mode={inp['blocks_mode']}")
            print(f"input.{i}.compaction_mode={inp['compaction_mode']}")
        for m in doc["modes"]:
            p = m["mode"]
            print(f"{p}.identical={str(m['identical']).lower()}")
            print(f"{p}.compared_blocks={m['compared_blocks']}")
            print(f"{p}.runs={m['runs_per_strategy']}")
            print(f"{p}.stock_is={m['stock_is']}")
            print(f"{p}.saving={m['saving']}")
            for i, note in enumerate(m["notes"]):
                print(f"{p}.note.{i}={note}")
            for name, metric in m["metrics"].items():
                for strategy in ("stock", "pooled"):
                    s = metric[strategy]
                    assert s["min"] <= s["median"] <= s["max"], (name, s)
                    print(f"{p}.{strategy}.{name}={s['median']:.17g}")
            for strategy in ("stock", "pooled"):
                print(f"{p}.{strategy}.series_points={len(m['series'][strategy])}")
            print(f"{p}.allocators={','.join(a['name'] for a in m['allocators'])}")
            for a in m["allocators"]:
                q = f"{p}.allocator.{a['name']}"
                print(f"{q}.preload={a['preload']}")
                for key, value in a["active"].items():
                    print(f"{q}.active.{key}={value}")
                for name, felt in a["felt"].items():
                    print(f"{q}.verdict.{name}={felt['verdict']}")
                    assert felt["verdict"] in ("better", "worse", "no felt difference"), felt
                for name, metric in a["metrics"].items():
                    for strategy in ("stock", "pooled"):
                        s = metric[strategy]
                        assert s["min"] <= s["median"] <= s["max"], (name, s)
                        print(f"{q}.{strategy}.{name}={s['median']:.17g}")
        return 0
    if kind == "svg":
        root = ET.parse(path).getroot()
        print(f"root={root.tag}")
        ns = "{http://www.w3.org/2000/svg}"
        print(f"polylines={len(root.findall(f'.//{ns}polyline'))}")
        print(f"rects={len(root.findall(f'.//{ns}rect'))}")
        print(f"texts={len(root.findall(f'.//{ns}text'))}")
        return 0
    print(f"unknown kind {kind}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # any parse or shape error fails the check
        where = sys.argv[2] if len(sys.argv) > 2 else "?"
        print(f"inspect_output: {where}: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
