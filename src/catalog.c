/* catalog.c — the GPU and model catalogs: embedded JSON, user overrides,
 * name resolution with aliases and "did you mean". */
#include "catalog.h"
#include "jsonx.h"
#include "embed.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const dtype_names[HP_DTYPE_COUNT] = {
	"fp32", "tf32", "bf16", "fp16", "fp8",
};

const char *hp_dtype_name(enum hp_dtype d)
{
	assert((unsigned)d < HP_DTYPE_COUNT);
	return dtype_names[d];
}

int hp_dtype_parse(const char *s, enum hp_dtype *out)
{
	for (int i = 0; i < HP_DTYPE_COUNT; i++)
		if (hp_strieq(s, dtype_names[i])) {
			*out = (enum hp_dtype)i;
			return 0;
		}
	return -1;
}

FIELDS_ENUM(, hp_dtype_enum, enum hp_dtype, HP_DTYPE_COUNT, hp_dtype_name, hp_dtype_parse);

static const char *const intra_names[] = { "nvswitch", "nvlink", "pcie" };

const char *hp_intra_name(enum hp_intra i) { return intra_names[i]; }

const char *hp_intra_label(enum hp_intra i)
{
	static const char *const labels[] = { "NVSwitch", "NVLink", "PCIe" };
	return labels[i];
}

int hp_intra_parse(const char *s, enum hp_intra *out)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(intra_names); i++)
		if (hp_strieq(s, intra_names[i])) {
			*out = (enum hp_intra)i;
			return 0;
		}
	return -1;
}

const char *hp_gen_name(enum hp_gen g)
{
	static const char *const n[] = { "other", "volta", "turing", "ampere", "ada",
					 "hopper", "blackwell", "cdna", "gaudi", "cdna4" };
	_Static_assert(sizeof n / sizeof *n == HP_GEN_LAST + 1, "one name per generation");
	return (unsigned)g <= HP_GEN_LAST ? n[g] : n[GEN_OTHER];
}

int hp_gen_sm80(enum hp_gen g)
{
	return g != GEN_VOLTA && g != GEN_TURING;
}

static enum hp_gen gen_from_arch(const char *arch)
{
	/* First match wins: CDNA 4 ("CDNA4", "CDNA 4") before the "CDNA"
	 * that also names CDNA 1-3 ("CDNA", "CDNA2", "CDNA3"). */
	static const struct { const char *word; enum hp_gen gen; } m[] = {
		{ "Volta", GEN_VOLTA }, { "Turing", GEN_TURING },
		{ "Ampere", GEN_AMPERE }, { "Ada", GEN_ADA },
		{ "Hopper", GEN_HOPPER }, { "Blackwell", GEN_BLACKWELL },
		{ "CDNA4", GEN_CDNA4 }, { "CDNA 4", GEN_CDNA4 },
		{ "CDNA", GEN_CDNA }, { "Gaudi", GEN_GAUDI },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(m); i++)
		if (strstr(arch, m[i].word))
			return m[i].gen;
	return GEN_OTHER;
}

/* Name comparison key: separators dropped, lower case, "gb" folded to "g"
 * so "A100-80GB" and "a100_80g" meet. */
static void gpu_key(char *dst, size_t n, const char *src)
{
	char tmp[64];
	hp_name_key(tmp, sizeof tmp, src);
	size_t j = 0;
	for (size_t i = 0; tmp[i] && j + 1 < n; i++) {
		if (tmp[i] == 'g' && tmp[i + 1] == 'b' && i > 0 &&
		    tmp[i - 1] >= '0' && tmp[i - 1] <= '9') {
			dst[j++] = 'g';
			i++;
			continue;
		}
		dst[j++] = tmp[i];
	}
	dst[j] = '\0';
}

/* How far a clock_ref part's tdp_w, sm_count and bf16_tflops may lie from
 * the part's own, either way. Physical meaning: parts cut from one die
 * differ by less: the widest spread in data/gpus.json is GH100, H100-SXM
 * against H20 (989 against 148 dense TFLOP/s, 6.7x; 132 against 78 SMs;
 * 700 against 400 W). A slip of unit (kW for W, PFLOP/s for TFLOP/s) is
 * 1000x, and would move the part's compute rate by as much without a
 * word (clock_frac scales the reference's rate, capped only above). */
#define CLOCK_REF_MAX_RATIO 8.0

/* A clock_ref only means something beside the part's own board power, SM
 * count and 16-bit peak (perf_compute.c, clock_frac scales between the
 * two), and a measured rate (gemm16_tflops_measured) already states what
 * the reference would estimate. Either slip would be ignored without a
 * word, and figures far from the part's are a slip of unit: say so. */
