/* afmt-gen: telling a field visitor (afmt_options.fields) of each header
 * field a validator reads, for `afmt info`.  One call per field, after
 * the field's bytes are known to be there and before its checks, behind
 * a test of opt->fields so that validation without a visitor pays one
 * branch per field. */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

void emit_field_report(emitter *m, const item *it, const char *kind, const char *count_c,
                       int width, int big_endian)
{
    /* an array field has a count expression; a scalar reports count 1 */
    int is_array = strcmp(count_c, "1") != 0;
    char *name = c_quote(it->name, strlen(it->name));
    char *doc = it->doc ? c_quote(it->doc, strlen(it->doc)) : NULL;

    line(m, "if (opt->fields) afmt_report_field(opt, &path, %s, %s, o_%s, %d, %s, %d, %d, AFMT_B(src, o_%s), %s);",
         name, kind, it->name, is_array, count_c, width, big_endian, it->name, doc ? doc : "NULL");
    free(name);
    free(doc);
}
