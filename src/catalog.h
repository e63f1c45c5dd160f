/* catalog.h — GPU specs and model presets.
 *
 * The catalog starts from the JSON embedded in the binary (data/gpus.json,
 * data/models.json) and then merges the user's files from the config
 * directory ($XDG_CONFIG_HOME/hetplan/gpus.json and models.json): an entry
 * whose name matches replaces the embedded one, a new name is added.
 * The catalog owns its arrays; catalog_done() frees them. */
#ifndef HP_CATALOG_H
#define HP_CATALOG_H

#include "util.h"
#include "fields.h"

enum hp_dtype { HP_FP32, HP_TF32, HP_BF16, HP_FP16, HP_FP8, HP_DTYPE_COUNT };

/* GPU generation, as far as the communication and efficiency models care.
 * GEN_CDNA covers CDNA 1-3 (MI100 .. MI325X); GEN_CDNA4 is CDNA 4 (MI350X,
 * MI355X: gfx950, whose kernel rates under ROCm 7 differ from CDNA 3's,
 * docs/cdna.md). New generations are appended so the indices of the older
 * ones (and their rows in data/calibration.json) stay. */
enum hp_gen { GEN_OTHER, GEN_VOLTA, GEN_TURING, GEN_AMPERE, GEN_ADA, GEN_HOPPER,
	      GEN_BLACKWELL, GEN_CDNA, GEN_GAUDI, GEN_CDNA4 };
/* The last generation: arrays indexed by generation have HP_GEN_LAST + 1
 * entries. */
#define HP_GEN_LAST GEN_CDNA4

enum hp_intra { INTRA_NVSWITCH, INTRA_NVLINK, INTRA_PCIE };

#define GPU_MAX_ALIASES 10

struct gpu_spec {
	char name[32];                        /* canonical: "H100-SXM" */
	char aliases[GPU_MAX_ALIASES][32];
	int n_aliases;
	char vendor[24], arch[48], variant[48], form[32];
	enum hp_gen gen;
	/* The catalog's memory_gb read as decimal bytes (memory_gb x 1e9):
	 * the label listings print as "GB", and what a plan allocates on a
	 * part without a driver figure (gpu_usable_bytes). Not the physical
	 * memory: GPU memory is sold in binary GB, see gpu_phys_bytes(). */
	double mem_bytes;
	/* What the driver reports as total memory (nvidia-smi memory.total,
	 * "memory_usable_mib" in the catalog), bytes; 0 = not in the catalog,
	 * use gpu_usable_bytes() which falls back to mem_bytes. Never above
	 * gpu_phys_bytes() (the loader refuses it). */
	double mem_usable_bytes;
	int sms;                              /* SMs (CUs on AMD); 0 = unknown */
	double hbm_Bps;                       /* memory bandwidth, bytes/s */
	double flops[HP_DTYPE_COUNT];         /* dense peak FLOP/s, 0 = unknown */
	double link_Bps;                      /* scale-up per GPU per direction */
	int domain;                           /* scale-up domain size (GPUs) */
	int pcie_gen;
	/* PCIe lanes of the usual host's slot for this GPU (catalog
	 * "defaults": {"pcie_lanes": N}; 16 when not given, and 0 in a
	 * gpu_spec built by hand reads as 16). A pool's key pcie overrides
	 * both on the pool's copy (cluster.c; comm.c comm_pcie_link_Bps). */
	int pcie_lanes;
	/* 1: two of these GPUs in one node cannot reach each other's memory
	 * over PCIe (catalog "p2p": false; GeForce RTX 40-series, whose driver
	 * refuses peer access, and the AWS g4dn/g5/g6 parts), so NCCL stages
	 * their traffic through host memory (comm.c, "No P2P"). 0: P2P
	 * works, or the GPUs talk over NVLink. */
	int no_p2p;
	double tdp_w;
	/* Board power limit set below the rated tdp_w (nvidia-smi -pl, or a
	 * vendor's lower-power variant of the part), watts; 0 = tdp_w. The
	 * performance model slows compute-bound kernels under it (perf.c). */
	double power_limit_w;
	/* Sustained dense 16-bit GEMM rate measured on the part at its rated
	 * board power (catalog "gemm16_tflops_measured", FLOP/s); 0 = none.
	 * Below what its generation's GEMM constant gives (peak x gemm16),
	 * it says the part cannot hold the clock that rate assumes (a
	 * 150-300 W board feeding full-rate tensor cores), and the
	 * performance model slows its compute-bound kernels in proportion
	 * (perf_compute.c, clock_frac). */
	double gemm16_meas;
	/* A reference part of the same die at another rated board power
	 * (catalog "clock_ref": its tdp_w, sm_count and dense bf16 peak;
	 * B300: B200, 1000 W, 148 SMs, 2250 TFLOP/s; GB300: GB200, 1200 W,
	 * 148, 2500). The performance model scales that part's sustained
	 * rate by board power and SM count (perf_compute.c, clock_frac).
	 * All 0: none. */
	double ref_tdp_w, ref_sms, ref_flops16;
	/* What a node of this GPU usually looks like. */
	int def_gpus_per_node;
	enum hp_intra def_intra;
	int def_nics;
	double def_nic_gbps;
	/* Host (CPU) memory of that usual node, GB (1e9 B), from the
	 * catalog's defaults.host_mem_gb (its source in defaults.
	 * host_mem_source): DGX H100 2 TB, a GB200 tray 960 GB. 0: not known. */
	double def_host_mem_gb;
	char scaleup[64];
	char source[200];
	/* Reference on-demand price of one GPU-hour (host share included) and
	 * where it came from; 0 when the catalog has none. */
	double ref_usd_per_gpu_h;
	char ref_price_source[96];
};