static int check_clock_ref(const struct gpu_spec *g, const char *file,
			   const char *path, struct hp_err *err)
{
	const char *need = !(g->tdp_w > 0) ? "tdp_w" : g->sms <= 0 ? "sm_count" :
			   !(g->flops[HP_FP16] > 0) ? "tflops.bf16" : NULL;
	if (need)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s.clock_ref: needs the part's own %s (the reference's rate is scaled against it)",
				  file, path, need);
	if (g->gemm16_meas > 0)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s.clock_ref: give either clock_ref or gemm16_tflops_measured, not both (a measured rate already states the part's compute rate)",
				  file, path);
	const struct {
		const char *key;
		double ref, own;
	} r[] = {
		{ "tdp_w", g->ref_tdp_w, g->tdp_w },
		{ "sm_count", g->ref_sms, g->sms },
		{ "bf16_tflops", g->ref_flops16 / 1e12, g->flops[HP_FP16] / 1e12 },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (r[i].ref > r[i].own * CLOCK_REF_MAX_RATIO ||
		    r[i].own > r[i].ref * CLOCK_REF_MAX_RATIO)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: %s.clock_ref.%s: %g is more than %gx away from the part's own %g (a part of the same die; a slip of unit?)",
					  file, path, r[i].key, r[i].ref, CLOCK_REF_MAX_RATIO, r[i].own);
	return 0;
}

/* The optional clock_ref object of a GPU entry: the reference part's
 * rated figures (perf_compute.c, clock_frac), all three required, within
 * the bounds of tdp_w, sm_count and the tflops values of an entry; its
 * checks against the part's own figures come later (check_clock_ref). */
static int parse_clock_ref(struct jx_ctx *c, const cJSON *o, const char *file,
			   const char *path, struct gpu_spec *g, struct hp_err *err)
{
	int bad = 0;
	const cJSON *cr = jx_obj(c, o, "clock_ref", 0, &bad);
	if (bad)
		return -1;
	if (!cr)
		return 0;
	char sub[96];
	snprintf(sub, sizeof sub, "%s.clock_ref", path);
	struct jx_ctx cc = { file, sub, err };
	int ref_sms = 0;
	if (jx_num(&cc, cr, "tdp_w", 1, 1, 1e5, &g->ref_tdp_w) < 0 ||
	    jx_int(&cc, cr, "sm_count", 1, 1, 100000, &ref_sms) < 0 ||
	    jx_num(&cc, cr, "bf16_tflops", 1, 0.001, 1e6, &g->ref_flops16) < 0)
		return -1;
	g->ref_sms = ref_sms;
	g->ref_flops16 *= 1e12;
	return 0;
}

/* catalog_parse_gpu's steps, in its order; each -1 with err set. */

/* The aliases and the descriptive strings. */
static int parse_gpu_names(struct jx_ctx *cx, const cJSON *o, const char *file,
			   const char *path, struct gpu_spec *g, struct hp_err *err)
{
	int bad;
	const cJSON *al = jx_arr(cx, o, "aliases", 0, &bad);
	if (bad)
		return -1;
	const cJSON *it;
	cJSON_ArrayForEach(it, al) {
		if (!cJSON_IsString(it) || strlen(it->valuestring) >= 32)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: %s.aliases: expected strings of at most 31 characters",
					  file, path);
		if (g->n_aliases < GPU_MAX_ALIASES)
			hp_strlcpy(g->aliases[g->n_aliases++], it->valuestring, 32);
	}
	if (jx_str(cx, o, "vendor", 0, g->vendor, sizeof g->vendor) < 0 ||
	    jx_str(cx, o, "arch", 0, g->arch, sizeof g->arch) < 0 ||
	    jx_str(cx, o, "variant", 0, g->variant, sizeof g->variant) < 0 ||
	    jx_str(cx, o, "form_factor", 0, g->form, sizeof g->form) < 0 ||
	    jx_str(cx, o, "scaleup", 0, g->scaleup, sizeof g->scaleup) < 0 ||
	    jx_str(cx, o, "source", 0, g->source, sizeof g->source) < 0 ||
	    jx_str(cx, o, "reference_price_source", 0, g->ref_price_source,
		   sizeof g->ref_price_source) < 0 ||
	    jx_num(cx, o, "reference_usd_per_gpu_hour", 0, 0, 1e6,
		   &g->ref_usd_per_gpu_h) < 0)
		return -1;
	return 0;
}

/* Memory, bandwidth, links, power, the measured sweep, the clock
 * reference, usable memory, SMs, scale-up domain and PCIe. */
