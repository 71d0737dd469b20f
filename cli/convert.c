/* afmt CLI: afmt convert -- rewrite the arrays of one file in another
 * format (or the same one), optionally casting the element type.
 *
 * IN is validated and its arrays collected; each is decoded to plain data
 * in the target's storage order, cast if asked, checked against the target
 * (can_write, which needs the data), and all are written through a file
 * sink that writes OUT under a temporary name and renames it into place
 * only when everything succeeded.  The steps are in convert_*.c
 * (convert.h lists them).
 */
#include <string.h>

#include "cli.h"
#include "convert.h"

int afmt_cli_convert_main(int argc, char **argv, int first)
{
    afmt_cli_convert_args args;
    afmt_cli_convert_input in;
    afmt_cli_convert_plan plan;
    int rc = afmt_cli_convert_parse(&args, argc, argv, first);

    if (rc >= 0)
        return rc;
    memset(&plan, 0, sizeof plan);
    rc = afmt_cli_convert_read(&in, &args);
    if (rc == 0)
        rc = afmt_cli_convert_plan_all(&plan, &in, &args);
    if (rc == 0)
        rc = afmt_cli_convert_write(&plan);
    afmt_cli_convert_plan_free(&plan);
    afmt_cli_convert_input_free(&in);
    return rc;
}
