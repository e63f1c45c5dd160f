#!/usr/bin/env python3
"""make_inputs.py -- write calculon inputs for hetplan's measured training rows.

Usage: build/tests/test_compare --rows | \
       python3 tools/calculon/make_inputs.py CALCULON_DIR OUT_DIR

Reads one JSON object per step-time row (the model, plan and cluster as
tests/calib_rows.h builds them; test_compare --rows prints them) and
writes, for every row calculon can express, OUT_DIR/ID.app.json
(calculon's Llm.Application), ID.exe.json (Llm.Execution) and ID.sys.json
(System), plus OUT_DIR/manifest.jsonl: one line per row with "status"
("run" or "cannot"), the reason or the approximations made, the row's
configuration signature and its measured step time.

The mapping (docs/compare.md says why each choice):
  application  hidden, feedforward, seq_size, attn_heads, attn_size =
               head_dim, num_blocks = layers. calculon models the
               transformer blocks only: no embedding, no output layer, no
               loss (its own model, kept as it is).
  execution    tp/pp/dp/mbs/gbs as run; pipeline_interleaving = VP;
               optimizer_sharding = ZeRO >= 1 (and DP > 1);
               tensor_par_comm_type rs_ag with sequence parallelism,
               ar without; recompute full -> full, selective -> attn_only
               with seq_par_ag_redo under rs_ag (as calculon's own
               validation/seqsel files set Megatron's selective runs);
               data_par_overlap = the framework's gradient overlap;
               tensor_par_overlap ring where the run overlapped TP
               communication; fused_activation false for the Megatron-LM
               2021-22 and DeepSpeed lineage (calculon's validation files
               of those runs), true for Megatron-Core and torchtitan.
  system       calculon's shipped systems/a100_80g.json (A100) or
               systems/h100_80g_nvl8.json (H100), unchanged except:
               tier 0 size = the NVLink domain, tier 1 bandwidth = the
               row's NICs per GPU, memory capacity raised so calculon's
               capacity check never refuses a run that did run (its need
               is noted when above the GPU's). V100, A100-40GB, H200,
               B200 and GB200 have no shipped file: the A100 (Volta,
               Ampere) or H100 (Hopper, Blackwell) file with the GPU's
               datasheet peaks from hetplan's data/gpus.json (A800 and
               H800: the A100 and H100 files with their NVLink rate).

Approximations, noted per row with "approx:" (and reported apart):
  gated MLP (SwiGLU): calculon's MLP has two GEMMs; feedforward = 1.5 x ffn
    keeps the GEMM FLOPs and weights (3 h f = 2 h (1.5 f));
  GQA: calculon has multihead and multiquery only; run as multihead
    (kv_heads == 1: multiquery);
  ZeRO-3 / FSDP: run as optimizer sharding; the per-layer parameter
    all-gathers of the forward and backward are not in calculon.
Rows it cannot express: heterogeneous clusters (one processor type per
system), context parallelism (TP, PP, DP only), mixture of experts (dense
blocks only), fp8 on a GPU without it.
"""

import copy
import json
import os
import sys

# Non-tensor (vector) fp16 throughput where calculon ships no system file:
# twice the fp32 peak (half2 / packed fp16 on the CUDA cores), the ratio
# of V100's 31.4 TFLOP/s fp16 to its 15.7 fp32 (NVIDIA V100 datasheet);
# calculon's own H100 file uses 120 against 2 x 67 = 134.
VECTOR_PER_FP32 = 2.0

FP32_TFLOPS = {   # datasheet fp32 peaks (hetplan data/gpus.json, cited there)
    'V100-SXM2-16GB': 15.7, 'V100-SXM2-32GB': 15.7, 'A100-SXM4-40GB': 19.5,
    'H200-SXM': 67.0, 'B200': 75.0, 'GB200': 80.0,
    'A800-SXM4-80GB': 19.5, 'H800-SXM': 67.0,  # A100 and H100 SXM compute
    'RTX-3090': 35.6, 'RTX-A6000': 38.7, 'A40': 37.4,
    # round 33: GH200 (the H100's 67 TFLOP/s fp32, NVIDIA GH200 datasheet),
    # MI355X (157.3, AMD's datasheet as data/gpus.json) and the driver's
    # MI350X (the MI355X at 2,200/2,400 MHz: 144.2); calculon runs them on
    # its H100 file with these peaks (it has no AMD system).
    'GH200-96GB': 67.0, 'MI355X': 157.3, 'MI350X': 157.3 * 2200 / 2400,
}