static int parse_gpu_figures(struct jx_ctx *cx, const cJSON *o, const char *file,
			     const char *path, struct gpu_spec *g, struct hp_err *err)
{
	g->gen = gen_from_arch(g->arch);
	double mem_gb = 0, bw_tbps = 0, link = 0, tdp = 0;
	if (jx_num(cx, o, "memory_gb", 1, 0.001, 1e5, &mem_gb) < 0)
		return -1;
	if (jx_num(cx, o, "memory_bw_tbps", 0, 0.001, 1e3, &bw_tbps) < 0 ||
	    jx_num(cx, o, "scaleup_gbyte_s_per_dir", 0, 0, 1e5, &link) < 0 ||
	    jx_num(cx, o, "tdp_w", 0, 0, 1e5, &tdp) < 0 ||
	    jx_num(cx, o, "power_limit_w", 0, 1, 1e5, &g->power_limit_w) < 0 ||
	    jx_num(cx, o, "gemm16_tflops_measured", 0, 0.001, 1e6, &g->gemm16_meas) < 0)
		return -1;
	g->gemm16_meas *= 1e12;
	if (parse_clock_ref(cx, o, file, path, g, err) < 0)
		return -1;
	/* A cJSON null (unknown) is not a number: treat it as absent. */
	g->mem_bytes = mem_gb * 1e9;
	g->hbm_Bps = bw_tbps * 1e12;
	g->link_Bps = link * 1e9;
	g->tdp_w = tdp;
	g->domain = 1;
	g->pcie_gen = 4;
	g->pcie_lanes = 16;
	double usable_mib = 0;
	if (jx_num(cx, o, "memory_usable_mib", 0, 1, 1e8, &usable_mib) < 0 ||
	    jx_int(cx, o, "sm_count", 0, 1, 100000, &g->sms) < 0)
		return -1;
	g->mem_usable_bytes = usable_mib * 1048576.0;
	if (g->mem_usable_bytes > gpu_phys_bytes(g))
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s.memory_usable_mib: %g MiB is more than the part's memory_gb %g GB (%g MiB: GPU memory is sold in binary GB); nvidia-smi's memory.total in MiB was meant",
				  file, path, usable_mib, mem_gb, mem_gb * 1024);
	int p2p = 1;
	if (jx_int(cx, o, "scaleup_domain", 0, 1, 100000, &g->domain) < 0 ||
	    jx_int(cx, o, "pcie_gen", 0, 1, 10, &g->pcie_gen) < 0 ||
	    jx_bool(cx, o, "p2p", 0, &p2p) < 0)
		return -1;
	g->no_p2p = !p2p;
	return 0;
}

/* The tensor peaks per data type. */
static int parse_gpu_tflops(struct jx_ctx *cx, const cJSON *o, const char *file,
			    const char *path, struct gpu_spec *g, struct hp_err *err)
{
	int bad;
	const cJSON *tf = jx_obj(cx, o, "tflops", 0, &bad);
	if (bad)
		return -1;
	if (tf) {
		char sub[96];
		snprintf(sub, sizeof sub, "%s.tflops", path);
		struct jx_ctx ct = { file, sub, err };
		for (int d = 0; d < HP_DTYPE_COUNT; d++) {
			double v = 0;
			if (jx_num(&ct, tf, dtype_names[d], 0, 0, 1e6, &v) < 0)
				return -1;
			g->flops[d] = v * 1e12;
		}
		/* fp16 and bf16 tensor peaks are equal on every part that has
		 * both; a part listing only bf16 runs fp16 at that rate. A part
		 * without bf16 (V100, T4) keeps 0 there and bf16 plans fall back
		 * to its fp16 rate in perf.c. */
		if (!g->flops[HP_FP16])
			g->flops[HP_FP16] = g->flops[HP_BF16];
	}
	return 0;
}

/* The usual node: GPUs, intra-node link, NICs, host memory, PCIe lanes. */
static int parse_gpu_defaults(struct jx_ctx *cx, const cJSON *o, const char *file,
			      const char *path, struct gpu_spec *g, struct hp_err *err)
{
	int bad;
	g->def_gpus_per_node = 8;
	g->def_intra = g->link_Bps > 0 ? INTRA_NVLINK : INTRA_PCIE;
	g->def_nics = 1;
	g->def_nic_gbps = 100;
	const cJSON *df = jx_obj(cx, o, "defaults", 0, &bad);
	if (bad)
		return -1;
	if (df) {
		char sub[96], intra[16] = "";
		snprintf(sub, sizeof sub, "%s.defaults", path);
		struct jx_ctx cd = { file, sub, err };
		if (jx_int(&cd, df, "gpus_per_node", 0, 1, 1024, &g->def_gpus_per_node) < 0 ||
		    /* a usual node reaches others: at least one NIC (a pool
		     * with 0 is a lone node, said in the pool itself) */
		    jx_int(&cd, df, "nics", 0, 1, 64, &g->def_nics) < 0 ||
		    jx_num(&cd, df, "nic_gbps", 0, 1, 1e5, &g->def_nic_gbps) < 0 ||
		    /* GB per node: 1 (no server has less) to 1e5 (100 TB;
		     * the largest shared-memory hosts, HPE Superdome Flex,
		     * reach 48 TB) */
		    jx_num(&cd, df, "host_mem_gb", 0, 1, 1e5, &g->def_host_mem_gb) < 0 ||
		    /* the usual host's lanes for the card (x8 cards exist) */
		    jx_int(&cd, df, "pcie_lanes", 0, 1, 16, &g->pcie_lanes) < 0 ||
		    jx_str(&cd, df, "intra", 0, intra, sizeof intra) < 0)
			return -1;
		if (*intra && hp_intra_parse(intra, &g->def_intra))
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: %s.intra: expected nvswitch, nvlink or pcie, got \"%s\"",
					  file, sub, intra);
	}
	return 0;
}

