/* afmt fuzzing: print the name of every format in the registry, one per
 * line.  fuzz/build.sh builds it first and makes the per-format targets
 * from its output, so a format added to spec/ (then `make regen`) gets its
 * fuzz targets with no change in fuzz/. */
#include <stdio.h>

#include "afmt.h"

int main(void)
{
    size_t i;

    for (i = 0; i < afmt_format_count; i++)
        if (afmt_formats[i])
            printf("%s\n", afmt_formats[i]->name);
    return 0;
}
