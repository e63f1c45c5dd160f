/* fuzz_model.c — model JSON (-m FILE, catalog overrides). */
#include "fuzz.h"
#include "jsonx.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct hp_err err = { 0 };
	cJSON *root = jx_parse(s, size, "fuzz.json", &err);
	if (root) {
		struct model_spec m;
		if (catalog_parse_model(root, "fuzz.json", "", &m, &err) == 0) {
			struct param_count pc;
			model_params(&m, &pc);
		}
		cJSON_Delete(root);
	}
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