int catalog_parse_gpu(const cJSON *o, const char *file, const char *path,
		      struct gpu_spec *g, struct hp_err *err)
{
	struct jx_ctx c = { file, path, err };
	memset(g, 0, sizeof *g);
	if (!cJSON_IsObject(o))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s: expected an object",
				  file, path);
	if (jx_str(&c, o, "name", 1, g->name, sizeof g->name) < 0)
		return -1;
	if (parse_gpu_names(&c, o, file, path, g, err) < 0 ||
	    parse_gpu_figures(&c, o, file, path, g, err) < 0 ||
	    parse_gpu_tflops(&c, o, file, path, g, err) < 0)
		return -1;
	if (g->ref_tdp_w > 0 && check_clock_ref(g, file, path, err) < 0)
		return -1;
	return parse_gpu_defaults(&c, o, file, path, g, err);
}

/* GPU memory is built from DRAM dies of binary capacity (8, 16, 24 Gbit)
 * and sold in binary gigabytes: a "24 GB" RTX 3090 carries 24 GiB and its
 * driver reports 24,576 MiB, an "80 GB" A100 81,920 MiB. The driver's
 * total is at most that: the 26 parts in data/gpus.json with a driver
 * figure report 0.933 (B300) to 1.000 (RTX 3090, A100) of memory_gb GiB;
 * GDDR boards with ECC on give 1/16 to the check bits (T4 15,360 of
 * 16,384 MiB; A10, L4, L40S 0.937). Read as 1e9 bytes, memory_gb put
 * every one of those 26 driver figures above the part's memory.
 * Without a driver figure a plan allocates mem_bytes = memory_gb x 1e9,
 * 1e9 / 2^30 = 0.931 of the physical memory: below every share above, so
 * such a part is not planned with memory it may lack (at most 7% less than
 * a part with ECC off reports). */
double gpu_phys_bytes(const struct gpu_spec *g)
{
	return g->mem_bytes / 1e9 * 1073741824.0;
}

double gpu_usable_bytes(const struct gpu_spec *g)
{
	return g->mem_usable_bytes > 0 ? g->mem_usable_bytes : g->mem_bytes;
}

int gpu_best_dtype(const struct gpu_spec *g)
{
	int best = -1;
	for (int d = 0; d < HP_DTYPE_COUNT; d++)
		if (g->flops[d] > 0 && (best < 0 || g->flops[d] > g->flops[best]))
			best = d;
	return best;
}

const char *gpu_dtypes(const struct gpu_spec *g, const char *sep, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		*buf = '\0';
	for (int d = 0; d < HP_DTYPE_COUNT && n; d++) {
		if (!(g->flops[d] > 0))
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? sep : "", dtype_names[d]);
		if (w < 0 || (size_t)w >= n - len) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
	return buf;
}

/* ---- The model schema, one entry per key (fields.h). Ranges are sanity
 * bounds, not physics: the largest published dense models have about 128
 * layers, hidden 25,600 and vocabularies of 256k; 100,000 layers or heads
 * and 1e7 hidden catch a typo or an overflow, not a real model. */

static const char *const norm_names[] = { "rmsnorm", "layernorm" };
static const char *const pos_names[] = { "rope", "learned", "alibi" };

static const char *norm_name(int v) { return norm_names[v]; }
static const char *pos_name(int v) { return pos_names[v]; }

static int norm_parse(const char *s, int *v)
{
	return (*v = fields_name_index(norm_names, 2, s)) < 0 ? -1 : 0;
}

static int pos_parse(const char *s, int *v)
{
	return (*v = fields_name_index(pos_names, 3, s)) < 0 ? -1 : 0;
}

static const struct hp_field_enum norm_enum = { 2, norm_name, norm_parse };
static const struct hp_field_enum pos_enum = { 3, pos_name, pos_parse };

static int model_display_differs(const void *base)
{
	const struct model_spec *m = base;
	return *m->display && strcmp(m->display, m->name);
}

static int model_has_moe(const void *base)
{
	return ((const struct model_spec *)base)->moe.experts != 0;
}

static int model_has_mla(const void *base)
{
	return ((const struct model_spec *)base)->mla.kv_lora_rank != 0;
}

#define MF(m) offsetof(struct model_spec, m)

