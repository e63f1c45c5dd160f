/* framework.c — the framework rows (see framework.h).
 *
 * Sources for the defaults:
 *  - Megatron-Core: megatron/training/arguments.py defines --tp-comm-overlap,
 *    --overlap-grad-reduce and --overlap-param-gather as opt-in flags; the
 *    row here is the configuration NVIDIA's published H100 performance
 *    recipes use (NeMo / Megatron-Bridge performance configs turn all three
 *    on with the distributed optimizer), because that is how the measured
 *    Megatron-Core results hetplan is judged against were run.
 *  - The optimizer implementation (opt_impl, the plan key optimizer_impl;
 *    docs/optimizer.md): which Adam each row's code builds unasked.
 *    Megatron-Core and Megatron-LM: Transformer Engine's FusedAdam, else
 *    apex's (megatron/core/optimizer/__init__.py @d086a2e3: "from
 *    transformer_engine.pytorch.optimizers import FusedAdam as Adam", apex
 *    on ImportError, torch's AdamW only when neither is installed): fused.
 *    DeepSpeed: an "Adam"/"AdamW" optimizer section builds its FusedAdam
 *    (runtime/engine.py _configure_basic_optimizer, v0.5.6 and since,
 *    unless torch_adam or the CPU offload): fused. torchtitan: its job
 *    config's optimizer.implementation defaults to "fused"
 *    (torchtitan/config/job_config.py @6404b932, class Optimizer; it also
 *    takes "foreach" and "for-loop"): fused. The apex rows (pytorch-ddp,
 *    deepspeed-0.3) count apex FusedAdam below; llm.c its own fused kernel
 *    (llmc/adamw.cuh) and MaxText optax's Adam compiled by XLA into fused
 *    loops, which have no other implementation (opt_impl_only).
 *    hf-transformers and hf-deepspeed: below.
 *  - Megatron-LM 2021-22 (the SC21 paper's code): gradient all-reduce after
 *    the backward pass, no TP overlap, no parameter-gather overlap.
 *  - Megatron's gradient dtype (both rows): --accumulate-allreduce-grads-
 *    in-fp32 is off unless given, and arguments.py turns it on by itself
 *    only for bf16 ("bfloat16 requires gradient accumulation and
 *    all-reduce to be done in fp32": megatron/arguments.py of 2021,
 *    megatron/training/arguments.py L299-305 at core_r0.8.0). An fp16 run
 *    (the 2019-22 papers, DLPerf, vTrain) reduces fp16 gradients; bf16 and
 *    fp8 runs (fp8 keeps bf16 parameters) reduce fp32.
 *  - DeepSpeed: "overlap_comm" overlaps the gradient reduction with the
 *    backward pass (on by default for ZeRO-3, off for stages 1-2:
 *    deepspeed/runtime/zero/config.py overlap_comm_valid, L351-353 at
 *    38327e07f, sets it to stage == 3 when absent; the same validator in
 *    v0.7.1, dce3acaa of 2022-08-19, L138-145, and at @edaa7221 L383-385).
 *    A plan that names no grad_overlap follows that default
 *    (dp_overlap_default_min_zero 3, framework_grad_overlap_default):
 *    on at ZeRO-3, off at ZeRO 1-2, where the estimate charges the
 *    reduce exposed and says so in its notes (the parameter overlap's
 *    default too: ZeRO 1-2 gather inside the step, perf_comm.c); --grad-overlap on (a config
 *    that sets overlap_comm true, as huggingface/transformers tests/
 *    deepspeed/ds_config_zero2.json @00e12e7c and most published
 *    recipes do) overlaps it, and launch writes the value the plan
 *    assumed. Until round 24 hetplan assumed the user set it at ZeRO 1-2.
 *    ZeRO-3 prefetches parameters. No TP overlap. Gradients reduced
 *    in the training dtype, but in fp32 for bf16 at ZeRO 0, where the
 *    engine accumulates them in fp32 (FW_GRAD_FP32_BF16_ZERO0,
 *    get_data_types; launch states communication_data_type and
 *    data_types.grad_accum_dtype). At ZeRO 0 nothing can overlap
 *    (grad_overlap_min_zero 1): overlap_comm is a field of the ZeRO
 *    optimizer only, and without one DeepSpeedEngine.backward() runs
 *    loss.backward() and then allreduce_gradients(), whose ZeRO-0 branch
 *    is buffered_allreduce_fallback, bucket after bucket once the
 *    backward is done (runtime/engine.py @38327e07f L2048-2062, called at
 *    L2152; the same in v0.3.13, engine.py L927-941 and L1010, AMP's
 *    copy); no gradient hook is registered. ZeRO-1 honours overlap_comm
 *    since stage 1 joined stage_1_and_2.py: the hooks exist when
 *    "partition_gradients or overlap_comm" (L527-528) and reduce at the
 *    accumulation boundary, i.e. during the last micro-batch's backward
 *    (reduce_ready_partitions_and_remove_grads, L1424-1426). Under the
 *    PipelineEngine the ZeRO optimizer is built with overlap_comm False
 *    ("Pipeline parallelism does not support overlapped communication",
 *    engine.py L1639-1642): perf_comm.c's perf_stage_dp holds it off
 *    at PP above 1.
 *    ZeRO-2 reduces after every micro-batch (zero2_reduce_per_microbatch):
 *    deepspeedai/DeepSpeed @edaa7221 (August 2026) stage_1_and_2.py
 *    L1767-1769, reduce_ready_partitions_and_remove_grads, runs the
 *    gradient hook's bucketed reduce when "self.partition_gradients or
 *    self.is_gradient_accumulation_boundary()": ZeRO-2 (partition_grads)
 *    reduces in every backward and keeps only its partition's
 *    accumulated gradients, ZeRO-1 only in the boundary's; engine.py
 *    L2902-2907, allreduce_gradients: "ZeRO stage >= 2 communicates
 *    during non gradient accumulation boundaries as well" (the epilogue
 *    each backward), else "Communicate only at gradient accumulation
 *    boundaries" (DeepSpeed issue #2252, maintainer reply of 2022-08-23).
 *    Under overlap_comm (average_tensor, L1350-1362: the reduction
 *    stream) each micro-batch's buckets run beside its own backward;
 *    without it (the default at ZeRO-2, above) each runs after its
 *    backward: mb exposed reduce-scatters a step.
 *    ZeRO 1-2 bucket copies (ddp_copy_passes 2, read and write of each
 *    16-bit gradient element, per reduce: per micro-batch at ZeRO-2,
 *    perf_comm.c). Every reduce goes through the gradient hook's
 *    reduce_independent_p_g_buckets_and_remove_grads (ZeRO-1 without
 *    overlap_comm too: reduce_gradients at the boundary walks every
 *    parameter through it). With contiguous_gradients (default True)
 *    each gradient is copied into the ipg bucket,
 *    new_grad_tensor.copy_(grad.view(-1)): read 2 + write 2; then
 *    average_tensor (reduce_scatter default True) divides the whole
 *    bucket, tensor.div_(world_size): read 2 + write 2. At v0.5.6
 *    (stage2.py @2665c8b1 L814, L929) and v0.9.5 (stage_1_and_2.py
 *    @fc9e1ee0 L853, L971) each rank's slice is then dist.reduce'd
 *    straight from the bucket (no third pass). From v0.12.4
 *    (2afa1c7f2, 2023-11-21; v0.12.6 @c00388a2 L911, L1072) the slices
 *    go through allreduce_and_scatter -> allreduce_bucket, which
 *    flattens them again (self.flatten, L1443: a third pass) and
 *    all-reduces the flat bucket (rank forced to None, L1442), copying
 *    back only the rank's own slice (L968). Not charged, each a 1/DP
 *    share of a pass: the copy of the rank's own gradients into
 *    grads_in_partition (copy_grads_in_partition, L1312) and the
 *    epilogue's flat partition. Simplified: 2 passes, the count common
 *    to every release the calibration and blind rows ran (v0.5-v0.12.2);
 *    v0.12.4 and later make 3, and all-reduce where hetplan charges a
 *    reduce-scatter (docs/hf-deepspeed.md, section 6). Until this round
 *    the row charged 0 here.
 *  - torchtitan: FSDP2 prefetches the next layer's all-gather and overlaps
 *    the reduce-scatter with the backward; async TP is opt-in
 *    (experimental.enable_async_tensor_parallel); reduce dtype fp32
 *    (mixed_precision_reduce = "float32").
 *  - Pipeline transfers. Megatron-LM 2021-22 scatters a stage's output
 *    (replicated on the TP ranks when sequence parallelism is off) into t
 *    slices, sends each from its own rank and all-gathers them on arrival
 *    (--no-scatter-gather-tensors-in-pipeline turns it off; on by default,
 *    megatron/arguments.py and megatron/p2p_communication.py of 2021-22;
 *    Narayanan et al. SC21 Sec. 4.1, "scatter/gather communication
 *    optimization"). Megatron-Core dropped it: under sequence parallelism
 *    the output is already split. DeepSpeed's PipelineEngine sends and
 *    receives with blocking calls (deepspeed/runtime/pipe/p2p.py: send()
 *    and recv() assert async_op == False), each its own instruction of
 *    the TrainSchedule, so a micro-batch's four transfers run one after
 *    another. With TP it partitions them (pp_partitioned): each TP rank
 *    sends its 1/t PartitionedTensor slice of the output, and of the
 *    output's gradient, after a small meta tensor, and the receiving
 *    stage all-gathers the slices over the TP group before its forward;
 *    the sending stage all-gathers twice before its backward (its own
 *    output, restored for autograd, and the received gradient):
 *    deepspeed/runtime/pipe/engine.py @29bee73f0 (October 2021:
 *    is_pipe_partitioned = is_grad_partitioned = is_model_parallel) and
 *    @38327e07f (pipeline.pipe_partitioned and grad_partitioned, both
 *    true by default in runtime/config.py). Megatron-DeepSpeed's
 *    GPTModelPipe, from its pipeline integration on (microsoft/
 *    Megatron-DeepSpeed 8a132ced, June 2021; BLOOM's, bigscience-workshop/
 *    Megatron-DeepSpeed @0035f06a, and Sailor's copy too), keeps the attention mask in args.attn_mask, so no mask
 *    crosses. Not this row: DeepSpeed 0.3 with the Megatron-LM v1.1.5
 *    GPT2ModelPipe of DeepSpeedExamples (the AMP rows' code, DachengLi1/
 *    AMP @72eeea4) sends the gradient whole (is_grad_partitioned False)
 *    and the fp16 [1, 1, s, s] mask with every activation, at TP 1 too
 *    (docs/blind-round8-sailor.md). Until the sailor round this row sent
 *    full tensors from every rank, a stand-in for a DeepSpeed cost the
 *    MT-NLG and BLOOM rows seemed to need; at TP 8 over 1 GbE it charged
 *    eight times what the code sends (docs/ppdiag.md).
 *  - Attention kernels on Hopper and later: Megatron-Core runs Transformer
 *    Engine's fused attention (cuDNN, FlashAttention-3 class); PyTorch
 *    SDPA, flash-attn 2 and the older stacks run FlashAttention-2 class
 *    kernels, about half as fast there.
 *  - pytorch-ddp and pytorch-ddp-2020 (estimate-only, framework.h): NVIDIA
 *    DeepLearningExamples' BERT fine-tuning, PyTorch/LanguageModeling/BERT
 *    @26c26761 (April 2020) and @a9e2c1d5 (March 2022; Lambda's fork
 *    LambdaLabsML/DeepLearningExamples lambda/benchmark @bca2927e changes
 *    one GeLU argument). Both run the same training loop. Their model
 *    code differs: 2020 reshapes q, k and v into 4-D views, permutes them
 *    and hands them to torch.matmul, which copies each into a contiguous
 *    batch (eager_qkv_copies); 2022 views them as [s, b x heads, d] and
 *    transposes into torch.bmm, which reads the strided batches in place.
 *    Both copy the context back (.contiguous()).
 *    run_squad.py: apex AMP opt_level O2 with FusedAdam, and
 *    apex.parallel.DistributedDataParallel with its defaults when launched
 *    on more than one GPU (model = DDP(model)); no TP, PP or ZeRO.
 *    apex/parallel/distributed.py (NVIDIA/apex @47da14a0, mid-2019):
 *    delay_allreduce False (buckets reduced during the backward, so the
 *    gradient overlap is on), message_size 10,000,000 elements per bucket,
 *    allreduce_always_fp32 False (fp16 gradients under O2, fp32 in an fp32
 *    run), and per bucket three passes over the gradients beside NCCL's own
 *    traffic: the flatten (torch.cat) into the bucket, the averaging mul_
 *    and the copy back into the parameters' .grad (allreduce_bucket,
 *    L425-473). modeling.py: every op is an eager PyTorch call (no fused
 *    bias-dropout-add; perf_compute.c lists the layer's kernels).
 *  - Optimizer-step bytes (opt_bytes_per_param, per local parameter, fp16
 *    runs; fp32 runs, which use BertAdam, are charged FW_OPT_BYTES_DEFAULT).
 *    pytorch-ddp, the pytorch:21.11 container (DLE Dockerfile @a9e2c1d5,
 *    Lambda's fork the same) with apex's generic O2 path since
 *    NVIDIA/apex 007c5947 (August 2019), read at ab520f82: unscaling the
 *    fp16 model gradients into new fp32 master gradients (amp
 *    _process_optimizer.py post_backward_with_master_weights,
 *    multi_tensor_scale, overflow check fused): read 2 + write 4 = 6; DLE's
 *    GradientClipper's multi_tensor_l2norm over the master gradients: 4;
 *    FusedAdam (multi_tensor_adam on fp32 g, p, m, v): read 16 + write 12
 *    = 28; amp's _master_params_to_model_params after the step (fp32 read,
 *    fp16 write): 6; zero_grad (new_zero_grad, fp16 grads zero_()): 2.
 *    46 bytes. The clipper's multi_tensor_scale (read and write fp32: 8)
 *    runs only on steps whose gradient norm exceeds max_grad_norm 1.0,
 *    which depends on the data: not counted (54 if every step clips).
 *    pytorch-ddp-2020, the pytorch:19.07 container the README's tables
 *    were measured in (apex of July 2019, read at 47da14a0), where amp O2
 *    gives apex's FusedAdam its own path (post_backward_with_master_
 *    weights_FusedAdam): no fp32 master gradients; multi_tensor_l2norm over
 *    the fp16 gradients for the overflow check: 2; FusedAdam reads the fp16
 *    gradient (2) and fp32 p, m, v (12), writes p, m, v (12) and the fp16
 *    model weight (output_params, 2): 28; zero_grad: 2. 32 bytes. DLE's
 *    clipper gets the master parameters, which carry no gradient on this
 *    path: its list is empty (the .item() sync stays, not modelled).
 *  - internlm (estimate-only): InternLM's trainer as its
 *    doc/en/train_performance.md table ran it, InternLM/InternLM @01e7fd61
 *    (August 2023): configs/7B_sft.py sets zero_overlap_communication
 *    True (the gradient hooks reduce buckets during the last micro-batch's
 *    backward; no_pipeline_scheduler.py skips the reduce on the others,
 *    and ParamBcastSyncHandler overlaps the broadcasts with the next
 *    forward) and reduce_bucket_size 512 x 2^20 elements; reduce_tensor
 *    reduces in the parameters' dtype (bf16: grad_reduce_fp32 0). Hybrid
 *    Zero's ZeRO-1 (zero1_bcast) is costed in perf_comm.c (dp_zero012).
 *    Optimizer bytes: torch.optim.AdamW with its default implementation
 *    inside HybridZeroOptimizer's flatten, fp32 cast, unscale and copy
 *    back: not counted here (FW_OPT_BYTES_DEFAULT); on a shard of 1/8 to
 *    1/1024 of 7B parameters it is under 20 ms of a 4-7 s step.
 *  - llm.c (estimate-only): karpathy/llm.c's GPT-2/GPT-3 trainer, read at
 *    @f1e2ace (the BLLC rows' commit; scripts/run_gpt2_*.sh, -z 1).
 *    Data parallelism: multi_gpu_async_reduce_gradient (llmc/zero.cuh
 *    L514-550) records an event on the compute stream and, on a stream of
 *    its own, reduce-scatters (-z 1; all-reduces at -z 0) one NCCL group
 *    per transformer layer as the backward passes it, in floatX (bf16:
 *    grad_reduce_fp32 0), on the last micro-step only (train_gpt2.cu
 *    L930-946): the gradient overlap is on at every ZeRO stage
 *    (grad_overlap_min_zero 0). The group of wte, wpe and the final norm
 *    goes last, after the encoder's backward (L955-964), so the last
 *    Vp x C + T x C elements are exposed; hetplan's default buckets
 *    (max(40M, 1M x dp)) expose a last bucket of 40M, against llm.c's
 *    39.4M on d12 and 52.5M on d24 (simplified: not per layer). ZeRO-1's
 *    parameter all-gather runs after the AdamW update, and
 *    cudaDeviceSynchronize follows (gpt2_update, L1108-1123): no
 *    parameter overlap. No TP. cuDNN attention (USE_CUDNN=1 in the
 *    scripts): attn_gen3.
 *    Optimizer bytes per local (shard) parameter: adamw_kernel3
 *    (llmc/adamw.cuh L19-46) reads the bf16 gradient (2) and fp32 m, v
 *    and master weight (12), writes m, v, the master (12) and the bf16
 *    parameter (2): 28; global_norm_squared over the shard's bf16
 *    gradients (train_gpt2.cu L1002-1015): 2. 30 bytes. Not counted: the
 *    cudaMemsetAsync of the whole bf16 gradient at the first micro-step
 *    (L801; 2 bytes per parameter, not per shard: 0.1 ms on d12).
 *    The loss: fused_classifier_kernel5 (llmc/fused_classifier.cuh),
 *    called at the start of gpt2_backward_and_reduce (train_gpt2.cu
 *    L822), reads the bf16 logits once for the softmax's max and sum,
 *    again for the probabilities ("hopefully still in cache"), and writes
 *    the logits' gradient in place: at most 2 + 2 + 2 = 6 bytes a logit,
 *    all in the backward (loss_bytes_fwd 0). Megatron's path moves
 *    12 + 12 (FW_LOSS_BYTES_MEGATRON). Memory: the logits live in the
 *    floatX (bf16) activation buffer `output` of B x T x max(3C, NH x T,
 *    Vp) elements (train_gpt2.cu L250, fill_in_activation_sizes), and
 *    the fused classifier overwrites them with their gradient: 2 bytes a
 *    logit at the peak (logit_bytes), against the fp32 copy Megatron's
 *    loss holds (4).
 *    The layer: fused_residual_forward5 (L734, L744-747) adds the residual
 *    and applies the next LayerNorm in one kernel (fused_residual_norm);
 *    the model code has no dropout (no_dropout); matmul_forward_cublaslt
 *    adds every bias in cuBLASLt's epilogue (gemm_bias_epilogue); GELU
 *    runs apart (gelu_fusion 0, L350 and L1516: "off for now"), as
 *    hetplan's other rows charge it. Eight kernels a layer forward.
 *  - Expert all-to-all overlap (ep_overlap; hetplan's cost in perf_comm.c,
 *    perf_stage_ep, and docs/moe.md). Megatron-Core v0.14 added
 *    "batch-level overlapping to hide EP-A2A communication"
 *    (--overlap-moe-expert-parallel-comm --delay-wgrad-compute; Megatron-LM
 *    megatron/core/transformer/moe/README.md @d98e8a64). The flags are
 *    opt-in (model_parallel_config.py: both default False); the
 *    megatron-core row turns the overlap on because most of NVIDIA's MoE
 *    performance recipes do: at NVIDIA-NeMo/Megatron-Bridge @067f987df0
 *    the DeepSeek-V3 recipes, the Qwen3 recipes that take
 *    _enable_hybridep_full_iteration_mxfp8, the H100 Qwen3-235B and the
 *    H100-BF16 / B200-MXFP8 Qwen3-30B recipes set
 *    overlap_moe_expert_parallel_comm = True (src/megatron/bridge/
 *    perf_recipes/qwen/common.py, qwen/h100/qwen3_moe.py,
 *    deepseek/common.py, deepseek/b200/deepseek_v3.py); the others (e.g.
 *    qwen3_30b_a3b_pretrain_16gpu_h100_fp8cs_config, qwen3_moe.py:92)
 *    keep moe_a2a_overlap False, which the plan key ep_overlap off
 *    expresses (plan_ep_overlap_on). Megatron-Core
 *    refuses it (transformer_config.py @d98e8a64, L3002-3046) without
 *    expert parallelism, with pipeline parallelism but no virtual
 *    stages, with full recompute or a recompute method, and outside a
 *    bf16/fp16 model (an fp8 run keeps bf16 parameters): those plans run
 *    without it (framework_ep_overlap_on). The other rows have no such
 *    schedule (DeepSpeed MoE, torchtitan: the all-to-all runs in line;
 *    Megatron-LM 2021-22 has one Switch layer and no EP).
 *  - Expert dispatch without repeated tokens (ep_dispatch_dedup; cost in
 *    perf_comm.c). The same recipes run Megatron-Core's flex token
 *    dispatcher (moe_token_dispatcher_type "flex" with the DeepEP or
 *    HybridEP backend: qwen/h100/qwen3_moe.py, qwen/gb200/qwen3_moe.py,
 *    deepseek/common.py, deepseek/b200/deepseek_v3.py @067f987df0), which
 *    "removes redundant tokens during cross-node communication"
 *    (megatron/core/transformer/moe/README.md @d98e8a64): DeepEP's
 *    internode kernels send a token once to each node holding one of its
 *    experts and forward it over NVLink there (deepseek-ai/DeepEP
 *    README, "normal kernels"); HybridEP, the backend hetplan launch
 *    writes, dispatches the same two levels (RDMA between nodes, NVLink
 *    inside; DeepEP's hybrid-ep branch, docs/README_Hybrid-EP.md) and is
 *    the one backend for a multi-node NVLink domain (NVL72). The 235B
 *    recipes on H100 and B200 keep the NCCL all-to-all dispatcher with its
 *    one copy per expert; the row takes the flex dispatcher the other
 *    recipes run as its default where every piece of the plan can run it
 *    (Hopper or later on NVSwitch nodes: plan_flex_unfit, else alltoall
 *    for the whole plan), and a plan names the run's own with its
 *    moe_dispatch key (plan_moe_dispatch; hetplan launch writes it).
 *  - Selective recomputation with flash attention
 *    (selective_reruns_flash; cost in perf_compute.c). Megatron-Core
 *    checkpoints the core attention whenever the granularity is
 *    selective and "core_attn" is in recompute_modules, its default
 *    (transformer_config.py @d98e8a64 L1940-1941; attention.py L392-395
 *    and L1555: _checkpointed_attention_forward wraps Transformer
 *    Engine's fused attention too, and __post_init__ warns that fused
 *    attention needs no such recompute), so its backward runs the
 *    attention forward a second time. Legacy Megatron-LM takes the
 *    checkpoint only on its unfused path (megatron/model/transformer.py
 *    @e89cce4d52 L793-794: "if not self.use_flash_attn: if
 *    self.checkpoint_core_attention"), as the megatron-lm row (flash
 *    postdates its 2021-22 code) and Megatron-DeepSpeed do; DeepSpeed,
 *    torchtitan and the estimate-only rows have no selective mode
 *    (runs_on.c).
 *  - The experts' GEMMs and the allgather dispatcher (moe_sequential_mlp,
 *    moe_allgather; cost in perf_compute.c and perf_comm.c,
 *    docs/moe-seq.md). Megatron-Core's own defaults are the older path:
 *    --moe-grouped-gemm is opt-in (megatron/training/arguments.py
 *    @f1f03922 L1896: store_true; transformer_config.py @d98e8a64 L850:
 *    moe_grouped_gemm False), and --moe-token-dispatcher-type defaults
 *    to allgather (arguments.py @f1f03922 L1904-1906;
 *    transformer_config.py @d98e8a64 L891). The megatron-core row (and
 *    "any") keeps grouped GEMMs and the flex dispatcher as its defaults
 *    because NVIDIA's MoE recipes set them (Megatron-Bridge @067f987df0
 *    perf_recipes: moe_grouped_gemm True, the dispatchers above), which
 *    the rows of docs/moe.md ran; a run on Megatron-LM's own defaults
 *    (the MegaScale-MoE baseline, tests/data/blind_README.md BLMSM)
 *    names moe_grouped_gemm off and moe_dispatch allgather. Only
 *    Megatron-Core has the allgather dispatcher (moe_allgather). The
 *    other MoE rows keep hetplan's earlier grouped-GEMM costing too
 *    (moe_sequential_mlp 0), though their code loops over the experts
 *    unless told otherwise: DeepSpeed-MoE's Experts.forward runs one
 *    module per local expert (deepspeed/moe/experts.py), the 2021-22
 *    Megatron-LM SwitchMLP likewise, and torchtitan's GroupedExperts
 *    falls back to a per-expert loop (_run_experts_for_loop) when
 *    use_grouped_mm is off (default on). A plan for those runs names
 *    moe_grouped_gemm off; changing the rows' defaults would move every
 *    earlier estimate of theirs, left to a measured comparison.
 *  - FP8 parameters (fp8_params; memory in perf_mem.c, the all-gather in
 *    perf_comm.c, docs/memory.md). Megatron-Core's --fp8-param-gather is
 *    opt-in (megatron/training/arguments.py @d98e8a64: store_true; the
 *    DDP config's fp8_param_gather defaults to False); the megatron-core
 *    row turns it on for fp8 plans because NVIDIA's FP8 presets do:
 *    NVIDIA-NeMo/Megatron-Bridge @067f987df0
 *    src/megatron/bridge/training/mixed_precision.py sets
 *    fp8_param_gather = True in bf16_with_fp8_mixed (delayed scaling),
 *    bf16_with_fp8_current_scaling_mixed (tensorwise) and
 *    bf16_with_mxfp8_mixed, False only in the blockwise (subchannel) and
 *    NVFP4 ones; the MLPerf Training v5.0 Llama 3.1 405B submission
 *    (mlcommons/training_results_v5.0 @0fdc28f013, NVIDIA's
 *    eos-dfw_n64_ngc25.01_nemo config_common.sh) sets FP8_PARAMS=True.
 *    The other rows: DeepSpeed and the older stacks have no FP8 weight
 *    storage; torchtitan's float8 keeps high-precision weights (its FSDP
 *    float8 all-gather casts before the gather, not modelled).
 *  - deepspeed-0.3 (estimate-only): DeepSpeed 0.3.0+7d4d742 (microsoft/
 *    DeepSpeed 7d4d742bf, September 2020) with PyTorch 1.6, running the
 *    Megatron-LM copy of DeepSpeedExamples @a79272c (Megatron-LM/, the
 *    2019 model code), fp16 at ZeRO 0 or 1, no pipeline engine: the
 *    BLDSV rows (DLPerf's DeepSpeed test). The deepspeed row models
 *    Megatron-DeepSpeed's fused layer code and today's engine; this stack
 *    differs in both:
 *    The layer (Megatron-LM/mpu/transformer.py @a79272c,
 *    GPT2ParallelSelfAttention, GPT2ParallelMLP, GPT2ParallelTransformer-
 *    Layer): every op an eager kernel (eager_modules): F.linear on 3-D
 *    inputs adds each bias apart, two dropouts and two residual adds
 *    apart, apex FusedLayerNorm, the GeLU one TorchScript kernel; q, k
 *    and v from one query_key_value linear (eager_fused_qkv), viewed and
 *    permuted, then copied by torch.matmul into contiguous batches
 *    (eager_qkv_copies); the scores divided by sqrt(d), then
 *    torch.mul(scores, ltor_mask) - 10000.0 * (1.0 - ltor_mask)
 *    (eager_mask_mul), softmax, dropout, and the context copied back
 *    (.contiguous()).
 *    The loss (pretrain_gpt2.py: vocab_parallel_cross_entropy(output.
 *    contiguous().float(), ...); mpu/cross_entropy.py): forward, per
 *    logit, the fp32 cast (read 2, write 4), clone (4 + 4), max (4),
 *    sub_ (4 + 4), exp (4 + 4), sum (4), div_ (4 + 4): 46 bytes;
 *    backward, mul_ (4 + 4) and the cast's gradient back to fp16
 *    (4 + 2): 14. Megatron's later path moves 12 + 12.
 *    ZeRO 0 (runtime/engine.py @7d4d742: allreduce_gradients ->
 *    buffered_allreduce_fallback, after the backward, buckets of
 *    MEMORY_OPT_ALLREDUCE_SIZE = 500,000,000 elements): the three copy
 *    passes of the deepspeed row (flatten, mul_ by 1/DP, copy back), fp16
 *    (allreduce_always_fp32 off by default), no overlap. The step is
 *    FP16_Optimizer.step (runtime/fp16/fused_optimizer.py @7d4d742) with
 *    apex FusedAdam (engine _configure_basic_optimizer), per parameter:
 *    the overflow check, CheckOverflow.has_overflow_serial, float(x.
 *    float().sum()) per gradient tensor (2 + 4 + 4 = 10); p.grad.to(fp32)
 *    (2 + 4) and _flatten_dense_tensors (4 + 4); the norm of the flat
 *    fp32 gradient (4); unscale mul_ (4 + 4); FusedAdam on fp32 p, g, m,
 *    v (16 + 12); the copy of the fp32 master back into the fp16 weights
 *    (4 + 2): 70 bytes. Not modelled: the overflow check's float() is a
 *    host sync per gradient tensor (148 on GPT-2 small) while the GPU
 *    waits.
 *    ZeRO 1 (runtime/zero/stage1.py @7d4d742,
 *    FP16_DeepSpeedZeroOptimizer_Stage1, called from the same
 *    allreduce_gradients after the backward: no overlap at ZeRO 0 or 1,
 *    grad_overlap_min_zero 2): reduce_scatter_gradients flattens every
 *    rank's sub-partition of the fp16 gradients (get_flat_sub_partitions),
 *    reduce-scatters them, scales every rank's partition with mul_ (not
 *    only its own), and stitches them back with two torch.cat before
 *    copying its own parameters' gradients out: four read-and-write
 *    passes over the whole gradient (ddp_copy_passes 4). Then step()
 *    all-gathers the updated fp16 sub-partitions (after the update: no
 *    parameter overlap). The step (step(), stage1.py L605-690
 *    @7d4d742), costed by framework_opt_step_bytes: over every fp16
 *    gradient tensor of the rank's model, not only its shard, the
 *    overflow check (CheckOverflow.check, float(x.float().sum()): 2 + 4
 *    + 4) and get_grad_norm(group) (p.grad.data.float().norm(): 2 + 4 +
 *    4), 20 bytes per model parameter (zero1_opt_model_bytes); then on
 *    the shard, get_flat_sub_partitions' .to(fp32) (2 + 4) and
 *    _flatten_dense_tensors (4 + 4), unscale_and_clip_grads' mul_ (4 +
 *    4), FusedAdam (16 + 12), the copy into the fp16 sub-partition (4 +
 *    2): 56 bytes per shard parameter (zero1_opt_shard_bytes). At d
 *    ranks: 56 x P/d + 20 x P. Not modelled: the two host syncs a
 *    tensor (float() and .item()). */