struct moe_spec {
	int experts;          /* routed experts; 0 = dense model */
	int top_k;
	int expert_ffn;
	int shared_experts;
	int dense_layers;     /* the first N layers are dense (DeepSeek-V3: 3) */
};

struct mla_spec {         /* multi-head latent attention; kv_lora_rank 0 = none */
	int q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_dim;
};

enum hp_norm { NORM_RMS, NORM_LAYER };
enum hp_pos { POS_ROPE, POS_LEARNED, POS_ALIBI };

struct model_spec {
	char name[48];            /* preset key: "llama3.1-70b" */
	char display[64];
	int layers, hidden, heads, kv_heads, head_dim, ffn, vocab, seq_len;
	int gated_mlp, tied_embeddings, bias, qkv_bias, dropout, embedding_norm;
	/* Outputs of a task head that replaces the language-model head
	 * (SQuAD's start/end logits: 2; a 2-class classifier: 2); 0 = the
	 * usual head over the vocabulary. With a task head the embedding
	 * table is still trained (vocab x hidden parameters, gradients and
	 * optimizer state) and the output layer is hidden x task_head. */
	int task_head;
	/* The model code's eager ops where a framework runs it eagerly
	 * (framework.h eager_modules; perf_compute.c hf_eager_bytes):
	 * gelu_new, the GeLU as Hugging Face's NewGELUActivation (the tanh
	 * formula in eight PyTorch kernels; GPT-2's configs), and
	 * attn_softmax_fp32, the unfused attention's scores cast to fp32
	 * for the softmax and back (GPTBigCode's attention_softmax_in_fp32).
	 * 0 = one GeLU kernel, a 16-bit softmax. */
	int gelu_new, attn_softmax_fp32;
	enum hp_norm norm;
	enum hp_pos position;
	struct moe_spec moe;
	struct mla_spec mla;
	double published_params, published_active_params;   /* 0 = unknown */
	char source[200];
	/* The Hugging Face repository serving engines load ("meta-llama/
	 * Llama-3.1-70B-Instruct"); "" when the model has none. */
	char hf_id[96];
};

struct catalog {
	struct gpu_spec *gpus;
	int n_gpus;
	struct model_spec *models;
	int n_models;
};