static const struct hp_field moe_field_list[] = {
	{ .key = "experts", .kind = FK_INT, .off = MF(moe.experts), .min = 1, .max = 100000,
	  .flags = FF_REQUIRED | FF_ZERO_NONE, .label = "Experts", .hint = "0 for a dense model",
	  .help = "routed experts per MoE layer" },
	{ .key = "top_k", .kind = FK_INT, .off = MF(moe.top_k), .min = 1, .max = 100000,
	  .flags = FF_REQUIRED | FF_ZERO_NONE, .label = "Experts per token",
	  .help = "experts each token is routed to" },
	{ .key = "expert_ffn", .kind = FK_INT, .off = MF(moe.expert_ffn), .min = 1,
	  .max = 100000000, .flags = FF_REQUIRED | FF_ZERO_NONE, .label = "Expert FFN",
	  .help = "FFN width of one expert" },
	{ .key = "shared_experts", .kind = FK_INT, .off = MF(moe.shared_experts), .min = 0,
	  .max = 1000, .label = "Shared experts",
	  .help = "experts every token passes through; default 0" },
	{ .key = "dense_layers", .kind = FK_INT, .off = MF(moe.dense_layers), .min = 0,
	  .max = 100000, .label = "Dense layers", .hint = "the first N layers are dense",
	  .help = "the first N layers are dense (DeepSeek-V3: 3); default 0" },
};

const struct hp_field_table moe_fields = { "model.moe", moe_field_list,
					   (int)HP_ARRAY_LEN(moe_field_list), 1, 0 };

static const struct hp_field mla_field_list[] = {
	{ .key = "q_lora_rank", .kind = FK_INT, .off = MF(mla.q_lora_rank), .min = 0,
	  .max = 1000000, .label = "MLA Q rank", .hint = "0 without latent attention",
	  .help = "query compression rank; 0: none" },
	{ .key = "kv_lora_rank", .kind = FK_INT, .off = MF(mla.kv_lora_rank), .min = 1,
	  .max = 1000000, .flags = FF_REQUIRED | FF_ZERO_NONE, .label = "MLA KV rank",
	  .hint = "0 without latent attention", .help = "key-value latent rank" },
	{ .key = "qk_nope_dim", .kind = FK_INT, .off = MF(mla.qk_nope_dim), .min = 1,
	  .max = 100000, .flags = FF_REQUIRED, .help = "query/key head dim without RoPE" },
	{ .key = "qk_rope_dim", .kind = FK_INT, .off = MF(mla.qk_rope_dim), .min = 1,
	  .max = 100000, .flags = FF_REQUIRED, .help = "query/key head dim with RoPE" },
	{ .key = "v_dim", .kind = FK_INT, .off = MF(mla.v_dim), .min = 1, .max = 100000,
	  .flags = FF_REQUIRED, .help = "value head dim" },
};

/* Not strict: model files written before this table carried extra MLA keys. */
const struct hp_field_table mla_fields = { "model.mla", mla_field_list,
					   (int)HP_ARRAY_LEN(mla_field_list), 0, 0 };