# calculon's memory check is its own capacity model; a run that ran is not
# refused for it. 1 PiB per GPU is above any row's need.
MEM_CAP_GIB = 2 ** 20


def base_system(calculon_dir, gpu):
    """The shipped system file a GPU's system starts from."""
    name = 'a100_80g.json' if gpu.startswith(('A100', 'A800', 'V100')) else 'h100_80g_nvl8.json'
    with open(os.path.join(calculon_dir, 'systems', name)) as f:
        return name, json.load(f)


def make_system(calculon_dir, r, notes):
    gpu = r['gpu']
    base, s = base_system(calculon_dir, gpu)
    s = copy.deepcopy(s)
    shipped = gpu in ('A100-SXM4-80GB', 'H100-SXM')
    if not shipped:
        notes.append('system: %s with %s datasheet peaks' % (base, gpu))
        fp16 = r['flops_fp16'] / 1e12
        for p in ('matrix', 'vector'):
            # the 2-byte dtype (float16) and, where the GPU has it, float8
            s[p] = {k: v for k, v in s[p].items() if k == 'float16'}
        s['matrix']['float16']['tflops'] = fp16
        s['vector']['float16']['tflops'] = VECTOR_PER_FP32 * FP32_TFLOPS[gpu]
        if r['flops_fp8'] > 0:
            s['matrix']['float8'] = dict(s['matrix']['float16'], tflops=r['flops_fp8'] / 1e12)
            s['vector']['float8'] = dict(s['vector']['float16'])
        s['mem1']['GBps'] = r['hbm_Bps'] / 1e9
        s['networks'][0]['bandwidth'] = r['intra_Bps'] / 1e9
    s['mem1']['GiB'] = MEM_CAP_GIB
    dom = max(r['nvl_domain'], r['gpus_per_node'])
    s['networks'][0]['size'] = dom
    # calculon's "must be filled" is a placement check, not a cost; a
    # 4-GPU job on an 8-GPU node ran, so it is not refused.
    s['networks'][0]['must_be_filled'] = False
    s['networks'][1]['bandwidth'] = r['nics'] * r['nic_gbps'] / 8.0 / r['gpus_per_node']
    return s, dom


def network_tiers(r, dom):
    """TP, PP, DP on tier 0 (NVLink) while the groups nest inside a domain."""
    tp, pp, dp = r['tp'], r['pp'], r['dp']
    t_tp = 0 if tp <= dom and dom % tp == 0 else 1
    t_pp = 0 if t_tp == 0 and tp * pp <= dom and dom % (tp * pp) == 0 else 1
    t_dp = 0 if t_pp == 0 and tp * pp * dp <= dom else 1
    return t_tp, t_pp, t_dp


def cannot(r):
    if r['gpu'] not in FP32_TFLOPS and r['gpu'] not in ('A100-SXM4-80GB', 'H100-SXM'):
        return 'no datasheet fp32 peak for %s in make_inputs.py (FP32_TFLOPS)' % r['gpu']
    if r['pools'] > 1 or r['replica_groups'] > 1:
        return 'heterogeneous cluster: calculon models one processor type per system'
    if r['cp'] > 1:
        return 'context parallelism (cp %d): calculon has TP, PP and DP only' % r['cp']
    if r['experts'] > 0 or r['ep'] > 1:
        return 'mixture of experts: calculon has dense blocks only'
    if r['precision'] in ('fp32', 'tf32'):
        return '%s: make_inputs writes 2-byte float16 only' % r['precision']
    if r['precision'] == 'fp8' and r['flops_fp8'] <= 0:
        return 'fp8 on %s, which has no fp8' % r['gpu']
    return None