/*  - MoE layers (moe). Megatron-Core (megatron/core/transformer/moe/),
 *    DeepSpeed (deepspeed/moe/, DeepSpeed-MoE) and torchtitan
 *    (torchtitan/models/moe/) have routed-expert layers. The estimate-only
 *    rows' model code is dense: DeepLearningExamples' BERT modeling.py,
 *    InternLM's trainer at @01e7fd61 (its MoE code came later),
 *    llm.c's GPT-2 train_gpt2.cu and DeepSpeedExamples' 2019 Megatron-LM
 *    GPT2ParallelTransformerLayer have an MLP and no router, so a model
 *    with experts does not run on them at any EP (plan.c
 *    plan_framework_model). Megatron-LM of 2021-22 has one: SwitchMLP
 *    (--num-experts; merged into main 2022-02-24 at 53f3efc4; read at
 *    e1c334b0, 2022-12-21, megatron/model/transformer.py L122-160 and
 *    L596-597, megatron/arguments.py L458): a router of torch.max over
 *    the softmax (top-1), in every layer, each expert a ParallelMLP of
 *    --ffn-hidden-size, all experts on every rank (no expert
 *    parallelism: runs_on.c refuses EP above 1). So the megatron-lm row
 *    keeps moe = 1 with moe_switch_only: a model routing to more than
 *    one expert, with shared experts, dense layers or experts of another
 *    size does not run on it as planned (launch.c framework_denial says
 *    so).
 *  - nemo-automodel (estimate-only): NVIDIA-NeMo/Automodel read at
 *    e45812012 (the commit of the BLAM rows' page). Data parallelism is
 *    FSDP2 (distributed.strategy fsdp2): fully_shard per layer, forward
 *    and backward prefetch (components/distributed/parallelizer.py
 *    apply_fsdp2_sharding_recursively: reshard_after_forward for every
 *    layer but the last without PP, off with PP), so the torchtitan
 *    policy (zero_fsdp_default). Gradients reduced in fp32
 *    (MixedPrecisionPolicy reduce_dtype=torch.float32, distributed/
 *    parallelizer.py and moe/parallelizer.py apply_fsdp). Attention is
 *    Transformer Engine's (models/common/utils.py BackendConfig: attn
 *    "te" by default when TE is installed): cuDNN fused attention on
 *    Hopper and Blackwell, attn_gen3 as megatron-core. TP overlap is
 *    opt-in (enable_async_tensor_parallel, default False in the
 *    benchmark configs): off. MoE: BackendConfig dispatcher "deepep"
 *    (the default) runs DeepEP's normal dispatch and combine
 *    (moe/megatron/fused_a2a.py FusedDispatch / FusedCombine,
 *    Buffer.dispatch with is_token_in_rank: a token goes once to each
 *    rank holding any of its experts, ep_rank_dedup; across nodes once
 *    per node over RDMA, ep_dispatch_dedup). The expert all-to-alls run
 *    in line: MoEFlexTokenDispatcher.token_permutation2 and
 *    token_unpermutation call dispatch and combine with
 *    async_finish=False, allocate_on_comm_stream=False
 *    (moe/megatron/token_dispatcher.py), so each blocks the compute
 *    stream; there is no second micro-batch in flight (no combined
 *    1F1B), ep_overlap 0. The only concurrency in the MoE block is the
 *    shared experts on a stream of their own (moe/layers.py MoE.forward,
 *    _shared_experts_stream), beside the routed experts and their
 *    dispatch; not modelled (the measured rows have no shared expert).
 *    Not modelled: moe/parallelizer.py shards MoE models with
 *    reshard_after_forward False by default (MoEParallelizerConfig), a
 *    ZeRO-2 layout, where the dense path reshards (ZeRO-3); the default
 *    stage here is the dense one, and a MoE plan names its --zero.
 *  - hf-transformers (estimate-only): the Hugging Face Trainer with
 *    PyTorch DDP (torchrun --nproc_per_node N run_clm.py ...) running a
 *    transformers model's eager modeling code, as the BLMLI (GPT-2,
 *    mli/transformers-benchmarks) and BLFC (GPTBigCode SantaCoder,
 *    Naman-ntc/FastCode) rows ran it. Data parallelism only: the Trainer
 *    wraps the model in torch DistributedDataParallel and has no tensor
 *    or pipeline parallel degree of its own (dp_only: plan_validate
 *    refuses TP or PP above 1, exit 3). DDP reduces gradient buckets from
 *    autograd hooks during the backward (grad_overlap; the Trainer skips
 *    the reduce on the other micro-batches with no_sync), buckets of
 *    bucket_cap_mb 25 MiB (TrainingArguments.ddp_bucket_cap_mb unset:
 *    torch's default) of fp32 gradients: 25 x 2^20 / 4 elements. Under
 *    --bf16 or --fp16 the Trainer keeps the weights, gradients and AdamW
 *    in fp32 and runs the forward under torch.autocast (amp_autocast:
 *    compute_loss_context_manager, autocast_smart_context_manager), so
 *    the gradients are reduced in fp32 (grad_reduce_fp32 1). DDP copies
 *    each gradient into its bucket, divides it by the world size and
 *    copies the result back (gradient_as_bucket_view False, the
 *    Trainer's default): three passes, as apex's (ddp_copy_passes 3).
 *    ZeRO: a Trainer run with --deepspeed is DeepSpeed's engine with the
 *    model in 16 bits (no autocast): the hf-deepspeed row below (the
 *    deepspeed row counts Megatron-DeepSpeed's fused layer instead); this
 *    row is ZeRO 0 only (zero_stages 1).
 *    Gradient checkpointing (--gradient_checkpointing) recomputes whole
 *    blocks: recompute full; runs_on.c refuses selective. The model code
 *    (perf_compute.c eager_layer_kernels, layer_ew_bytes, hf_eager_bytes):
 *    huggingface/transformers models/gpt2/modeling_gpt2.py @0010f602 and
 *    models/gpt_bigcode/modeling_gpt_bigcode.py @00574544: Conv1D /
 *    nn.Linear with the bias in addmm (bias bytes counted), one c_attn
 *    GEMM for q, k and v (eager_fused_qkv), _split_heads' permuted q, k,
 *    v copied by torch.matmul (eager_qkv_copies), separate LayerNorm,
 *    dropout and residual-add kernels, eager scores (scale, causal
 *    torch.where, additive mask, softmax, dropout). The optimizer step
 *    over fp32 parameters (docs/optimizer.md section 3), per parameter:
 *    the fp16 GradScaler's unscale_, one multi-tensor
 *    _amp_foreach_non_finite_check_and_unscale_ (read 4, write 4: 8;
 *    simplified: a bf16 run has no scaler and is charged it too); the
 *    clip at max_grad_norm 1.0 (the TrainingArguments default),
 *    clip_grad_norm_'s norms and scale (read 4; read 4, write 4: 12);
 *    then the optimizer. The row's default implementation is fused
 *    (opt_impl): at transformers training_args.py @00349ae8 `optim`
 *    defaults to "adamw_torch_fused" with torch 2.8 or later
 *    ("adamw_torch", foreach, before it; "adamw_hf", the loop, until
 *    transformers 4.32, huggingface/transformers PR 25109 of 2023-07):
 *    28 bytes, 48 in all. With torch 2, zero_grad sets the gradients to
 *    None (no pass). A run of the loop's era (transformers.AdamW, torch
 *    1.x: the BLDSA rows, docs/volta.md 7.1) adds opt_loop_bytes, the
 *    zero_grad's zero_ (4), and opt_loop_launches, three launches a
 *    tensor: clip_grad_norm_'s per-tensor torch.norm and mul_ and the
 *    zero_ (torch nn/utils/clip_grad.py of the 1.x releases): 100 bytes
 *    and 10 launches a tensor with the loop's 76 and 7. Attention kernels through
 *    attn_implementation "flash_attention_2" or SDPA: FlashAttention-2
 *    class (attn_gen3 0), Ampere or newer (flash_sm80). No MoE layers in
 *    the row's counts (moe 0). Estimate-only for every launch format but
 *    hf-trainer (launch.c: the Trainer's own flags, checked against
 *    tests/data/hf_training_args.txt, transformers training_args.py
 *    @00349ae8), which runs this row at ZeRO 0 and hf-deepspeed above (the
 *    format's table, launch.c).
 *    The causal mask is a torch.where over the scores before the additive
 *    padding mask (GPT2Attention._attn @0010f602): eager_where_mask,
 *    inside autocast's count here (hf_eager_bytes).
 *  - hf-deepspeed (estimate-only; docs/hf-deepspeed.md): the same Trainer
 *    and eager model code under --deepspeed (transformers src/
 *    transformers/deepspeed.py @026015292b, deepspeed_init and
 *    deepspeed_optim_sched: the model handed to deepspeed.initialize, and
 *    when the config has no "optimizer" section the Trainer's own AdamW
 *    wrapped by DeepSpeed, zero_allow_untested_optimizer set), as the
 *    BLDSA (DeepSpeedExamples training/autotuning/hf @83757d9c: HF
 *    run_clm.py, transformers 4.12, DeepSpeed of 2021-11) and BLMLI-12..14
 *    rows ran it. Counted at microsoft/DeepSpeed v0.5.6 (2665c8b1,
 *    2021-11-11). The engine keeps the model in 16 bits (no autocast:
 *    amp_autocast 0): the eager layer's passes in 16 bits (eager_modules,
 *    eager_fused_qkv, eager_qkv_copies, eager_where_mask as hf-transformers;
 *    perf_compute.c hf_eager_bytes counts gelu_new and the where in the
 *    activation dtype). The engine's data parallelism is the deepspeed
 *    row's: ZeRO 0 is buffered_allreduce_fallback after the backward
 *    (engine.py v0.5.6 L1399-1414; grad_overlap_min_zero 1,
 *    zero0_copy_passes 3: flatten, scale, copy back), ZeRO 1-2 the
 *    stage2.py optimizer, overlap_comm off unless set (zero/constants.py
 *    L60; dp_overlap_default_min_zero 3), ZeRO-2 reducing every micro-batch
 *    (engine.py L1404-1406, stage2.py L1230: zero2_reduce_per_microbatch),
 *    gradients in the training dtype (bf16 at ZeRO 0 in fp32:
 *    FW_GRAD_FP32_BF16_ZERO0), the parameters all-gathered inside step()
 *    (perf_comm.c holds the parameter overlap off at ZeRO 1-2).
 *    Buckets: reduce_bucket_size 500,000,000 elements (zero/constants.py
 *    L68; ZeRO 0's MEMORY_OPT_ALLREDUCE_SIZE the same),
 *    ddp_bucket_elems 5e8. ZeRO 1-2 copy passes (ddp_copy_passes 2):
 *    with contiguous_gradients (default True, L64) each gradient is copied
 *    into the ipg bucket (new_grad_tensor.copy_(param.grad.view(-1)),
 *    stage2.py reduce_independent_p_g_buckets_and_remove_grads) and the
 *    bucket divided by the DP size before the reduce (average_tensor,
 *    tensor.div_, reduce_scatter default True, L57), as the deepspeed
 *    row (its notes above count the passes across releases).
 *    The optimizer step at ZeRO 1-2 (stage2.py step(), L1601-1720), per
 *    parameter of the rank's shard (zero1_opt_shard_bytes): the overflow
 *    check, float(x.float().sum()) per gradient of the partition (read 2,
 *    write 4, read 4: 10); get_grad_norm_direct, g.data.double().norm(2)
 *    (read 2, write 8, read 8: 18); the flatten and .to(fp32) of the
 *    partition's gradients (2 + 2, then 2 + 4: 10); unscale_and_clip_grads'
 *    mul_ (4 + 4: 8); the Trainer's AdamW (transformers optimization.py
 *    AdamW.step of the 4.x releases, a Python loop over the param groups'
 *    tensors, here DeepSpeed's flat fp32 partition: exp_avg.mul_ 8, .add_
 *    12, exp_avg_sq.mul_ 8, .addcmul_ 16, sqrt 8, add_(eps) 8, addcdiv_ 16:
 *    76; weight_decay 0.0 by default, so no decay pass); the copy of the
 *    fp32 partition into the 16-bit one (4 + 2: 6). 128 bytes. With an
 *    "optimizer" section in the config DeepSpeed builds its FusedAdam
 *    (28 in place of 76: 80 bytes): plan key optimizer_impl fused; the
 *    row's default is the Trainer's AdamW of those releases, the loop
 *    (opt_impl; its seven launches a tensor charged at ZeRO 0 only, where
 *    the engine steps the model's own tensors: at ZeRO 1-2 it steps one
 *    flat partition a parameter group). No per-model-parameter passes in the step
 *    (zero1_opt_model_bytes 0: the other partitions' gradients are
 *    dropped, free_grad_in_param_list). ZeRO 0 (opt_bytes_per_param):
 *    the Trainer's AdamW is not FusedAdam, so the engine wraps it in
 *    FP16_UnfusedOptimizer (engine.py _configure_fp16_optimizer,
 *    L1027-1067; fp16/unfused_optimizer.py step()): the overflow check
 *    (10), get_weight_norm over the gradients (p.data.float().norm():
 *    2 + 4 + 4 = 10), each gradient .to(fp32) (6), the unscale mul_ (8),
 *    AdamW (76), the copy back into the 16-bit weights (6): 116 bytes.
 *    Not modelled: the host syncs, one float() or .item() per gradient
 *    tensor in the overflow check and the norm, and those passes' own
 *    launches a tensor at ZeRO 0 (opt_loop_launches 0: not counted).
 *    The loss (GPT2LMHeadModel.forward: lm_logits[..., :-1, :]
 *    .contiguous(), then CrossEntropyLoss in the logits' 16 bits), per
 *    logit: forward the shift copy (2 + 2) and log_softmax (2 + 2): 8;
 *    backward nll_loss's gradient written (2), log_softmax's backward
 *    (read 2 + 2, write 2) and the slice's gradient, zeros and the copy
 *    in (2 + 2 + 2): 14. The fp16 loss scale (initial 2^32, halved on
 *    each overflow: constants.py FP16_INITIAL_SCALE_POWER_DEFAULT 32)
 *    skips the first steps' updates, which changes nothing countable
 *    beyond the step's bytes above. ZeRO-3 (zero_stages 0: stages 0-3)
 *    runs the engine's stage3.py, which the row shares with the
 *    deepspeed row through ds_engine (perf_comm.c): each module's
 *    parameters gathered per parameter tensor before its forward and
 *    again before its backward, every micro-batch
 *    (partition_parameters.py v0.5.6 _allgather_param, L856; stage3.py
 *    pre_sub_module_forward_function), prefetched up to
 *    stage3_prefetch_bucket_size ahead (param_overlap 1, on from ZeRO-3
 *    by dp_overlap_default_min_zero, as overlap_comm's default;
 *    DS_PREFETCH_ELEMS 5e7, zero/constants.py v0.5.6 L106) and kept
 *    for reuse within stage3_max_reuse_distance (1e9, L103);
 *    stage3_max_live_parameters (1e9, L99) bounds memory, not time.
 *    The HF integration leaves these at DeepSpeed's defaults unless the
 *    config says "auto": trainer_config_finalize (transformers
 *    integrations/deepspeed.py @02348331) fills only "auto" keys, with
 *    reduce_bucket_size h^2, stage3_prefetch_bucket_size 0.9 h^2 and
 *    stage3_param_persistence_threshold 10 h; stage3_max_live_parameters
 *    is never filled. hetplan's launch writes none of these keys
 *    (launch.c deepspeed_config), so the defaults are what its scripts
 *    run; a config with "auto" prefetches 0.9 h^2 (1.5e6 elements for
 *    GPT-2 large, under a tenth of a layer) and is slower than the
 *    estimate. Simplified: the step at ZeRO-3 is charged the ZeRO 1-2
 *    count (zero1_opt_shard_bytes); stage3.py step() runs the same
 *    passes (overflow check, norm, fp32 gradient, unscale, the
 *    optimizer, the copy back) on its fp32 sub-groups, not recounted.
 *    Data parallelism only (dp_only), no sequence parallelism, no MoE,
 *    as hf-transformers.
 *  - maxtext (estimate-only; docs/fp8-b200-maxtext.md sections 1 and 4):
 *    AI-Hypercomputer/maxtext @e591f30c on GPUs as NVIDIA's
 *    dgxc-benchmarking recipes run it (the BLMXT and MAXT rows). The
 *    parameters are sharded over the fsdp mesh axes (ZeRO-3 by default,
 *    zero_fsdp_default), their all-gather and the gradients'
 *    reduce-scatter pipelined by XLA behind the layers' compute; the
 *    attention is cuDNN's through Transformer Engine (attn_gen3). Its
 *    recomputation is jax.checkpoint with a policy (layers/decoders.py
 *    get_remat_policy), and JAX dead-code-eliminates the rematerialised
 *    forward (remat_dce): only values the backward reads are recomputed.
 *    The backward of a Llama block never reads the MLP down projection's
 *    output, which only enters the layer's output (saved by the next
 *    layer as its input), so hetplan's full recompute on this row re-runs
 *    the layer forward less the down GEMM and the residual add after it.
 *    MaxText's policies map onto hetplan's modes as the table of
 *    docs/fp8-b200-maxtext.md section 1 says (full, save_qkv_proj:
 *    full; minimal: selective; minimal_with_context: none); the policies
 *    between them are not hetplan modes (simplified: a run under one is
 *    estimated with the nearest mode). Not modelled: XLA fusing FP8
 *    casts into the GEMMs' producers (the casts are charged as
 *    Transformer Engine's kernels, perf_fp8_cast_bytes), Flax's FP8 op
 *    quantising the weights at every call, MaxText's MoE layers.
 */