static const struct hp_field model_field_list[] = {
	{ .key = "name", .kind = FK_STR, FIELD_STR(struct model_spec, name),
	  .flags = FF_REQUIRED,
	  .help = "preset key, like llama3.1-70b" },
	{ .key = "display", .kind = FK_STR, FIELD_STR(struct model_spec, display),
	  .present = model_display_differs,
	  .help = "name to show; absent: the name" },
	{ .key = "layers", .kind = FK_INT, .off = MF(layers), .min = 1, .max = 100000,
	  .flags = FF_REQUIRED, .label = "Layers", .help = "transformer blocks" },
	{ .key = "hidden", .kind = FK_INT, .off = MF(hidden), .min = 1, .max = 10000000,
	  .flags = FF_REQUIRED, .label = "Hidden", .help = "model width" },
	{ .key = "heads", .kind = FK_INT, .off = MF(heads), .min = 1, .max = 100000,
	  .flags = FF_REQUIRED, .label = "Heads", .help = "attention (query) heads" },
	{ .key = "kv_heads", .kind = FK_INT, .off = MF(kv_heads), .min = 1, .max = 100000,
	  .label = "KV heads", .help = "key-value heads (GQA); absent: heads",
	  .doc = "Key-value heads (GQA); absent: `heads`. It must divide `heads`." },
	{ .key = "head_dim", .kind = FK_INT, .off = MF(head_dim), .min = 1, .max = 100000,
	  .label = "Head dim", .help = "per-head width; absent: hidden / heads",
	  .doc = "Per-head width; absent: `hidden` / `heads`, so it is required when `heads` "
		 "does not divide `hidden`." },
	{ .key = "ffn", .kind = FK_INT, .off = MF(ffn), .min = 1, .max = 100000000,
	  .flags = FF_REQUIRED, .label = "FFN", .help = "MLP inner width",
	  .doc = "MLP inner width; for MoE layers see `moe.expert_ffn`." },
	{ .key = "gated_mlp", .kind = FK_BOOL, .off = MF(gated_mlp), .label = "Gated MLP",
	  .help = "SwiGLU-style gated MLP (three matrices); default true" },
	{ .key = "vocab", .kind = FK_INT, .off = MF(vocab), .min = 1, .max = 100000000,
	  .flags = FF_REQUIRED, .label = "Vocabulary", .help = "vocabulary size" },
	{ .key = "task_head", .kind = FK_INT, .off = MF(task_head), .min = 0, .max = 100000000,
	  .flags = FF_OMIT_ZERO, .label = "Task head",
	  .help = "outputs of a task head in place of the LM head (SQuAD: 2); absent: LM head",
	  .doc = "Outputs of a task head that replaces the language-model head (BERT's SQuAD "
		 "head: 2, a 2-class classifier: 2); absent or 0: the usual head over `vocab`. "
		 "The embedding table stays trained (its gradients and optimizer state count); "
		 "the output layer is `hidden` x `task_head`, untied (`tied_embeddings` must be "
		 "false)." },
	{ .key = "seq_len", .kind = FK_INT, .off = MF(seq_len), .min = 1, .max = 100000000,
	  .label = "Context", .unit = "tokens", .help = "training context; default 4096" },
	{ .key = "tied_embeddings", .kind = FK_BOOL, .off = MF(tied_embeddings),
	  .label = "Tied embeddings",
	  .help = "output layer shares the input embedding; default false" },
	{ .key = "norm", .kind = FK_ENUM, .off = MF(norm), .enm = &norm_enum, .label = "Norm",
	  .help = "normalisation layers; default rmsnorm" },
	{ .key = "position", .kind = FK_ENUM, .off = MF(position), .enm = &pos_enum,
	  .label = "Positions", .help = "position encoding; default rope" },
	{ .key = "bias", .kind = FK_BOOL, .off = MF(bias), .label = "Linear biases",
	  .help = "biases on the linear layers; default false" },
	{ .key = "qkv_bias", .kind = FK_BOOL, .off = MF(qkv_bias), .label = "QKV bias",
	  .help = "biases on the QKV projection only (Qwen); default false" },
	{ .key = "dropout", .kind = FK_BOOL, .off = MF(dropout), .label = "Dropout",
	  .help = "dropout masks kept for backward; default false" },
	/* Both from the model code (huggingface/transformers activations.py
	 * NewGELUActivation; models/gpt_bigcode/modeling_gpt_bigcode.py
	 * @00574544 upcast_masked_softmax): perf_compute.c hf_eager_bytes. */
	{ .key = "gelu_new", .kind = FK_BOOL, .off = MF(gelu_new), .flags = FF_OMIT_ZERO,
	  .label = "GeLU as gelu_new",
	  .help = "GeLU as HF's gelu_new, eight eager kernels (GPT-2); default false",
	  .doc = "The MLP's GeLU is Hugging Face's `gelu_new` (NewGELUActivation: the tanh "
		 "formula as eight eager PyTorch kernels, as GPT-2's configs name it); "
		 "counted under `--framework hf-transformers` and the other eager rows. "
		 "Default false: one GeLU kernel." },
	{ .key = "attn_softmax_fp32", .kind = FK_BOOL, .off = MF(attn_softmax_fp32),
	  .flags = FF_OMIT_ZERO, .label = "Softmax in fp32",
	  .help = "unfused attention casts the scores to fp32 for the softmax (GPTBigCode); "
		  "default false",
	  .doc = "The unfused attention casts the 16-bit scores to fp32 for the scale, mask "
		 "and softmax and back (GPTBigCode's `attention_softmax_in_fp32`, true in "
		 "its configs); counted under `--framework hf-transformers` and the other "
		 "eager rows with `--attention unfused`. Default false." },
	{ .key = "embedding_norm", .kind = FK_BOOL, .off = MF(embedding_norm),
	  .label = "Embedding norm",
	  .help = "a norm after the embedding (BLOOM); default false" },
	{ .key = "moe", .kind = FK_OBJECT, .sub = &moe_fields, .present = model_has_moe,
	  .help = "mixture of experts; absent: dense" },
	{ .key = "mla", .kind = FK_OBJECT, .sub = &mla_fields, .present = model_has_mla,
	  .help = "multi-head latent attention; absent: none" },
	{ .key = "published_params", .kind = FK_NUM, .off = MF(published_params), .min = 0,
	  .max = 1e16, .flags = FF_OMIT_ZERO, .help = "parameters the authors state, for checks" },
	{ .key = "published_active_params", .kind = FK_NUM, .off = MF(published_active_params),
	  .min = 0, .max = 1e16, .flags = FF_OMIT_ZERO,
	  .help = "active parameters the authors state (MoE)" },
	{ .key = "source", .kind = FK_STR, FIELD_STR(struct model_spec, source), .flags = FF_NOSAVE,
	  .help = "where the numbers come from" },
	/* Read from catalogs and model files, not written back (as source):
	 * a report's model object stays what it was. */
	{ .key = "hf_id", .kind = FK_STR, FIELD_STR(struct model_spec, hf_id), .flags = FF_NOSAVE,
	  .help = "Hugging Face repository the serving launch lines load; absent: a preset's own, "
		  "else a placeholder to replace" },
};
#undef MF

const struct hp_field_table model_fields = { "model", model_field_list,
					     (int)HP_ARRAY_LEN(model_field_list), 1, 0 };