def make(calculon_dir, r):
    notes = []
    why = cannot(r)
    if why:
        return None, why
    ffn = r['ffn']
    if r['gated']:
        ffn = ffn * 3 // 2
        notes.append('approx: gated MLP as feedforward 1.5 x ffn')
    attn = 'multihead'
    if r['kv_heads'] == 1:
        attn = 'multiquery'
    elif r['kv_heads'] != r['heads']:
        notes.append('approx: GQA (%d kv heads of %d) as multihead' % (r['kv_heads'], r['heads']))
    if r['zero'] >= 3:
        notes.append('approx: ZeRO-3/FSDP as optimizer sharding')
    app = {'hidden': r['hidden'], 'feedforward': ffn, 'seq_size': r['seq'],
           'attn_heads': r['heads'], 'attn_size': r['head_dim'], 'num_blocks': r['layers']}
    sysj, dom = make_system(calculon_dir, r, notes)
    t_tp, t_pp, t_dp = network_tiers(r, dom)
    tp, dp = r['tp'], r['dp']
    rs_ag = tp > 1 and r['sp']
    rc = {'full': 'full', 'none': 'none'}.get(r['recompute'], 'attn_only')
    modern = r['framework'] in ('megatron-core', 'torchtitan', 'any')
    exe = {
        'num_procs': tp * r['pp'] * dp, 'tensor_par': tp, 'pipeline_par': r['pp'],
        'data_par': dp, 'tensor_par_net': t_tp, 'pipeline_par_net': t_pp,
        'data_par_net': t_dp, 'batch_size': r['gbs'], 'microbatch_size': r['mbs'],
        'datatype': 'float8' if r['precision'] == 'fp8' else 'float16',
        'fused_activation': modern, 'attention_type': attn,
        'activation_recompute': rc, 'pipeline_interleaving': r['vpp'] if r['pp'] > 1 else 1,
        'optimizer_sharding': r['zero'] >= 1 and dp > 1,
        'tensor_par_comm_type': 'rs_ag' if rs_ag else 'ar',
        'tensor_par_overlap': 'ring' if r['tp_overlap'] and tp > 1 else 'none',
        'seq_par_ag_redo': bool(rs_ag and rc == 'attn_only'),
        'data_par_overlap': bool(r['grad_overlap'] and dp > 1),
        'weight_offload': False, 'activations_offload': False, 'optimizer_offload': False,
        'training': True,
    }
    return {'app': app, 'exe': exe, 'sys': sysj, 'notes': notes}, None


def main():
    if len(sys.argv) != 3:
        sys.stderr.write('usage: test_compare --rows | make_inputs.py CALCULON_DIR OUT_DIR\n')
        return 2
    calculon_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n_run = n_cannot = 0
    with open(os.path.join(out, 'manifest.jsonl'), 'w') as man:
        for lineno, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                sys.stderr.write('stdin:%d: not JSON (%s)\n' % (lineno, e))
                return 3
            try:
                inp, why = make(calculon_dir, r)
            except KeyError as e:
                sys.stderr.write('stdin:%d: row lacks field %s (from test_compare --rows?)\n'
                                 % (lineno, e))
                return 3
            except OSError as e:
                sys.stderr.write('%s: %s\n' % (calculon_dir, e))
                return 3
            m = {'id': r['id'], 'group': r['group'], 'sig': r['sig'],
                 'measured_s': r['measured_s'], 'gpu_gib': r['mem_bytes'] / 2**30}
            if inp is None:
                m.update(status='cannot', note=why)
                n_cannot += 1
            else:
                for k in ('app', 'exe', 'sys'):
                    with open(os.path.join(out, '%s.%s.json' % (r['id'], k)), 'w') as f:
                        json.dump(inp[k], f, indent=1, sort_keys=True)
                m.update(status='run', note='; '.join(inp['notes']))
                n_run += 1
            man.write(json.dumps(m) + '\n')
    sys.stderr.write('make_inputs: %d rows to run, %d calculon cannot express\n'
                     % (n_run, n_cannot))
    return 0


if __name__ == '__main__':
    sys.exit(main())