#include "framework.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct framework_info rows[FW_ROWS] = {
	[FW_ANY] = { FW_ANY, "any", "any framework", "any", 1, 1, 1, FW_GRAD_FP32_UNLESS_FP16, 1,
		     "estimated as megatron-core", 0, 0, .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT,
		     .ep_overlap = 1, .ep_dispatch_dedup = 1, .fp8_params = 1,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		.moe = 1, .moe_allgather = 1, .selective_reruns_flash = 1 },
	[FW_MEGATRON_CORE] = { FW_MEGATRON_CORE, "megatron-core", "Megatron-Core", "mcore", 1, 1, 1,
			       FW_GRAD_FP32_UNLESS_FP16, 1,
			       "NVIDIA performance recipes (NeMo/Megatron-Bridge) on "
			       "megatron/training/arguments.py flags", 0, 0,
			       .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT, .ep_overlap = 1,
			       .ep_dispatch_dedup = 1, .fp8_params = 1,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		.moe = 1, .flash_sm80 = 1, .moe_allgather = 1, .selective_reruns_flash = 1 },
	[FW_MEGATRON_LM] = { FW_MEGATRON_LM, "megatron-lm", "Megatron-LM (2021-22)", "mlm", 0, 0, 0,
			     FW_GRAD_FP32_UNLESS_FP16, 0,
			     "Megatron-LM SC21 code: all-reduce after backward", 1, 0,
			     .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		.moe = 1, .moe_switch_only = 1, .flash_sm80 = 1 },   /* SwitchMLP: see "MoE layers" above */
	[FW_DEEPSPEED] = { FW_DEEPSPEED, "deepspeed", "DeepSpeed", "ds", 0, 1, 1,
			   FW_GRAD_FP32_BF16_ZERO0, 0,
			   "DeepSpeed config docs: zero_optimization.overlap_comm (ZeRO 1-3; "
			   "ZeRO 0 reduces after the backward: runtime/engine.py)", 0, 1,
			   .pp_partitioned = 1, .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT,
			   .grad_overlap_min_zero = 1, .zero0_copy_passes = 3,
			   .ddp_copy_passes = 2,   /* ZeRO 1-2's ipg bucket: see the notes above */
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		.moe = 1, .flash_sm80 = 1, .zero2_reduce_per_microbatch = 1, .ds_engine = 1,
		.dp_overlap_default_min_zero = 3,
		.grad_overlap_default_why = "DeepSpeed's zero_optimization.overlap_comm is off "
					    "unless the config sets it (its default is on at "
					    "ZeRO-3 only)" },
	/* zero_fsdp_default: torchtitan's data parallelism is FSDP2 (no
	 * optimizer-only sharding), and parallelism.fsdp_reshard_after_forward
	 * defaults to "default" (torchtitan/config/job_config.py @8a2686c4
	 * L271), which models/llama3/infra/parallelize.py @8a2686c4 L285-288
	 * (apply_fsdp) turns into reshard_after_forward = not pp_enabled:
	 * parameters resharded after the forward (ZeRO-3) without PP, kept
	 * gathered until the backward (ZeRO-2) with PP. */
	[FW_TORCHTITAN] = { FW_TORCHTITAN, "torchtitan", "torchtitan (FSDP2)", "titan", 0, 1, 1, 1, 0,
			    "torchtitan job config: FSDP2 prefetch, mixed_precision_reduce", 0, 0,
			    .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		.moe = 1, .zero_fsdp_default = 1 },
	/* 46 bytes: apex O2's generic master-weight path (below). */
	[FW_PYTORCH_DDP] = { FW_PYTORCH_DDP, "pytorch-ddp", "PyTorch eager + apex AMP/DDP", "ddp", 0, 1, 0,
			     FW_GRAD_FP32_UNLESS_FP16, 0,
			     "DeepLearningExamples BERT run_squad.py and modeling.py @a9e2c1d5; "
			     "apex/parallel/distributed.py @47da14a0; apex amp and FusedAdam "
			     "@ab520f82",
			     0, 0, 1, 0, 1e7, 3, 6 + 4 + 28 + 6 + 2, 0,
			     .ep_overlap = 0, .ep_dispatch_dedup = 0, .zero_stages = 1, .moe = 0,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON },
	/* 32 bytes: apex O2's FusedAdam path of July 2019 (below). */
	[FW_PYTORCH_DDP_2020] = { FW_PYTORCH_DDP_2020, "pytorch-ddp-2020",
				  "PyTorch eager + apex AMP/DDP (2020 model code)", "ddp20", 0, 1, 0,
				  FW_GRAD_FP32_UNLESS_FP16, 0,
				  "DeepLearningExamples BERT run_squad.py and modeling.py @26c26761; "
				  "apex/parallel/distributed.py, amp and FusedAdam @47da14a0",
				  0, 0, 1, 1, 1e7, 3, 2 + 28 + 2, 0,
				  .ep_overlap = 0, .ep_dispatch_dedup = 0, .zero_stages = 1, .moe = 0,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON },
	/* Hybrid Zero: all-reduce, then one broadcast per owner; buckets of
	 * reduce_bucket_size 512 x 2^20 elements; optimizer bytes not
	 * counted (below). */
	[FW_INTERNLM] = { FW_INTERNLM, "internlm", "InternLM trainer (Hybrid Zero)", "intern", 0, 1, 1, 0, 0,
			  "InternLM hybrid_zero_optim.py and configs/7B_sft.py @01e7fd61",
			  0, 0, 0, 0, 512.0 * 1024 * 1024, 0, FW_OPT_BYTES_DEFAULT, 1,
			  .ep_overlap = 0, .ep_dispatch_dedup = 0, .zero_stages = 2, .moe = 0,
			  .flash_sm80 = 1,
		.loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON },
	/* llm.c: see the notes above; every field named. */
	[FW_LLMC] = { .id = FW_LLMC, .name = "llm.c", .display = "llm.c (karpathy/llm.c train_gpt2.cu)",
		      .abbrev = "llmc", .tp_overlap = 0, .grad_overlap = 1, .param_overlap = 0,
		      .grad_reduce_fp32 = 0, .attn_gen3 = 1,
		      .source = "karpathy/llm.c train_gpt2.cu, llmc/zero.cuh, llmc/adamw.cuh, "
				"llmc/fused_classifier.cuh @f1e2ace",
		      .ddp_bucket_elems = 0, .ddp_copy_passes = 0,
		      .opt_bytes_per_param = 28 + 2, .zero1_bcast = 0, .ep_overlap = 0,
		      .ep_dispatch_dedup = 0, .fp8_params = 0, .grad_overlap_min_zero = 0,
		      .loss_bytes_fwd = 0, .loss_bytes_bwd = 2 + 2 + 2, .logit_bytes = 2,
		      .fused_residual_norm = 1,
		      .no_dropout = 1, .gemm_bias_epilogue = 1, .zero_stages = 2, .moe = 0,
		      .opt_impl = OPT_IMPL_FUSED, .opt_impl_only = 1 },
	/* DeepSpeed 0.3 with DeepSpeedExamples' 2019 Megatron-LM: see the
	 * notes above; every field named. */
	[FW_DEEPSPEED_03] = { .id = FW_DEEPSPEED_03, .name = "deepspeed-0.3",
			      .display = "DeepSpeed 0.3 + DeepSpeedExamples Megatron-LM (2019 code)",
			      .abbrev = "ds03", .tp_overlap = 0, .grad_overlap = 0, .param_overlap = 0,
			      .grad_reduce_fp32 = 0, .attn_gen3 = 0,
			      .source = "microsoft/DeepSpeed runtime/engine.py, fp16/fused_optimizer.py, "
					"zero/stage1.py @7d4d742; DeepSpeedExamples Megatron-LM @a79272c",
			      .pp_scatter_gather = 0, .pp_blocking = 0, .eager_modules = 1,
			      .eager_qkv_copies = 1, .ddp_bucket_elems = 5e8, .ddp_copy_passes = 4,
			      .opt_bytes_per_param = 10 + 6 + 8 + 4 + 8 + 28 + 6, .zero1_bcast = 0,
			      .ep_overlap = 0, .ep_dispatch_dedup = 0, .fp8_params = 0,
			      .pp_partitioned = 0, .grad_overlap_min_zero = 2, .zero0_copy_passes = 3,
			      .loss_bytes_fwd = 6 + 8 + 4 + 8 + 8 + 4 + 8, .loss_bytes_bwd = 8 + 6,
			      .fused_residual_norm = 0, .no_dropout = 0, .gemm_bias_epilogue = 0,
			      .eager_fused_qkv = 1, .eager_mask_mul = 1, .unfused_only = 1, .no_sp = 1,
			      .zero_stages = 2, .zero1_opt_shard_bytes = 6 + 8 + 8 + 28 + 6,
			      .zero1_opt_model_bytes = 10 + 10, .moe = 0 },
	/* NeMo AutoModel: see the notes above; every field named. */
	[FW_AUTOMODEL] = { .id = FW_AUTOMODEL, .name = "nemo-automodel",
			   .display = "NeMo AutoModel (FSDP2, TE, DeepEP)", .abbrev = "automodel",
			   .tp_overlap = 0, .grad_overlap = 1, .param_overlap = 1,
			   .grad_reduce_fp32 = 1, .attn_gen3 = 1,
			   .source = "NVIDIA-NeMo/Automodel components/distributed/parallelizer.py, "
				     "components/moe/megatron/{fused_a2a,token_dispatcher}.py, "
				     "components/models/common/utils.py @e45812012",
			   .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT, .ep_overlap = 0,
			   .ep_dispatch_dedup = 1, .ep_rank_dedup = 1, .fp8_params = 0,
			   .loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON,
			   .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
			   .zero_fsdp_default = 1, .moe = 1, .flash_sm80 = 1 },
	/* HF Trainer + DDP + eager transformers models: see the notes above;
	 * every field named. */
	[FW_HF] = { .id = FW_HF, .name = "hf-transformers",
		    .display = "HF Trainer + transformers (eager, DDP)", .abbrev = "hf",
		    .tp_overlap = 0, .grad_overlap = 1, .param_overlap = 0,
		    .grad_reduce_fp32 = 1, .attn_gen3 = 0,
		    .source = "huggingface/transformers trainer.py, models/gpt2/modeling_gpt2.py "
			      "@0010f602, models/gpt_bigcode/modeling_gpt_bigcode.py @00574544; "
			      "torch DistributedDataParallel defaults",
		    .pp_scatter_gather = 0, .pp_blocking = 0, .eager_modules = 1,
		    .eager_qkv_copies = 1, .ddp_bucket_elems = 25.0 * 1024 * 1024 / 4,
		    .ddp_copy_passes = 3, .opt_bytes_per_param = 8 + 12 + 28,
		    .zero1_bcast = 0, .ep_overlap = 0, .ep_dispatch_dedup = 0, .fp8_params = 0,
		    .pp_partitioned = 0, .grad_overlap_min_zero = 0, .zero0_copy_passes = 0,
		    .zero_stages = 1, .zero_fsdp_default = 0,
		    .loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON, .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
		    .fused_residual_norm = 0, .no_dropout = 0, .gemm_bias_epilogue = 0,
		    .eager_fused_qkv = 1, .eager_mask_mul = 0, .unfused_only = 0, .flash_sm80 = 1,
		    .no_sp = 1, .moe = 0, .dp_only = 1, .amp_autocast = 1, .eager_where_mask = 1,
		    /* unscale 8, clip 12, fused Adam 28: see the notes above */
		    .opt_impl = OPT_IMPL_FUSED, .opt_loop_bytes = 4, .opt_loop_launches = 3 },
	/* HF Trainer --deepspeed + eager transformers models: see the notes
	 * above; every field named. */
	[FW_HF_DEEPSPEED] = { .id = FW_HF_DEEPSPEED, .name = "hf-deepspeed",
			      .display = "HF Trainer --deepspeed + transformers (eager)",
			      .abbrev = "hfds", .tp_overlap = 0, .grad_overlap = 1,
			      .param_overlap = 1, .grad_reduce_fp32 = FW_GRAD_FP32_BF16_ZERO0,
			      .attn_gen3 = 0,
			      .source = "huggingface/transformers deepspeed.py @026015292b, "
					"models/gpt2/modeling_gpt2.py @0010f602; microsoft/DeepSpeed "
					"runtime/engine.py, zero/stage2.py, fp16/unfused_optimizer.py "
					"v0.5.6",
			      .pp_scatter_gather = 0, .pp_blocking = 0, .eager_modules = 1,
			      .eager_qkv_copies = 1, .ddp_bucket_elems = 5e8, .ddp_copy_passes = 2,
			      .opt_bytes_per_param = 10 + 10 + 6 + 8 + 76 + 6, .zero1_bcast = 0,
			      .ep_overlap = 0, .ep_dispatch_dedup = 0, .fp8_params = 0,
			      .pp_partitioned = 0, .grad_overlap_min_zero = 1, .zero0_copy_passes = 3,
			      .zero_stages = 0, .zero_fsdp_default = 0,
			      .zero1_opt_shard_bytes = 10 + 18 + 10 + 8 + 76 + 6,
			      .zero1_opt_model_bytes = 0,
			      .loss_bytes_fwd = 4 + 4, .loss_bytes_bwd = 2 + 6 + 6,
			      .fused_residual_norm = 0, .no_dropout = 0, .gemm_bias_epilogue = 0,
			      .eager_fused_qkv = 1, .eager_mask_mul = 0, .unfused_only = 0,
			      .flash_sm80 = 1, .no_sp = 1, .moe = 0, .moe_switch_only = 0,
			      .ep_rank_dedup = 0, .zero2_reduce_per_microbatch = 1,
			      .ds_engine = 1, .dp_overlap_default_min_zero = 3,
			      .grad_overlap_default_why = "DeepSpeed's zero_optimization.overlap_comm is "
							  "off unless the config sets it (its default "
							  "is on at ZeRO-3 only)",
			      .dp_only = 1, .amp_autocast = 0, .moe_sequential_mlp = 0,
			      .moe_allgather = 0, .selective_reruns_flash = 0,
			      .eager_where_mask = 1, .opt_impl = OPT_IMPL_LOOP,
			      .opt_loop_bytes = 0, .opt_loop_launches = 0 },
	/* MaxText (JAX/XLA) on GPUs: see the notes above; every field named.
	 * attn_gen3: attention=cudnn_flash_te, Transformer Engine's JAX
	 * dot_product_attention on cuDNN (layers/attention_op.py), Ampere or
	 * newer (flash_sm80). grad_overlap, param_overlap: XLA's pipelined
	 * all-gather and reduce-scatter (the dgxc-benchmarking recipes' XLA
	 * flags, as the BLMXT notes record them). grad_reduce_fp32:
	 * base.yml's weight_dtype float32 (activations in dtype bfloat16),
	 * so the gradients are fp32 when reduce-scattered.
	 * zero_fsdp_default: ici_fsdp_parallelism / dcn_fsdp_parallelism
	 * shard the parameters. tp_overlap: not checked (the recipes read
	 * run TP 1). remat_dce: jax remat_dce (jax/_src/ad_checkpoint.py
	 * @492e159a). selective_reruns_flash: hetplan's selective stands for
	 * MaxText's `minimal` policy, which recomputes the attention
	 * (docs/fp8-b200-maxtext.md section 1). Not counted from the code:
	 * the optimizer step (FW_OPT_BYTES_DEFAULT) and the loss
	 * (FW_LOSS_BYTES_MEGATRON); no MoE in the row's counts (moe 0). */
	[FW_MAXTEXT] = { .id = FW_MAXTEXT, .name = "maxtext", .display = "MaxText (JAX/XLA)",
			 .abbrev = "mxt", .tp_overlap = 0, .grad_overlap = 1, .param_overlap = 1,
			 .grad_reduce_fp32 = 1, .attn_gen3 = 1,
			 .source = "AI-Hypercomputer/maxtext configs/base.yml, layers/decoders.py, "
				   "layers/attention_op.py @e591f30c; jax-ml/jax "
				   "jax/_src/ad_checkpoint.py @492e159a; NVIDIA/dgxc-benchmarking "
				   "maxtext recipes",
			 .opt_bytes_per_param = FW_OPT_BYTES_DEFAULT, .ep_overlap = 0,
			 .ep_dispatch_dedup = 0, .fp8_params = 0,
			 .loss_bytes_fwd = FW_LOSS_BYTES_MEGATRON,
			 .loss_bytes_bwd = FW_LOSS_BYTES_MEGATRON,
			 .zero_fsdp_default = 1, .moe = 0, .flash_sm80 = 1,
			 .selective_reruns_flash = 1, .remat_dce = 1,
			 .opt_impl = OPT_IMPL_FUSED, .opt_impl_only = 1 },
};