/* Rules between keys, after the table has read them. */
static int model_check(struct model_spec *m, const char *file, const char *path,
		       struct hp_err *err)
{
	const char *dot = *path ? "." : "";
	if (!*m->display)
		hp_strlcpy(m->display, m->name, sizeof m->display);
	if (!m->kv_heads)
		m->kv_heads = m->heads;
	if (!m->head_dim) {
		if (m->hidden % m->heads)
			return hp_err_set(err, HP_EXIT_INPUT,
					  "%s: %s%sheads: %d does not divide hidden %d (give head_dim)",
					  file, path, dot, m->heads, m->hidden);
		m->head_dim = m->hidden / m->heads;
	}
	if (m->task_head && m->tied_embeddings)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s%stask_head: a task head is not tied to the embedding "
				  "(set tied_embeddings false)", file, path, dot);
	if (m->heads % m->kv_heads)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s%skv_heads: %d must divide heads %d",
				  file, path, dot, m->kv_heads, m->heads);
	if (m->moe.top_k > m->moe.experts)
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s%smoe.top_k: %d exceeds experts %d",
				  file, path, dot, m->moe.top_k, m->moe.experts);
	if (m->moe.dense_layers > m->layers)
		return hp_err_set(err, HP_EXIT_INPUT,
				  "%s: %s%smoe.dense_layers: %d exceeds layers %d", file, path, dot,
				  m->moe.dense_layers, m->layers);
	return 0;
}

int catalog_parse_model(const cJSON *o, const char *file, const char *path,
			struct model_spec *m, struct hp_err *err)
{
	struct jx_ctx c = { file, path, err };
	memset(m, 0, sizeof *m);
	if (!cJSON_IsObject(o))
		return hp_err_set(err, HP_EXIT_INPUT, "%s: %s%sexpected a model object",
				  file, path, *path ? ": " : "");
	/* Defaults of the optional keys (kv_heads and head_dim: model_check). */
	m->seq_len = 4096;
	m->gated_mlp = 1;
	if (fields_check_keys(&model_fields, &c, o, NULL) < 0 ||
	    fields_read_json(&model_fields, m, &c, o) < 0)
		return -1;
	return model_check(m, file, path, err);
}

/* Merge the "gpus" or "models" array of one JSON document into the catalog. */
static int merge_doc(struct catalog *cat, const char *text, size_t len,
		     const char *file, struct hp_err *err)
{
	cJSON *root = jx_parse(text, len, file, err);
	if (!root)
		return -1;
	int rc = 0;
	const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(root, "gpus");
	const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
	if ((gpus && !cJSON_IsArray(gpus)) || (models && !cJSON_IsArray(models)) ||
	    (!gpus && !models)) {
		rc = hp_err_set(err, HP_EXIT_INPUT,
				"%s: expected an object with a \"gpus\" or \"models\" array",
				file);
		goto out;
	}
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, gpus) {
		char path[32];
		snprintf(path, sizeof path, "gpus[%d]", i++);
		struct gpu_spec g;
		if ((rc = catalog_parse_gpu(it, file, path, &g, err)) < 0)
			goto out;
		const struct gpu_spec *old = catalog_gpu(cat, g.name);
		if (old) {
			cat->gpus[old - cat->gpus] = g;
		} else {
			cat->gpus = xrealloc(cat->gpus, (size_t)(cat->n_gpus + 1) * sizeof g);
			cat->gpus[cat->n_gpus++] = g;
		}
	}
	i = 0;
	cJSON_ArrayForEach(it, models) {
		char path[32];
		snprintf(path, sizeof path, "models[%d]", i++);
		struct model_spec m;
		if ((rc = catalog_parse_model(it, file, path, &m, err)) < 0)
			goto out;
		const struct model_spec *old = catalog_model(cat, m.name);
		if (old) {
			cat->models[old - cat->models] = m;
		} else {
			cat->models = xrealloc(cat->models,
					       (size_t)(cat->n_models + 1) * sizeof m);
			cat->models[cat->n_models++] = m;
		}
	}
out:
	cJSON_Delete(root);
	return rc;
}

static int merge_user_file(struct catalog *cat, const char *dir, const char *name,
			   struct hp_err *err)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	int rc = 0;
	if (stat(path, &st) == 0) {
		size_t len;
		char *text = hp_read_regular_file(path, &len, err);
		rc = text ? merge_doc(cat, text, len, path, err) : -1;
		free(text);
	}
	free(path);
	return rc;
}

