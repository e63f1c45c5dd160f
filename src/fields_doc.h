/* fields_doc.h — the settings tables (fields.h) as documentation, so the
 * man page, docs/formats.md and `hetplan --list-fields` come from the
 * entries that also parse and write the settings.
 *
 * Doc markup. A field's .doc and .arg (the man page's paragraph and the
 * flag's value) are plain text with two marks:
 *   `text`   bold: a key, a flag, a literal value;
 *   {text}   italic: a placeholder (N, V, NAME).
 * Marks do not nest. A '-' inside a mark becomes a roff minus (\-), so
 * flags stay searchable; the signs U+00D7 (times) and U+2265 (at least)
 * become \(mu and \(>=; a sentence after ". " starts a new roff line, so
 * the page spaces sentences as groff expects. Other text is printable
 * ASCII (asserted).
 * .help is plain text with `code` only: the Markdown tables keep the
 * backticks, the man page's key entries set it in bold, the terminal
 * table shows it as written.
 *
 * Regions. The Markdown and man outputs are a series of regions, each
 * framed by marker lines that tools/fields_update.py finds in the target
 * file and replaces the text between:
 *   <!-- fields: NAME -->  ...  <!-- end fields -->            (Markdown)
 *   .\" BEGIN fields: NAME  ...  .\" END fields                  (man)
 * Markdown regions, one per table (NAME = the table's name: plan, model,
 * model.moe, ...): its key table. Man regions:
 *   TABLE-flags      a .TP entry per flag of TABLE (plan: estimate options);
 *   TABLE-flag-list  those flags as one comma list (plan: launch options);
 *   TABLE-keys       a .TP entry per key of TABLE (INPUT FORMATS).
 * (Only tables with flags have the first two.)
 * The text is a pure function of the tables: two runs give the same bytes. */
#ifndef HP_FIELDS_DOC_H
#define HP_FIELDS_DOC_H

#include <stddef.h>
#include "fields.h"

enum fields_doc_format {
	FIELDS_DOC_TABLE,  /* a terminal table: table, key, flag, type, values, meaning */
	FIELDS_DOC_JSON,   /* [{"table", "key", "flag", "type", "values", ...}] */
	FIELDS_DOC_MD,     /* Markdown regions */
	FIELDS_DOC_MAN,    /* roff regions */
};

/* "table", "json", "md" or "man" into *out. Returns 0, or -1 for another word. */
int fields_doc_format_parse(const char *s, enum fields_doc_format *out);

/* The documentation of the n tables t[] in format fmt, as heap text the
 * caller frees. Cannot fail (xmalloc policy); asserts that every .doc and
 * .arg is well-formed markup. */
char *fields_doc(const struct hp_field_table *const *t, int n, enum fields_doc_format fmt);

/* The flag's value as a synopsis shows it, without markup: "N",
 * "on|off", "1f1b|interleaved:V"; "" for a flag without a value (--no-sp).
 * Returns buf. */
const char *fields_doc_arg(const struct hp_field *f, char *buf, size_t n);

#endif
