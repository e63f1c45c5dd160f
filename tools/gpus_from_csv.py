#!/usr/bin/env python3
"""Regenerate data/gpus.json from the team's GPU spec table (gpu-specs.csv).

Usage: python3 tools/gpus_from_csv.py ../shared/data/gpu-specs.csv > data/gpus.json

The canonical names and the aliases users type live here, next to the
default node shape per GPU type (what a cloud or a DGX/HGX box ships)."""
import csv, json, re, sys

# (gpu, variant prefix) -> canonical name, aliases, node defaults
NAMES = [
    ("V100", "SXM2 16GB", "V100-SXM2-16GB", ["V100-16GB", "V100-SXM2-16G"], 8, "nvlink", 1, 100),
    ("V100", "SXM2 32GB", "V100-SXM2-32GB", ["V100", "V100-SXM2", "V100-32GB", "V100-SXM"], 8, "nvlink", 4, 100),
    ("V100", "PCIe", "V100-PCIe", ["V100-PCIE-16GB", "V100-PCIE-32GB"], 8, "pcie", 1, 25),
    ("T4", "PCIe", "T4", ["T4-16GB", "Tesla-T4"], 4, "pcie", 1, 50),
    ("A10", "PCIe", "A10", ["A10-24GB"], 8, "pcie", 1, 100),
    ("A10G", "AWS", "A10G", ["A10G-24GB"], 8, "pcie", 1, 100),
    ("L4", "PCIe", "L4", ["L4-24GB"], 8, "pcie", 1, 100),
    ("L40S", "PCIe", "L40S", ["L40S-48GB"], 8, "pcie", 4, 100),
    ("A100", "SXM4 40GB", "A100-SXM4-40GB", ["A100-40GB", "A100-SXM-40GB", "A100-40G", "a100_40g"], 8, "nvswitch", 8, 200),
    ("A100", "SXM4 80GB", "A100-SXM4-80GB", ["A100", "A100-80GB", "A100-SXM", "A100-SXM4", "A100-SXM-80GB", "A100-80G", "a100_80g"], 8, "nvswitch", 8, 200),
    ("A100", "PCIe 40GB", "A100-PCIe-40GB", ["A100-PCIE-40G"], 8, "pcie", 1, 100),
    ("A100", "PCIe 80GB", "A100-PCIe-80GB", ["A100-PCIE", "A100-PCIE-80G"], 8, "pcie", 1, 100),
    ("H100", "SXM5", "H100-SXM", ["H100", "H100-SXM5", "H100-80GB", "H100-SXM-80GB", "H100-SXM5-80GB", "h100_80g"], 8, "nvswitch", 8, 400),
    ("H100", "PCIe", "H100-PCIe", ["H100-PCIE-80GB"], 8, "pcie", 2, 200),
    ("H100", "NVL", "H100-NVL", ["H100-NVL-94GB", "H100-94GB"], 8, "pcie", 2, 200),
    ("H200", "SXM", "H200-SXM", ["H200", "H200-141GB", "H200-SXM-141GB"], 8, "nvswitch", 8, 400),
    ("H200", "NVL", "H200-NVL", ["H200-NVL-141GB"], 8, "pcie", 2, 400),
    ("H20", "SXM", "H20", ["H20-96GB"], 8, "nvswitch", 4, 400),
    ("GH200", "96GB", "GH200-96GB", ["GH200"], 1, "pcie", 1, 400),
    ("GH200", "144GB", "GH200-144GB", ["GH200-144G"], 1, "pcie", 1, 400),
    ("B200", "HGX", "B200", ["B200-SXM", "B200-180GB", "HGX-B200"], 8, "nvswitch", 8, 400),
    ("GB200", "per GPU", "GB200", ["GB200-NVL72", "B200-NVL72"], 4, "nvswitch", 4, 400),
    ("MI250X", "OAM", "MI250X", ["MI250X-128GB", "MI250"], 4, "nvlink", 4, 200),
    ("MI300X", "OAM", "MI300X", ["MI300X-192GB", "MI300"], 8, "nvswitch", 8, 400),
    ("MI325X", "OAM", "MI325X", ["MI325X-256GB"], 8, "nvswitch", 8, 400),
    ("Gaudi2", "HL-225", "Gaudi2", ["HL-225", "Gaudi-2"], 8, "nvswitch", 3, 200),
    ("Gaudi3", "HL-325L", "Gaudi3", ["HL-325L", "Gaudi-3"], 8, "nvswitch", 3, 400),
]