int catalog_load(struct catalog *cat, const char *config_dir, struct hp_err *err)
{
	memset(cat, 0, sizeof *cat);
	if (merge_doc(cat, embed_gpus_json, embed_gpus_json_len, "data/gpus.json", err) ||
	    merge_doc(cat, embed_models_json, embed_models_json_len,
		      "data/models.json", err)) {
		catalog_done(cat);
		return -1;
	}
	char *dir = NULL;
	if (config_dir) {
		dir = xstrdup(config_dir);
	} else {
		const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		if (x && *x)
			dir = xasprintf("%s/hetplan", x);
		else if (home && *home)
			dir = xasprintf("%s/.config/hetplan", home);
	}
	int rc = 0;
	if (dir && (merge_user_file(cat, dir, "gpus.json", err) ||
		    merge_user_file(cat, dir, "models.json", err))) {
		catalog_done(cat);
		rc = -1;
	}
	free(dir);
	return rc;
}

void catalog_done(struct catalog *cat)
{
	free(cat->gpus);
	free(cat->models);
	memset(cat, 0, sizeof *cat);
}

const struct gpu_spec *catalog_gpu(const struct catalog *cat, const char *name)
{
	char key[64], k2[64];
	gpu_key(key, sizeof key, name);
	for (int i = 0; i < cat->n_gpus; i++) {
		const struct gpu_spec *g = &cat->gpus[i];
		gpu_key(k2, sizeof k2, g->name);
		if (!strcmp(key, k2))
			return g;
		for (int a = 0; a < g->n_aliases; a++) {
			gpu_key(k2, sizeof k2, g->aliases[a]);
			if (!strcmp(key, k2))
				return g;
		}
	}
	return NULL;
}

const struct model_spec *catalog_model(const struct catalog *cat, const char *name)
{
	char key[64], k2[64];
	hp_name_key(key, sizeof key, name);
	for (int i = 0; i < cat->n_models; i++) {
		hp_name_key(k2, sizeof k2, cat->models[i].name);
		if (!strcmp(key, k2))
			return &cat->models[i];
	}
	return NULL;
}

/* Keep the three smallest distances seen, in order: best[] holds their
 * indices (-1 while empty). */
static void rank3_add(int best[3], int bd[3], int i, int d)
{
	for (int j = 0; j < 3; j++)
		if (best[j] < 0 || d < bd[j]) {
			for (int k = 2; k > j; k--) {
				bd[k] = bd[k - 1];
				best[k] = best[k - 1];
			}
			bd[j] = d;
			best[j] = i;
			return;
		}
}

/* The three candidates closest to `name` by edit distance, prefix matches
 * first. */
static void closest(const char *name, const char *const *cands, int n,
		    char *out, size_t outsize)
{
	int best[3] = { -1, -1, -1 }, bd[3] = { 1 << 30, 1 << 30, 1 << 30 };
	char key[64], ck[64];
	hp_name_key(key, sizeof key, name);
	for (int i = 0; i < n; i++) {
		hp_name_key(ck, sizeof ck, cands[i]);
		int d = hp_edit_distance(key, ck);
		if (*key && !strncmp(ck, key, strlen(key)))
			d = 0;
		rank3_add(best, bd, i, d);
	}
	out[0] = '\0';
	for (int j = 0; j < 3 && best[j] >= 0; j++) {
		if (j)
			strncat(out, ", ", outsize - strlen(out) - 1);
		strncat(out, cands[best[j]], outsize - strlen(out) - 1);
	}
}

int catalog_gpu_unknown(const struct catalog *cat, const char *name,
			const char *where, struct hp_err *err)
{
	/* Rank GPUs by the closest of their name and aliases, so "H1000"
	 * lands next to "H100" rather than "A10". */
	int best[3] = { -1, -1, -1 }, bd[3] = { 1 << 30, 1 << 30, 1 << 30 };
	char key[64], ck[64];
	gpu_key(key, sizeof key, name);
	for (int i = 0; i < cat->n_gpus; i++) {
		const struct gpu_spec *g = &cat->gpus[i];
		gpu_key(ck, sizeof ck, g->name);
		int d = hp_edit_distance(key, ck);
		for (int a = 0; a < g->n_aliases; a++) {
			gpu_key(ck, sizeof ck, g->aliases[a]);
			int da = hp_edit_distance(key, ck);
			if (da < d)
				d = da;
		}
		rank3_add(best, bd, i, d);
	}
	char list[160] = "";
	for (int j = 0; j < 3 && best[j] >= 0; j++) {
		if (j)
			strncat(list, ", ", sizeof list - strlen(list) - 1);
		strncat(list, cat->gpus[best[j]].name, sizeof list - strlen(list) - 1);
	}
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s: unknown GPU '%s' (closest: %s; 'hetplan gpus' lists all)",
			  where, name, list);
}

int catalog_model_unknown(const struct catalog *cat, const char *name,
			  const char *where, struct hp_err *err)
{
	const char **c = xcalloc((size_t)cat->n_models, sizeof *c);
	for (int i = 0; i < cat->n_models; i++)
		c[i] = cat->models[i].name;
	char list[160];
	closest(name, c, cat->n_models, list, sizeof list);
	free(c);
	return hp_err_set(err, HP_EXIT_INPUT,
			  "%s: unknown model '%s' (closest: %s; 'hetplan models' lists all, or give a JSON file)",
			  where, name, list);
}