const struct framework_info *framework_get(enum hp_framework f)
{
	assert((unsigned)f < FW_ROWS);
	if ((unsigned)f >= FW_ROWS)   /* asserts off: the documented default */
		f = FW_ANY;
	return &rows[f];
}

const char *framework_name(enum hp_framework f) { return framework_get(f)->name; }

int framework_layout_refusal(enum hp_framework f, int tp, int pp, char *why, size_t n)
{
	const struct framework_info *r = framework_get(f);
	if (!r->dp_only || (tp <= 1 && pp <= 1))
		return 0;
	if (n)
		snprintf(why, n, "framework %s runs data parallelism only (%s: no tensor or "
			 "pipeline parallel degree), not %s %d: use --tp 1 --pp 1, or a framework "
			 "with %s", r->name, r->display, tp > 1 ? "TP" : "PP", tp > 1 ? tp : pp,
			 tp > 1 ? "tensor parallelism" : "pipeline parallelism");
	return -1;
}

/* ParamBcastSyncHandler (internlm/solver/optimizer/utils.py @01e7fd61)
 * walks the model's blocks in order and gives each rank whole parameter
 * tensors, moving to the next rank once the current one holds more than
 * 1.01 x (all parameters / ranks); with zero_overlap_communication the
 * optimizer partitions by that map (hybrid_zero_optim.py,
 * _partition_param_list) and broadcast_params skips ranks without
 * parameters. A tensor is never split, so no more ranks own parameters
 * than there are tensors large enough to fill a share. Simplified: each
 * weight matrix (QKV as one fused tensor, the output projection, the
 * MLP's input, its gate when gated, its output) and each embedding or
 * output layer counts one; biases and norms ride with them; at fewer
 * ranks than that every rank owns a share. */
