/* afmt-gen: the table of array layout modules (gen/layout.h). */
#include <string.h>
#include "layout.h"

static const layout_module *const LAYOUTS[] = {&layout_csr, &layout_csc, &layout_coo, &layout_zeros, &layout_columns};

const layout_module *layout_by_id(int id)
{
    size_t i;
    for (i = 0; i < sizeof LAYOUTS / sizeof LAYOUTS[0]; i++)
        if (LAYOUTS[i]->id == id) return LAYOUTS[i];
    return NULL;
}

const layout_module *layout_by_name(const char *name)
{
    size_t i;
    for (i = 0; name && i < sizeof LAYOUTS / sizeof LAYOUTS[0]; i++)
        if (strcmp(LAYOUTS[i]->name, name) == 0) return LAYOUTS[i];
    return NULL;
}
