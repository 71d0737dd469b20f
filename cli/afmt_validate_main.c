/* afmt-validate: check binary array files (see docs/afmt-validate.1). */
#include "cli.h"

int main(int argc, char **argv)
{
    return afmt_cli_close_stdout("afmt-validate",
                                 afmt_cli_validate_main(argc, argv, 1, "afmt-validate"));
}