double framework_bcast_owners(int layers, int gated, int ends, int ranks)
{
	double tensors = (double)(layers > 0 ? layers : 0) * (4 + (gated ? 1 : 0)) +
			 (ends > 0 ? ends : 0);
	double n = tensors < ranks ? tensors : ranks;
	return n >= 1 ? n : 1;
}

int framework_dp_reads_mb(enum hp_framework f, int zero)
{
	return zero == 3 || (zero == 2 && framework_get(f)->zero2_reduce_per_microbatch);
}

int framework_grad_overlap_possible(enum hp_framework f, int zero)
{
	return zero >= framework_get(f)->grad_overlap_min_zero;
}

int framework_grad_overlap_default(enum hp_framework f, int zero)
{
	const struct framework_info *r = framework_get(f);
	return r->grad_overlap && zero >= r->dp_overlap_default_min_zero;
}

int framework_param_overlap_default(enum hp_framework f, int zero)
{
	const struct framework_info *r = framework_get(f);
	return r->param_overlap && zero >= r->dp_overlap_default_min_zero;
}

const char *framework_grad_overlap_note(enum hp_framework f, int zero)
{
	const struct framework_info *r = framework_get(f);
	if (!r->grad_overlap_default_why || !framework_grad_overlap_possible(f, zero) ||
	    framework_grad_overlap_default(f, zero))
		return NULL;
	return r->grad_overlap_default_why;
}