# On-demand USD per GPU-hour of a whole instance (host included), from the
# team's price sample (skypilot-catalog v8 rows): a reference price for pools
# that state none, until the live price book says otherwise.
PRICES = {
    "H100-SXM": (6.88, "aws p5.48xlarge us-east-1 on-demand / 8"),
    "H200-SXM": (7.912, "aws p5en.48xlarge on-demand / 8"),
    "B200": (14.242, "aws p6-b200.48xlarge on-demand / 8"),
    "A100-SXM4-40GB": (3.4, "azure Standard_ND96asr_v4 on-demand / 8"),
    "A100-SXM4-80GB": (1.39, "runpod 1x_A100-80GB_SECURE on-demand"),
    "L40S": (2.623, "aws g6e.12xlarge on-demand / 4"),
    "L4": (1.15, "aws g6.12xlarge on-demand / 4"),
    "A10G": (1.583, "aws g5.12xlarge on-demand / 4"),
    "A10": (3.2, "azure Standard_NV36ads_A10_v5 on-demand"),
    "T4": (0.526, "aws g4dn.xlarge on-demand"),
    "V100-SXM2-16GB": (3.06, "aws p3.16xlarge on-demand / 8"),
    "V100-SXM2-32GB": (2.754, "azure Standard_ND40rs_v2 on-demand / 8"),
    "MI300X": (2.39, "runpod 4x_MI300X_SECURE on-demand / 4"),
}

def num(s):
    s = (s or "").strip()
    if not s:
        return None
    m = re.match(r"[0-9.]+", s)
    return float(m.group(0)) if m else None

def main(path):
    rows = list(csv.DictReader(open(path, newline="")))
    out = []
    for r in rows:
        match = [n for n in NAMES if n[0] == r["gpu"] and r["variant"].startswith(n[1])]
        if len(match) != 1:
            sys.exit("no unique name for %s %s" % (r["gpu"], r["variant"]))
        _, _, name, aliases, gpn, intra, nics, nic_gbps = match[0]
        dom = num(r["typical_scaleup_domain_gpus"]) or 1
        pcie_gen = num(r["pcie_gen"])
        flops = {}
        for key, col in (("fp32", "fp32_tflops"), ("tf32", "tf32_tensor_tflops_dense"),
                         ("bf16", "bf16_tensor_tflops_dense"), ("fp16", "fp16_tensor_tflops_dense"),
                         ("fp8", "fp8_tensor_tflops_dense")):
            v = num(r[col])
            if v is not None:
                flops[key] = v
        link = num(r["scaleup_bw_gbps_per_direction"])
        e = {
            "name": name,
            "aliases": aliases,
            "vendor": r["vendor"],
            "arch": r["architecture"],
            "form_factor": r["form_factor"],
            "variant": r["variant"],
            "memory_gb": num(r["memory_gb"]),
            "memory_type": r["memory_type"],
            "memory_bw_tbps": num(r["memory_bw_tbps"]),
            "tflops": flops,
            "scaleup": r["scaleup_interconnect"],
            "scaleup_gbyte_s_per_dir": link or 0,
            "scaleup_domain": int(dom),
            "pcie_gen": int(pcie_gen) if pcie_gen else 4,
            "tdp_w": num(r["tdp_w"]),
            "defaults": {"gpus_per_node": gpn, "intra": intra, "nics": nics, "nic_gbps": nic_gbps},
            "source": r["source"],
            "reference_usd_per_gpu_hour": PRICES.get(name, (None, None))[0],
            "reference_price_source": PRICES.get(name, (None, None))[1],
            "notes": r["notes"],
        }
        out.append({k: v for k, v in e.items() if v is not None})
    json.dump({"schema": 1, "gpus": out}, sys.stdout, indent=1)
    sys.stdout.write("\n")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/gpu-specs.csv")