/* Load the embedded catalogs, then the user's overrides from config_dir
 * (NULL: $XDG_CONFIG_HOME/hetplan or ~/.config/hetplan; a missing directory
 * or file is fine). Returns 0, or -1 with err naming the bad file and field. */
int catalog_load(struct catalog *cat, const char *config_dir, struct hp_err *err);
void catalog_done(struct catalog *cat);

/* Resolve a name the user typed: canonical names and aliases, ignoring case,
 * '-', '_', ' ', '.', and "GB" vs "G". NULL if unknown. */
const struct gpu_spec *catalog_gpu(const struct catalog *cat, const char *name);
const struct model_spec *catalog_model(const struct catalog *cat, const char *name);

/* Fill err with "unknown GPU 'X' (closest: A, B, C)". Returns -1. */
int catalog_gpu_unknown(const struct catalog *cat, const char *name,
			const char *where, struct hp_err *err);
int catalog_model_unknown(const struct catalog *cat, const char *name,
			  const char *where, struct hp_err *err);

/* Parse one GPU or model object (the catalog schema; also used for -m FILE).
 * file/path name the source in messages. */
struct cJSON;
int catalog_parse_gpu(const struct cJSON *o, const char *file, const char *path,
		      struct gpu_spec *g, struct hp_err *err);
int catalog_parse_model(const struct cJSON *o, const char *file, const char *path,
			struct model_spec *m, struct hp_err *err);

/* The model schema (fields.h): model_fields, with its "moe" and "mla"
 * objects. catalog_parse_model and model_to_json go through it. */
extern const struct hp_field_table model_fields, moe_fields, mla_fields;

/* Memory a program can allocate on g, before hetplan's own overhead
 * terms: the driver-reported total when the catalog has it, else the
 * label read as decimal bytes (mem_bytes, 0.931 of the physical memory:
 * below every driver figure in the catalog, see catalog.c). */
double gpu_usable_bytes(const struct gpu_spec *g);

/* The physical memory of g, bytes: memory_gb binary gigabytes (GiB), as
 * GPU memory is built and sold. The driver's total is at most this. */
double gpu_phys_bytes(const struct gpu_spec *g);

/* The dtype with the highest dense peak on g (on a tie the one listed
 * first: fp32, tf32, bf16, fp16, fp8), or -1 when the catalog gives g no
 * peak at all. Listings show this peak so a part without bf16 (V100, T4)
 * does not read as 0 TF. */
int gpu_best_dtype(const struct gpu_spec *g);

/* The dtypes g has a peak for, as "fp32 tf32 bf16 fp16 fp8" (sep between
 * names), into buf of n bytes (truncated to fit). Returns buf; "" when
 * there is none. */
const char *gpu_dtypes(const struct gpu_spec *g, const char *sep, char *buf, size_t n);

const char *hp_dtype_name(enum hp_dtype d);
/* The dtypes as a settings enum (fields.h): "fp32" ... "fp8". */
extern const struct hp_field_enum hp_dtype_enum;
int hp_dtype_parse(const char *s, enum hp_dtype *out);
const char *hp_intra_name(enum hp_intra i);
/* Its name in link labels: "NVSwitch", "NVLink", "PCIe". */
const char *hp_intra_label(enum hp_intra i);
int hp_intra_parse(const char *s, enum hp_intra *out);
const char *hp_gen_name(enum hp_gen g);
/* 0 for NVIDIA's pre-Ampere generations (Volta, Turing: compute
 * capability below 8.0), 1 otherwise. What hangs on it: bf16 units
 * (vLLM refuses bf16 below 8.0; serve_perf.c), and the stock training
 * stacks' fused attention: flash-attn 2 (Dao-AILab/flash-attention
 * README: Ampere, Ada, Hopper; Turing only with 1.x) and Transformer
 * Engine's fused backends need sm80 (runs_on.c, launch.c, search.c).
 * Other vendors' parts (CDNA's CK flash kernels, Gaudi's fused SDPA) have
 * their own: 1. */
int hp_gen_sm80(enum hp_gen g);

#endif