double framework_opt_bytes(enum hp_framework f, int fp32_run)
{
	return fp32_run ? FW_OPT_BYTES_DEFAULT : framework_get(f)->opt_bytes_per_param;
}

double framework_opt_step_bytes(enum hp_framework f, int fp32_run, int zero,
				double shard_params, double model_params)
{
	return framework_opt_step_bytes_impl(f, fp32_run, zero,
					     (enum hp_opt_impl)framework_get(f)->opt_impl,
					     shard_params, model_params);
}

/* The Adam passes of each implementation, per fp32 parameter (read +
 * write) and per tensor (docs/optimizer.md section 2).
 * fused: torch._fused_adamw_ (torch/optim/adamw.py @c15fcf4e
 *   _fused_adamw), apex FusedAdam and DeepSpeed's FusedAdam alike: one
 *   multi-tensor kernel reads the weight, gradient and both moments and
 *   writes the weight and moments: 16 + 12 = 28; launched once per group
 *   of tensors, counted as none a tensor.
 * foreach: _multi_tensor_adamw @c15fcf4e without capturable, weight decay
 *   0 (the HF Trainer's default; a decay adds _foreach_mul_ over the
 *   weights, 8): _foreach_lerp_ of exp_avg towards the gradient (read 8,
 *   write 4: 12), _foreach_mul_ of exp_avg_sq (8), _foreach_addcmul_
 *   (read exp_avg_sq and the gradient twice, write: 16), _foreach_sqrt
 *   into a new list (8), _foreach_div_ by the bias corrections (8),
 *   _foreach_add_ of eps (8), _foreach_addcdiv_ into the weights (read
 *   12, write 4: 16): 76. Seven passes, each launched once per group of
 *   tensors: multi_tensor_apply takes up to depth_to_max_tensors {110, 64,
 *   48, 36, 30} tensors a launch by list count ({96, 64, 48, 36, 30} with
 *   a scalar list; aten/src/ATen/native/cuda/MultiTensorApply.cuh
 *   @4b6fea91, the 4 KB argument tables): lerp_ 1/64, mul_ 1/110,
 *   addcmul_ 1/48, sqrt 1/64, div_ 1/96, add_ 1/110, addcdiv_ 1/48 of a
 *   launch a tensor, 0.10 in all (small tensors; a large one takes more
 *   launches by its 65,536-element chunks, which its own GPU time hides).
 * loop: _single_tensor_adamw @c15fcf4e (foreach=False) and
 *   transformers.AdamW.step of the 4.x releases (docs/hf-deepspeed.md
 *   section 2) run the same passes tensor by tensor: 76 bytes, 7 launches
 *   (transformers: mul_ and add_ for exp_avg where torch lerps: 20 for
 *   12, and sqrt then add_ eps with no div_: the same 76). The step
 *   counter's increment runs on the host (a CPU tensor) in both. */
static const double opt_impl_bytes[OPT_IMPL_COUNT] = { 28, 76, 76 };
static const double opt_impl_launches[OPT_IMPL_COUNT] = {
	0, 1.0 / 64 + 1.0 / 110 + 1.0 / 48 + 1.0 / 64 + 1.0 / 96 + 1.0 / 110 + 1.0 / 48, 7
};
static const char *const opt_impl_names[OPT_IMPL_COUNT] = { "fused", "foreach", "loop" };

/* The step of a plan with no fp32 master (plan key master none; plan.h
 * MASTER_NONE), per local parameter, every tensor bf16:
 *  - the Adam passes of impl at 2 bytes an element, half the fp32 count
 *    above (each pass reads and writes whole tensors of one dtype):
 *    fused 14 (torch._fused_adamw_ takes bf16 params, grads and state:
 *    torch/optim/adamw.py @c15fcf4e _fused_adamw; reads p, g, m, v,
 *    writes p, m, v), foreach and loop 38 (the seven passes; foreach's
 *    _foreach_sqrt list is made in exp_avg_sq's dtype, bf16);
 *  - clip_grad_norm_ at max norm 1.0 (the HF Trainer's max_grad_norm and
 *    torchtitan's training.max_norm defaults) over the bf16 gradients:
 *    the norms read 2, the scale reads and writes 2 + 2: 6;
 *  - the loop's era passes (opt_loop_bytes, zero_grad of torch 1.x) at
 *    half their fp32 bytes;
 *  - no GradScaler unscale (bf16 runs none) and no master-to-model cast
 *    (the parameters are the model's).
 * Simplified: the mixed-precision rows counted at FW_OPT_BYTES_DEFAULT
 * charge no clip; this count does (6 bytes, ~1 ms a billion parameters
 * at 4.8 TB/s). */
double framework_opt_bf16_bytes(enum hp_framework f, enum hp_opt_impl impl)
{
	double b = framework_opt_impl_bytes(impl) / 2 + 2 + 2 + 2;
	if (impl == OPT_IMPL_LOOP)
		b += framework_get(f)->opt_loop_bytes / 2;
	return b;
}

const char *framework_opt_impl_name(enum hp_opt_impl i)
{
	return (unsigned)i < OPT_IMPL_COUNT ? opt_impl_names[i] : "?";
}

int framework_opt_impl_parse(const char *s, enum hp_opt_impl *out)
{
	static const struct {
		const char *name;
		enum hp_opt_impl v;
	} alias[] = {
		{ "fused", OPT_IMPL_FUSED }, { "foreach", OPT_IMPL_FOREACH },
		{ "loop", OPT_IMPL_LOOP }, { "for-loop", OPT_IMPL_LOOP },
		{ "adamw_torch_fused", OPT_IMPL_FUSED }, { "adamw_apex_fused", OPT_IMPL_FUSED },
		{ "adamw_torch", OPT_IMPL_FOREACH }, { "adamw_hf", OPT_IMPL_LOOP },
	};
	for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
		if (!strcasecmp(s, alias[i].name)) {
			*out = alias[i].v;
			return 0;
		}
	return -1;
}

double framework_opt_impl_bytes(enum hp_opt_impl impl)
{
	assert((unsigned)impl < OPT_IMPL_COUNT);
	return (unsigned)impl < OPT_IMPL_COUNT ? opt_impl_bytes[impl] : opt_impl_bytes[0];
}

double framework_opt_impl_launches(enum hp_opt_impl impl)
{
	assert((unsigned)impl < OPT_IMPL_COUNT);
	return (unsigned)impl < OPT_IMPL_COUNT ? opt_impl_launches[impl] : 0;
}

double framework_opt_launches(enum hp_framework f, enum hp_opt_impl impl)
{
	return framework_opt_impl_launches(impl) +
	       (impl == OPT_IMPL_LOOP ? framework_get(f)->opt_loop_launches : 0);
}

/* What impl changes in a row's 16-bit count: its Adam passes, and the
 * loop's era passes (opt_loop_bytes) on or off. */
static double opt_impl_delta(const struct framework_info *r, enum hp_opt_impl impl)
{
	enum hp_opt_impl own = (enum hp_opt_impl)r->opt_impl;
	return framework_opt_impl_bytes(impl) - framework_opt_impl_bytes(own) +
	       ((impl == OPT_IMPL_LOOP) - (own == OPT_IMPL_LOOP)) * r->opt_loop_bytes;
}

double framework_opt_bytes_impl(enum hp_framework f, int fp32_run, enum hp_opt_impl impl)
{
	if (fp32_run)
		return FW_OPT_BYTES_DEFAULT;
	const struct framework_info *r = framework_get(f);
	return r->opt_bytes_per_param + opt_impl_delta(r, impl);
}

double framework_opt_step_bytes_impl(enum hp_framework f, int fp32_run, int zero,
				     enum hp_opt_impl impl, double shard_params,
				     double model_params)
{
	const struct framework_info *r = framework_get(f);
	if (zero >= 1 && !fp32_run && r->zero1_opt_shard_bytes > 0)
		return (r->zero1_opt_shard_bytes + opt_impl_delta(r, impl)) * shard_params +
		       r->zero1_opt_model_bytes * model_params;
	return framework_opt_bytes_impl(f, fp32_run, impl) * shard_params;
}

int framework_zero_max(enum hp_framework f)
{
	int n = framework_get(f)->zero_stages;
	return n >= 1 && n <= 4 ? n - 1 : 3;
}

int framework_default_zero(enum hp_framework f, int pp)
{
	if (framework_get(f)->zero_fsdp_default)
		return pp > 1 ? 2 : 3;
	int max = framework_zero_max(f);
	return max < 1 ? max : 1;
}

int framework_ep_overlap_on(enum hp_framework f, int ep, int pp, int vstages,
			    int full_recompute, int fp32_run)
{
	if (!framework_get(f)->ep_overlap || ep <= 1)
		return 0;
	if (pp > 1 && vstages <= 1)
		return 0;
	return !full_recompute && !fp32_run;
}

/* A row by its name or its RUNS ON abbreviation, among rows [lo, hi). */
static int parse_rows(const char *s, int lo, int hi, enum hp_framework *out)
{
	for (int i = lo; i < hi; i++)
		if (!strcasecmp(s, rows[i].name) || !strcasecmp(s, rows[i].abbrev)) {
			*out = (enum hp_framework)i;
			return 0;
		}
	return -1;
}

int framework_parse(const char *s, enum hp_framework *out)
{
	if (!parse_rows(s, 0, FW_COUNT, out))
		return 0;
	if (!strcasecmp(s, "megatron")) {
		*out = FW_MEGATRON_CORE;
		return 0;
	}
	return -1;
}

int framework_parse_estimate(const char *s, enum hp_framework *out)
{
	if (!parse_rows(s, FW_COUNT, FW_ROWS, out))
		return 0;
	return framework_parse(s, out);
}

int framework_launchable(enum hp_framework f)
{
	assert((unsigned)f < FW_ROWS);
	return (unsigned)f < FW_COUNT;
}

const char *framework_list(enum fw_list which, char *buf, size_t n)
{
	size_t len = 0;
	assert(n > 0);
	buf[0] = '\0';
	for (int i = FW_ANY + 1; i < FW_ROWS && len < n; i++) {
		if ((which == FW_LIST_LAUNCHABLE && i >= FW_COUNT) ||
		    (which == FW_LIST_ESTIMATE_ONLY && i < FW_COUNT))
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", rows[i].name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}
